"""A value read under its heading: a table cell under its column header, a property by its name.

``detect(..., context=header)`` reads the cell as the header's value, as the structure rules
read ``Name: Jordan`` in chat, and gives the header's words to Presidio's context enhancer;
no finding reaches into the header. Real Presidio, real spaCy model.
"""

from __future__ import annotations

import functools

import pytest
from presidio_analyzer import AnalyzerEngine

from guardrails.detect.detection import detect, detect_many
from guardrails.redact import Numbering, Redactor


@pytest.fixture(scope="module")
def redactor(presidio_analyzer: AnalyzerEngine) -> Redactor:
    return Redactor(
        functools.partial(detect, presidio_analyzer),
        many=functools.partial(detect_many, presidio_analyzer),
    )


@pytest.mark.parametrize(
    ("value", "header", "expected"),
    [
        ("Jordan", "Name", "<PERSON_1>"),
        ("Jordan", "Country", "<LOCATION_1>"),
        ("Oliveira", "Last name", "<PERSON_1>"),
        ("Maria", "first_name", "<PERSON_1>"),
        ("jdoe", "Full name", "<PERSON_1>"),
        ("Lisbon", "City", "<LOCATION_1>"),
        ("12 Rua Augusta, Lisbon", "Address", "<LOCATION_1>"),
        ("020 7946 0958", "Phone", "<PHONE_NUMBER_1>"),
        ("maria@example.org", "E-mail", "<EMAIL_ADDRESS_1>"),
    ],
)
def test_a_cell_is_read_as_its_headers_value(
    redactor: Redactor, value: str, header: str, expected: str
) -> None:
    redacted = redactor.redact(value, "console", context=header)
    assert redacted.text == expected
    (entity,) = redacted.entities
    assert (entity.start, entity.end) == (0, len(value)), "offsets are the cell's own"


@pytest.mark.parametrize(
    ("value", "header"), [("1200", "Revenue"), ("Q1", "Quarter"), ("Paid", "Status")]
)
def test_a_plain_cell_under_its_header_stays(redactor: Redactor, value: str, header: str) -> None:
    assert redactor.redact(value, "console", context=header).text == value


def test_a_header_row_read_cell_by_cell_holds_no_person(redactor: Redactor) -> None:
    numbering = Numbering()
    row = ["E-mail", "Phone", "Address", "First name", "Last name", "City", "Country"]
    assert [redactor.redact(cell, "console", numbering).text for cell in row] == row


def test_no_finding_reaches_into_the_header(redactor: Redactor) -> None:
    """A header that is itself a name ("Maria Oliveira" as a column) is never redacted."""
    redacted = redactor.redact("+1 415 555 0137", "console", context="Maria Oliveira")
    assert redacted.text == "<PHONE_NUMBER_1>"
    assert all(0 <= e.start < e.end <= len("+1 415 555 0137") for e in redacted.entities)


def test_without_a_header_the_text_is_read_as_before(redactor: Redactor) -> None:
    text = "Call Maria Oliveira on +1 415 555 0137"
    assert redactor.redact(text, "console", context=None) == redactor.redact(text, "console")
    assert redactor.redact(text, "console", context="  ") == redactor.redact(text, "console")


def test_cells_read_together_are_read_as_one_by_one(redactor: Redactor) -> None:
    """One NER pass over a file's cells gives what a pass for each gives, numbers included."""
    items = [
        ("Jordan", "Name"),
        ("Jordan", "Country"),
        ("E-mail", None),
        ("maria@example.org", "E-mail"),
        ("Call Maria Oliveira on +1 415 555 0137", None),
        ("Jordan", "Name"),
        ("1200", "Revenue"),
    ]
    together = redactor.redact_many(items, "console", Numbering())
    numbering = Numbering()
    alone = [redactor.redact(t, "console", numbering, context=c) for t, c in items]
    assert together == alone
    assert [r.text for r in together][:2] == ["<PERSON_1>", "<LOCATION_1>"]
