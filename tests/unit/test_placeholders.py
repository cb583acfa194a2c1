"""The placeholder grammar and the streaming restorer (pure, no services)."""

import itertools

import pytest

from guardrails.placeholders import (
    NEUTRAL,
    PlaceholderRestorer,
    canonical,
    find_placeholders,
    format_placeholder,
    placeholder_type,
)
from guardrails.presidio import Span, clean_text, resolve_overlaps

VALUES = {
    "<PERSON_1>": "Maria Gonzalez",
    "<PERSON_2>": "John Smith",
    "<EMAIL_ADDRESS_1>": "john.smith@acme.com",
    "<PHONE_NUMBER_12>": "+1 415 555 0123",
}
ANSWER = (
    "Sure <PERSON_1>! I'll write to <PERSON_2> at <EMAIL_ADDRESS_1> (or call "
    "<PHONE_NUMBER_12>). x<y and a<b> stay; <PERSON_9> is unknown. 2 < 3 <END"
)
EXPECTED = (
    "Sure Maria Gonzalez! I'll write to John Smith at john.smith@acme.com (or call "
    f"+1 415 555 0123). x<y and a<b> stay; {NEUTRAL} is unknown. 2 < 3 <END"
)


def restore_in_chunks(chunks: list[str]) -> tuple[list[str], str, int]:
    restorer = PlaceholderRestorer(VALUES)
    shown = [restorer.feed(c) for c in chunks]
    result = restorer.finish()
    return shown, result.text, result.unknown_placeholders


def assert_never_partial(shown: list[str], final: str) -> None:
    so_far = ""
    for piece in shown:
        assert "<PERSON" not in piece
        assert "<EMAIL" not in piece
        so_far += piece
        assert final.startswith(so_far)  # what is on screen is never taken back


def test_whole_answer_is_restored_and_unknown_placeholders_are_neutral():
    restoration = PlaceholderRestorer(VALUES).restore(ANSWER)
    assert restoration.text == EXPECTED
    assert restoration.unknown_placeholders == 1


def test_streaming_split_at_every_boundary_matches_the_whole():
    for cut in range(len(ANSWER) + 1):
        shown, text, unknown = restore_in_chunks([ANSWER[:cut], ANSWER[cut:]])
        assert text == EXPECTED, cut
        assert unknown == 1
        assert_never_partial(shown, text)


def test_streaming_split_at_every_pair_of_boundaries_matches_the_whole():
    answer = "to <PERSON_2>, cc <EMAIL_ADDRESS_1>."
    expected = "to John Smith, cc john.smith@acme.com."
    for i, j in itertools.combinations(range(len(answer) + 1), 2):
        shown, text, _ = restore_in_chunks([answer[:i], answer[i:j], answer[j:]])
        assert text == expected, (i, j)
        assert_never_partial(shown, text)


def test_streaming_one_character_at_a_time():
    shown, text, unknown = restore_in_chunks(list(ANSWER))
    assert text == EXPECTED
    assert unknown == 1
    assert_never_partial(shown, text)


def test_held_back_tail_is_only_a_possible_placeholder_start():
    restorer = PlaceholderRestorer(VALUES)
    assert restorer.feed("Hello <PER") == "Hello "
    assert restorer.feed("SON_1") == ""
    assert restorer.feed("> and 3 < 4 ok") == "Maria Gonzalez and 3 < 4 ok"
    assert restorer.feed(" <") == " "
    assert restorer.finish().text == "Hello Maria Gonzalez and 3 < 4 ok <"


def test_finish_flushes_an_unfinished_placeholder_as_text():
    restorer = PlaceholderRestorer(VALUES)
    assert restorer.feed("see <PERSON_1") == "see "
    restoration = restorer.finish()
    assert restoration.text == "see <PERSON_1"
    assert restoration.unknown_placeholders == 0


@pytest.mark.parametrize(
    "written", ["<PERSON_1>", "<person_1>", "< PERSON_1 >", "<Person_01>", "<  PERSON_1>"]
)
def test_tolerated_forms_restore(written):
    assert PlaceholderRestorer(VALUES).restore(f"hi {written}!").text == "hi Maria Gonzalez!"


@pytest.mark.parametrize(
    "text",
    [
        "<@U024BE7LH>",
        "<#C024BE7LR|general>",
        "<!here>",
        "<t:17:R>",
        "<PERSON>",
        "<_1>",
        "<PERSON_>",
        "<https://x.io/a_1>",
    ],
)
def test_platform_markup_is_not_a_placeholder(text):
    assert list(find_placeholders(text)) == []
    assert PlaceholderRestorer(VALUES).restore(text).text == text


def test_a_thread_without_values_shows_every_placeholder_neutrally():
    restoration = PlaceholderRestorer({}).restore("<PERSON_1> met <PERSON_1> and <IBAN_CODE_3>")
    assert restoration.text == f"{NEUTRAL} met {NEUTRAL} and {NEUTRAL}"
    assert restoration.unknown_placeholders == 3


def test_grammar_helpers_agree():
    placeholder = format_placeholder("EMAIL_ADDRESS", 2)
    assert placeholder == "<EMAIL_ADDRESS_2>"
    assert placeholder_type(placeholder) == "EMAIL_ADDRESS"
    (match,) = find_placeholders("x < email_address_2 > y")
    assert canonical(match) == placeholder
    with pytest.raises(ValueError, match="malformed"):
        format_placeholder("person", 1)
    with pytest.raises(ValueError, match="malformed"):
        format_placeholder("PERSON", 0)


def test_overlaps_keep_the_higher_score_then_the_longer_span_in_reading_order():
    spans = [
        Span(30, 43, "PHONE_NUMBER", 0.4),
        Span(30, 43, "IP_ADDRESS", 0.6),
        Span(0, 4, "PERSON", 0.85),
        Span(0, 10, "PERSON", 0.85),
        Span(12, 20, "LOCATION", 0.85),
    ]
    kept = resolve_overlaps(spans)
    assert [(s.start, s.end, s.type) for s in kept] == [
        (0, 10, "PERSON"),
        (12, 20, "LOCATION"),
        (30, 43, "IP_ADDRESS"),
    ]


def test_invisible_characters_are_removed_but_lines_and_tabs_stay():
    assert clean_text("Jo\u200bhn\u2060 Sm\ufeffith\x00\x1b\x85\n\tok") == "John Smith\n\tok"
