"""Markup normalization: readable analysis text that maps back onto the user's own text."""

import pytest

from guardrails.rules.parts import PROPER, name_parts, written_as_name
from guardrails.text.normalize import normalize
from guardrails.vault.linking import identity, name_tokens


def spans_of(text, spans):
    return [text[s:e] for s, e, *_ in spans]


def test_slack_links_read_as_label_and_target_and_are_one_unit():
    text = "mail <mailto:jane@acme.com|jane@acme.com> or <tel:+14155550123|+1 415 555 0123>"
    norm = normalize(text, "slack")
    assert norm.text == "mail jane@acme.com or +1 415 555 0123 (+14155550123)"
    assert spans_of(text, norm.links) == [
        "<mailto:jane@acme.com|jane@acme.com>",
        "<tel:+14155550123|+1 415 555 0123>",
    ]
    assert [k for *_, k in norm.links] == ["mailto", "tel"]


def test_slack_mentions_channels_and_specials():
    text = "<@U024BE7LH> and <@W012A3CDE|bob> in <#C024BE7LR|general> <!here> <!subteam^S1|@ops>"
    norm = normalize(text, "slack")
    assert norm.text == "someone and someone in #general @here @team"
    assert spans_of(text, norm.users) == ["<@U024BE7LH>", "<@W012A3CDE|bob>"]
    assert spans_of(text, norm.protected) == [
        "<#C024BE7LR|general>",
        "<!here>",
        "<!subteam^S1|@ops>",
    ]


def test_discord_markup():
    text = (
        "<@!296012345678901234> <@&845612345678901234> <#109812345678901234> "
        "||secret|| <:pepe:902312345678901234> <t:1700000000:R> [site](https://x.io/a)"
    )
    norm = normalize(text, "discord")
    assert norm.text == "someone @role #channel  secret    then site (https://x.io/a)"
    assert spans_of(text, norm.users) == ["<@!296012345678901234>"]
    assert len(norm.protected) == 4
    assert spans_of(text, norm.links) == ["[site](https://x.io/a)"]


def test_html_escapes_emphasis_and_code():
    text = "Tom &amp; Jerry: *Jane Doe* in _Chicago_, `my_var` and ~gone~ snake_case_name"
    norm = normalize(text, "slack")
    assert norm.text == "Tom & Jerry:  Jane Doe  in  Chicago , my_var and  gone  snake_case_name"
    code = norm.code[0]
    assert norm.text[code[0] : code[1]] == "my_var"


@pytest.mark.parametrize("platform", ["slack", "discord", "console"])
def test_every_analysis_span_maps_back_to_the_same_word(platform):
    text = "Hi *Jane*\u200b, mail ja\u200bne@acme.com &amp; call 555\u2060-0187"
    norm = normalize(text, platform)
    start = norm.text.index("Jane")
    assert norm.original(start, start + 4) == (text.index("Jane"), text.index("Jane") + 4)
    email = norm.text.index("jane@acme.com")
    begin, end = norm.original(email, email + len("jane@acme.com"))
    assert text[begin:end] == "ja\u200bne@acme.com"
    assert len(norm.text) == len(norm.starts) == len(norm.ends)


def test_placeholders_and_plain_angle_brackets_are_not_markup():
    text = "<PERSON_1> said a <b> c > d"
    norm = normalize(text, "slack")
    assert norm.text == text
    assert not norm.links
    assert not norm.protected
    assert not norm.users


def test_identity_of_links_mentions_and_numbers():
    assert identity("EMAIL_ADDRESS", "<mailto:Jane@x.com|Jane>") == "Jane@x.com"
    assert identity("USER", "<@W012A3CDE|bob>") == identity("USER", "<@W012A3CDE>")
    assert identity("USER", "<@!123456789012345678>") == "<@123456789012345678>"
    assert identity("PHONE_NUMBER", "(212) 555-0187") == identity("PHONE_NUMBER", "212.555.0187")
    assert identity("PHONE_NUMBER", "<tel:2125550187|x>") == "tel:2125550187"
    assert identity("CREDIT_CARD", "4111-1111 1111.1111") == "4111111111111111"
    assert identity("PERSON", "Jane Doe") == "Jane Doe"


def test_name_parts():
    assert name_parts("PERSON", "Dr. Jane Doe-Smith") == ("jane", "doe-smith")
    assert name_parts("PERSON", "Мария Иванова") == ("мария", "иванова")
    assert name_parts("LOCATION", "New York") == ()
    assert name_parts("PERSON", "<https://x.io/u/jane|Jane>") == ()


def test_name_parts_take_the_form_the_detector_gives_each_word():
    def form(word):
        return PROPER + word.lower() if word in {"Ring", "Park"} else word.lower()

    assert name_parts("PERSON", "Ring Maria Park", form) == ("^ring", "maria", "^park")


@pytest.mark.parametrize(
    ("text", "word", "as_name"),
    [
        ("ask Park about it", "Park", True),
        ("thanks, Park", "Park", True),
        ("Owner: Park", "Park", True),
        ("Park the car", "Park", False),
        ("done. Park the car", "Park", False),
        ("- Park the car", "Park", False),
        ("line one\n**Park** the car", "Park", False),
        ("the park is closed", "park", False),
        ("ask PARK", "PARK", False),
    ],
)
def test_a_word_is_written_as_a_name_when_capitalized_and_not_first(text, word, as_name):
    start = text.index(word)
    assert written_as_name(text, start, start + len(word)) is as_name


def test_a_word_written_as_a_name_is_also_looked_up_in_its_proper_form():
    assert [t for *_, t in name_tokens("Park it, ask Park or park")] == [
        "park", "park", PROPER + "park", "park"
    ]  # fmt: skip


@pytest.mark.parametrize("platform", ["slack", "discord"])
def test_a_code_block_is_read_as_text_with_its_markup(platform):
    mention = "<@U024BE7LH>" if platform == "slack" else "<@!296045870987390977>"
    text = f"```{mention} ask **Raj Brennan** today```"
    norm = normalize(text, platform)
    assert spans_of(text, norm.users) == [mention]
    assert "Raj Brennan" in norm.text
    assert norm.code == []


@pytest.mark.parametrize(("platform", "quote"), [("discord", "> "), ("slack", "&gt; ")])
def test_quote_markers_are_blank_for_the_analyzer(platform, quote):
    norm = normalize(f"{quote}Elena Okafor asked\nx > y", platform)
    assert norm.text.split("\n")[0].strip() == "Elena Okafor asked"
    assert norm.text.endswith("x > y")


def test_fullwidth_letters_digits_and_address_characters_read_as_ascii():
    text = "邮箱：ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ，IP：１９２．１６８．０．１。"
    norm = normalize(text, "console")
    assert norm.text == "邮箱：jane@example.com，IP：192.168.0.1。"  # prose punctuation stays
    assert len(norm.text) == len(text)
    assert norm.original(3, 19) == (3, 19)
