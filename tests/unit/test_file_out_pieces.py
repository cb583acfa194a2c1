"""Placeholders put into text held in pieces (runs) and into CSV fields, nothing else touched."""

from __future__ import annotations

from bot.files.out.csvtable import edited, fields
from bot.files.out.splice import spliced


def test_a_value_over_several_runs_goes_into_the_first_and_leaves_the_others() -> None:
    texts = ["Call ", "Maria", " Oliveira", " now"]
    assert spliced(texts, [False] * 4, [(5, 19, "<PERSON_1>")]) == [
        "Call ",
        "<PERSON_1>",
        "",
        " now",
    ]


def test_two_values_in_one_run_and_a_value_ending_mid_run() -> None:
    texts = ["a@b.io and c@d.io", " x", "yz"]
    edits = [(0, 6, "<E_1>"), (11, 17, "<E_2>"), (18, 19, "<P_1>")]
    assert spliced(texts, [False] * 3, edits) == ["<E_1> and <E_2>", " <P_1>", "yz"]


def test_a_fixed_mark_stays_and_a_value_starting_on_it_moves_to_the_next_piece() -> None:
    texts = ["Name:", "\t", "Maria"]
    assert spliced(texts, [False, True, False], [(5, 11, "<PERSON_1>")]) == [
        "Name:",
        "\t",
        "<PERSON_1>",
    ]


def test_csv_fields_keep_quotes_doubled_quotes_and_line_ends() -> None:
    text = 'name,email\r\n"Doe, ""Jane""",j@x.io\r\nBob,\r\n'
    table = list(fields(text, ","))
    assert [(f.row, f.column, f.value) for f in table] == [
        (0, 0, "name"),
        (0, 1, "email"),
        (1, 0, 'Doe, "Jane"'),
        (1, 1, "j@x.io"),
        (2, 0, "Bob"),
        (2, 1, ""),
    ]
    whole = edited(text, table, {2: [(0, 11, "<PERSON_1>")], 3: [(0, 6, "<E_1>")]})
    assert whole == 'name,email\r\n"<PERSON_1>",<E_1>\r\nBob,\r\n'
    inner = edited(text, table, {2: [(5, 11, "<PERSON_1>")]})
    assert inner == 'name,email\r\n"Doe, <PERSON_1>",j@x.io\r\nBob,\r\n'


def test_an_unclosed_quote_runs_to_the_end_as_one_field() -> None:
    table = list(fields('a,"b,c\nd', ","))
    assert [f.value for f in table] == ["a", "b,c\nd"]
