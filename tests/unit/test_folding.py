"""Evasion folded and link targets decoded for analysis, each character mapped back."""

import pytest

from guardrails.text.folding import fold, mostly_hidden
from guardrails.text.normalize import normalize


def analysis(text: str, platform: str = "console"):
    return fold(normalize(text, platform))  # type: ignore[arg-type]


def original_of(text: str, norm, word: str) -> str:
    """The user's own characters behind ``word`` of the analysis text."""
    start = norm.text.index(word)
    a, b = norm.original(start, start + len(word))
    return text[a:b]


@pytest.mark.parametrize(
    ("text", "read", "written"),
    [
        (
            "mail jane\u180e.doe@exam\u034fple.com",
            "jane.doe@example.com",
            "jane\u180e.doe@exam\u034fple.com",
        ),
        ("mail j\u2060a\u206an\u2800e@x.org", "jane@x.org", "j\u2060a\u206an\u2800e@x.org"),
        ("mail ja\ufe0fne\U000e0001@x.org", "jane@x.org", "ja\ufe0fne\U000e0001@x.org"),
        ("mail j a n e . d o e @ x . o r g ok", "jane.doe@x.org", "j a n e . d o e @ x . o r g"),
        ("call 4 1 5 5 5 5 0 1 9 9 now", "4155550199", "4 1 5 5 5 5 0 1 9 9"),
        (
            "call four one five five five five zero one nine nine",
            "4155550199",
            "four one five five five five zero one nine nine",
        ),
        (
            "call Four-One-Five, five five five, oh one nine nine",
            "4155550199",
            "Four-One-Five, five five five, oh one nine nine",
        ),
        (
            "call oh seven seven double oh 123456 now",  # its area code had stayed in clear
            "07700123456",
            "oh seven seven double oh 123456",
        ),
        (
            "ring nine eight triple four five six seven eight two",
            "9844456782",
            "nine eight triple four five six seven eight two",
        ),
        ("card 4111/1111/1111/1111 ok", "4111 1111 1111 1111", "4111/1111/1111/1111"),
        ("card 4111|1111|1111|1111 ok", "4111 1111 1111 1111", "4111|1111|1111|1111"),
        (
            "card 4111\u03011111\u03011111\u0301 ok",
            "411111111111",
            "4111\u03011111\u03011111\u0301",
        ),
        ("hi J a n e   D o e ok", "Jane Doe", "J a n e   D o e"),
        ("hi J a n e D o e ok", "Jane Doe", "J a n e D o e"),
    ],
)
def test_an_evasion_form_reads_plainly_and_maps_back_whole(text, read, written):
    norm = analysis(text)
    assert read in norm.text
    assert original_of(text, norm, read) == written


def test_hidden_text_in_tag_characters_is_read_and_a_run_inside_a_word_joins_it():
    tags = "".join(chr(0xE0000 + ord(c)) for c in "mail jane@x.org")
    norm = analysis(f"see {tags} ok")
    assert "see mail jane@x.org ok" in norm.text
    assert original_of(f"see {tags} ok", norm, "jane@x.org") == tags[5:]
    inside = analysis("mail jane" + chr(0xE0020) + ".doe@x.org")
    assert "jane.doe@x.org" in inside.text


@pytest.mark.parametrize(
    "text",
    [
        "The results: 1,234,567,890,123 units",  # thousands separators: an amount
        "on 12/05/2020 at 10:30:45",  # dates and times keep their slashes
        "I am a b c",  # three single letters are words
        "one two three",  # counting, not a number
        "double five and triple seven at table 12",
        "a b c ef and 1 2 3",
        "Rate it 1 2 3 4 5 6 7 8 9 10 please",  # a scale counts
        "count down 9 8 7 6 5 4 3 2 1 0",
        "Go \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f!",
    ],
)
def test_ordinary_text_is_not_folded(text):
    norm = analysis(text)
    if "\U0001f3f4" in text:
        assert norm.text.startswith("Go \U0001f3f4")  # a flag's tags read as its letters
        return
    assert norm.text == normalize(text, "console").text


def test_folding_keeps_inline_code_spans_on_their_words():
    text = "c a l l 4 1 5 5 then `my_var` here"
    norm = analysis(text, "slack")
    start, end = norm.code[0]
    assert norm.text[start:end] == "my_var"


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        (
            "<https://x.io/f?name=Jane+Doe&phone=%2B14155550199&e=a%40b.co|form>",
            [("name", "Jane Doe"), ("phone", "+14155550199"), ("e", "a@b.co")],
        ),
        (
            "<https://x.io/f?First_Name=J%C3%BCrgen&dob=1969-05-12|f>",
            [("firstname", "Jürgen"), ("dob", "1969-05-12")],
        ),
        ("<https://x.io/f?q=a%26b%3Dc&x=%zz|f>", [("q", "a%26b%3Dc"), ("x", "%zz")]),
    ],
)
def test_link_parameters_are_decoded_with_their_keys(text, fields):
    norm = normalize(text, "slack")
    assert [(k, norm.text[a:b]) for k, a, b in norm.fields] == fields
    for _, a, b in norm.fields:
        start, end = norm.original(a, b)
        assert "&" not in text[start:end]
        assert "=" not in text[start:end]


def test_a_percent_escape_maps_back_to_all_its_bytes():
    text = "see https://x.io/u/j%C3%BCrgen%2Edoe%40gmail%2Ecom/x ok"
    norm = normalize(text, "console")
    assert "jürgen.doe@gmail.com" in norm.text
    assert original_of(text, norm, "jürgen.doe@gmail.com") == "j%C3%BCrgen%2Edoe%40gmail%2Ecom"


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("hi" + "".join(chr(0xE0000 + ord(c)) for c in "call me at 415 555 0199"), True),
        ("ok" + "\u200b\u180e" * 10, True),
        ("a\u2800" * 20, True),
        ("family: \U0001f468\u200d\U0001f469\u200d\U0001f467 and \u2764\ufe0f", False),
        ("Go \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f!", False),
        ("plain text with a zero\u200bwidth space", False),
    ],
)
def test_a_message_mostly_of_hidden_characters_is_told_apart(text, hidden):
    assert mostly_hidden(text) is hidden
