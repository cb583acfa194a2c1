"""The placeholder grammar and the streaming restorer (pure, no services)."""

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.text import clean_user_text
from guardrails.presidio import _used
from guardrails.restore.placeholders import (
    KNOWN_TYPES,
    NEUTRAL,
    PlaceholderRestorer,
    canonical,
    find_placeholders,
    format_placeholder,
    placeholder_type,
)
from guardrails.text.spans import Detection, resolve_overlaps

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
    assert restoration.mangled_placeholders == 0  # every placeholder written as given


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


def test_finish_flushes_an_unfinished_placeholder_reading_its_bare_form():
    restorer = PlaceholderRestorer(VALUES)
    assert restorer.feed("see <PERSON_1") == "see "
    restoration = restorer.finish()  # an answer cut off mid-placeholder still shows no raw token
    assert restoration.text == "see <Maria Gonzalez"
    assert restoration.unknown_placeholders == 0
    restorer = PlaceholderRestorer(VALUES)
    assert restorer.feed("see <PERS") == "see "
    assert restorer.finish().text == "see <PERS"


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
        Detection("PHONE_NUMBER", 30, 43, 0.4),
        Detection("IP_ADDRESS", 30, 43, 0.6),
        Detection("PERSON", 0, 4, 0.85),
        Detection("PERSON", 0, 10, 0.85),
        Detection("LOCATION", 12, 20, 0.85),
    ]
    kept = resolve_overlaps(spans)
    assert [(s.start, s.end, s.type) for s in kept] == [
        (0, 10, "PERSON"),
        (12, 20, "LOCATION"),
        (30, 43, "IP_ADDRESS"),
    ]


def test_invisible_characters_are_removed_but_lines_and_tabs_stay():
    assert clean_user_text("Jo\u200bhn\u2060 Sm\ufeffith\x00\x1b\x85\n\tok") == "John Smith\n\tok"


# --- the tolerant grammar: every form a model was seen to write -------------------------------

MORE = {
    **VALUES,
    "<PERSON_3>": "James",
    "<LOCATION_1>": "McDonald's",
    "<USER_1>": "<@U024BE7LH>",
}


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("<PERSON_1>", "Maria Gonzalez"),
        ("PERSON_1", "Maria Gonzalez"),
        ("<person_1>", "Maria Gonzalez"),
        ("< PERSON_1 >", "Maria Gonzalez"),
        ("<<PERSON_1>>", "Maria Gonzalez"),
        ("[PERSON_1]", "Maria Gonzalez"),
        ("`<PERSON_1>`", "`Maria Gonzalez`"),  # the value stays inside the code span
        ("**<PERSON_1>**", "**Maria Gonzalez**"),
        ("EMAIL\\_ADDRESS\\_1", "john.smith@acme.com"),  # markdown-escaped underscores
        ("[PERSON_1](mailto:<EMAIL_ADDRESS_1>)", "[Maria Gonzalez](mailto:john.smith@acme.com)"),
        ("[<PERSON_1>](mailto:EMAIL_ADDRESS_1)", "[Maria Gonzalez](mailto:john.smith@acme.com)"),
        ("<PERSON_3>'s", "James's"),  # Chicago/Oxford: 's after a final s
        ("PERSON_3\u2019s", "James\u2019s"),
        ("<LOCATION_1>'s", "McDonald's"),  # no second 's
        ("<USER_1>", "<@U024BE7LH>"),  # mentions come back as real mentions
    ],
)
def test_every_tolerated_form_restores(written, shown):
    restoration = PlaceholderRestorer(MORE).restore(f"ask {written} today")
    assert restoration.text == f"ask {shown} today"
    assert restoration.unknown_placeholders == 0


@pytest.mark.parametrize(
    ("written", "mangled"),
    [
        ("<PERSON_1>", 0),
        ("**<PERSON_1>**", 0),  # markdown around it: the placeholder itself is intact
        ("<PERSON_3>'s", 0),
        ("PERSON_1", 1),
        ("<person_1>", 1),
        ("< PERSON_1 >", 1),
        ("<Person_01>", 1),
        ("<<PERSON_1>>", 1),
        ("[PERSON_1]", 1),
        ("EMAIL\\_ADDRESS\\_1", 1),
        ("[PERSON_1](mailto:<EMAIL_ADDRESS_1>)", 1),
        ("[<PERSON_1>](mailto:EMAIL_ADDRESS_1)", 1),
        ("PERSON_1 and [PERSON_9]", 2),  # made-up ones count too
    ],
)
def test_placeholders_written_differently_are_counted_as_mangled(written, mangled):
    assert PlaceholderRestorer(MORE).restore(f"ask {written} today").mangled_placeholders == mangled


@pytest.mark.parametrize(
    "text",
    [
        "person_1 = load()",  # lower-case bare: code, not a placeholder
        "COVID_19 and SHA_256",  # bare forms of types we never issue
        "MY_PERSON_1 and PERSON_1X",  # part of a longer identifier
        "[redacted] stays",
        "a << b >> c and [x] and 2 < 3",
    ],
)
def test_ordinary_text_that_looks_a_little_like_a_placeholder_is_kept(text):
    restoration = PlaceholderRestorer(MORE).restore(text)
    assert restoration.text == text
    assert restoration.unknown_placeholders == 0


@pytest.mark.parametrize("written", ["PERSON_9", "[PERSON_9]", "<<EMAIL_ADDRESS_4>>"])
def test_unknown_placeholders_in_any_form_are_neutral_and_counted(written):
    restoration = PlaceholderRestorer(MORE).restore(f"hi {written}, bye")
    assert restoration.text == f"hi {NEUTRAL}, bye"
    assert restoration.unknown_placeholders == 1


MANGLED = (
    "Hi PERSON_1! [PERSON_2] wrote <<EMAIL_ADDRESS_1>> and `< phone_number_12 >`; "
    "<PERSON_3>'s and <LOCATION_1>'s and [PERSON_1](mailto:EMAIL\\_ADDRESS\\_1). < PERSON_2 >, "
    "PERSON_77 and <PERSON_9> are unknown; PERSON is a word, I saw <PERSON and COVID_19 <"
)
MANGLED_EXPECTED = (
    "Hi Maria Gonzalez! John Smith wrote john.smith@acme.com and `+1 415 555 0123`; "
    "James's and McDonald's and [Maria Gonzalez](mailto:john.smith@acme.com). John Smith, "
    f"{NEUTRAL} and {NEUTRAL} are unknown; PERSON is a word, I saw <PERSON and COVID_19 <"
)


def test_mangled_answer_split_at_every_boundary_and_one_char_at_a_time():
    assert PlaceholderRestorer(MORE).restore(MANGLED).text == MANGLED_EXPECTED
    splits = [[MANGLED[:c], MANGLED[c:]] for c in range(len(MANGLED) + 1)] + [list(MANGLED)]
    for chunks in splits:
        restorer = PlaceholderRestorer(MORE)
        shown = [restorer.feed(c) for c in chunks]
        result = restorer.finish()
        assert result.text == MANGLED_EXPECTED, chunks[0]
        assert result.unknown_placeholders == 2
        # PERSON_1, [PERSON_2], <<EMAIL..>>, < phone.. >, the link's two, < PERSON_2 >, PERSON_77
        assert result.mangled_placeholders == 8
        so_far = ""
        for piece in shown:
            so_far += piece
            assert result.text.startswith(so_far)
            assert not any(raw in piece for raw in ("PERSON_", "EMAIL_", "<<", "[PERSON"))


async def test_a_fetching_restorer_asks_for_what_the_answer_uses_and_restores_the_same():
    """Split anywhere, a restorer that starts with no values and fetches them delta by
    delta shows what one that knew them all shows, and asks for no other placeholder."""
    vault = {**MORE, "<PERSON_40>": "Nobody Asked", "<EMAIL_ADDRESS_7>": "other@acme.com"}
    used = {canonical(m) for m in find_placeholders(MANGLED)}
    splits = [[MANGLED[:c], MANGLED[c:]] for c in range(0, len(MANGLED) + 1, 7)]
    for chunks in [*splits, list(MANGLED)]:
        values: dict[str, str] = {}
        asked: set[str] = set()

        async def fetch(placeholders, values=values, asked=asked):
            asked.update(placeholders)
            values.update({p: vault[p] for p in placeholders if p in vault})

        restorer = PlaceholderRestorer(values, fetch=fetch)
        shown = ""
        for chunk in chunks:
            await restorer.fetch(chunk)
            shown += restorer.feed(chunk)
        await restorer.fetch("", end=True)
        result = restorer.finish()
        assert result.text == MANGLED_EXPECTED, chunks[0]
        assert MANGLED_EXPECTED.startswith(shown)
        assert asked <= used
        assert set(values) == used & set(vault)


def test_mangled_forms_split_at_every_pair_of_boundaries():
    answer = "[PERSON_2]'s <<PERSON_3>>'s PERSON_1"
    expected = "John Smith's James's Maria Gonzalez"
    for i, j in itertools.combinations(range(len(answer) + 1), 2):
        restorer = PlaceholderRestorer(MORE)
        shown = restorer.feed(answer[:i]) + restorer.feed(answer[i:j]) + restorer.feed(answer[j:])
        assert restorer.finish().text == expected, (i, j)
        assert expected.startswith(shown)


@pytest.mark.parametrize(
    ("delta", "visible"),
    [
        ("Dear PERS", "Dear "),  # could become PERSON_1
        ("Dear PERSON_1", "Dear "),  # could become PERSON_12 or PERSON_1's
        ("Dear [PERSON_1]", "Dear "),  # could become a link label: [PERSON_1](url)
        ("Dear <<PERSON_1>", "Dear "),  # could become <<PERSON_1>>
        ("Dear < PERSON_1 ", "Dear "),  # could become < PERSON_1 >
        ("Dear Paul", "Dear Paul"),  # no known type starts with PAUL
        ("see x_1 and Zed", "see x_1 and Zed"),
        ("price < 3", "price < 3"),
    ],
)
def test_only_a_possible_placeholder_start_is_held_back(delta, visible):
    assert PlaceholderRestorer(MORE).feed(delta) == visible


FRAGMENTS = [
    "<PERSON_1>", "PERSON_2", "<person_3>", "< PERSON_1 >", "<<EMAIL_ADDRESS_1>>", "[PERSON_2]",
    "`<PERSON_1>`", "'s", "\u2019s", "PERSON_9", "EMAIL\\_ADDRESS\\_1", "](x)", "[", "<", "<<",
    ">", " ", " < ", "a", "Zed", "PER", "x_1", "_", "1", "\n", "COVID_19", "<PERSON", ">>",
]  # fmt: skip


def test_random_mixtures_split_anywhere_restore_like_the_whole():
    rng = random.Random(11)
    for _ in range(400):
        answer = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 10)))
        whole = PlaceholderRestorer(MORE).restore(answer)
        for cut in range(len(answer) + 1):
            restorer = PlaceholderRestorer(MORE)
            shown = restorer.feed(answer[:cut])
            result = restorer.finish() if cut == len(answer) else None
            if result is None:
                shown += restorer.feed(answer[cut:])
                result = restorer.finish()
            assert result == whole, (answer, cut)
            assert result.text.startswith(shown)


_PIECES = [
    "<PERSON_1>", "[PERSON_2]", "person_3", "<EMAIL_ADDRESS_12>", "EMAIL\\_ADDRESS\\_4",
    "<<LOCATION_5>>", " see ", "_7", "x_1", "<PERSON_01>", "'s", "<", ">", "PERSON_1", "\n",
    "< IBAN_CODE_3 >", "`<USER_9>`", "COVID_19",
]  # fmt: skip


@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=10).map("".join), max_size=6))
def test_retention_keeps_exactly_what_the_grammar_reads(texts: list[str]) -> None:
    """The plain pass that spares the grammar over canonical text changes nothing it finds."""
    read = {canonical(m) for text in texts for m in find_placeholders(text, KNOWN_TYPES)}
    assert _used(texts, KNOWN_TYPES) == read
