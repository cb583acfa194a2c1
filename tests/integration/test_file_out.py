"""Files written back as their own kind (``bot.files.out``), through the real guardrail.

Each file has personal values planted where a rewrite could leave them (tests/fixtures/planted)
and goes through the two phases as ``veilbot redact --out`` runs them: units listed in a
confined reader, each redacted under its heading with one numbering for the file (real
Presidio, real spaCy model), the file written in a second reader. The output is opened with
the library a user would use, and its raw bytes (every part of a zip, unpacked) are scanned:
no planted value is left anywhere, and every non-personal run, cell and field is unchanged.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import zipfile
from collections.abc import Sequence

import docx
import openpyxl
import pptx
import pypdfium2 as pdfium
import pytesseract
import pytest
from presidio_analyzer import AnalyzerEngine
from pypdf import PdfReader

from bot.core.types import EntityRef, Redaction
from bot.files.confine import Deadline, Readers
from bot.files.images import RedactedImage, redact_image
from bot.files.limits import FileLimits
from bot.files.out.redacted import RedactedFile, list_units, redact_units
from guardrails.detect.detection import detect, detect_many
from guardrails.redact import Numbering, Redactor
from tests.fixtures.documents import CARD, mixed_pdf, pdf_of, table_pdf
from tests.fixtures.images import tesseract_or_skip
from tests.fixtures.planted import (
    EMAIL,
    HEADERS,
    IBAN,
    KEPT,
    NAME,
    OTHER,
    OTHER_EMAIL,
    PHONE,
    PLANTED,
    planted_csv,
    planted_docx,
    planted_pptx,
    planted_xlsx,
)

LIMITS = FileLimits()


async def redacted(
    analyzer: AnalyzerEngine, data: bytes, suffix: str, *, tesseract: str = "tesseract"
) -> RedactedFile:
    redactor = Redactor(
        functools.partial(detect, analyzer), many=functools.partial(detect_many, analyzer)
    )
    numbering = Numbering()

    async def redact_texts(units: Sequence[tuple[str, str | None]]) -> list[Redaction]:
        return [
            Redaction(
                found.text,
                tuple(EntityRef(e.type, e.placeholder) for e in found.entities),
                tuple((e.start, e.end) for e in found.entities),
            )
            for found in redactor.redact_many(units, "console", numbering)
        ]

    async def redact_ocr(text: str) -> Redaction:
        found = redactor.redact(text, "console", numbering, ocr=True)
        return Redaction(
            found.text,
            tuple(EntityRef(e.type, e.placeholder) for e in found.entities),
            tuple((e.start, e.end) for e in found.entities),
        )

    readers = Readers(LIMITS)
    deadline = Deadline(1, LIMITS.max_seconds)

    async def read_scan(picture: bytes) -> RedactedImage:
        return await redact_image(
            picture, deadline, redact_ocr, readers=readers, tesseract=tesseract
        )

    listing = await list_units(data, 1, suffix, readers, deadline)
    return await redact_units(data, 1, listing, redact_texts, readers, deadline, read_scan)


def assert_nothing_left(data: bytes, values: tuple[str, ...] = PLANTED) -> None:
    """No value in the bytes, nor in any part of the zip they are, unpacked."""
    blobs = {"(file)": data}
    if data.startswith(b"PK"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            blobs |= {name: archive.read(name) for name in archive.namelist()}
    for name, blob in blobs.items():
        for value in values:
            for form in (value, value.replace(" ", "")):
                assert form.encode() not in blob, f"{value!r} left in {name}"


async def test_docx_keeps_its_runs_and_cells_with_placeholders_in_place(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    done = await redacted(presidio_analyzer, planted_docx(), ".docx")
    assert (done.kind, done.form) == ("docx", "docx")
    assert_nothing_left(done.data)
    document = docx.Document(io.BytesIO(done.data))
    paragraphs = [p.text for p in document.paragraphs]
    assert KEPT[0] in paragraphs
    assert KEPT[1] in paragraphs
    between = next(p for p in document.paragraphs if p.text.startswith("Contract between"))
    runs = [(r.text, r.bold, r.italic) for r in between.runs]
    assert runs == [
        ("Contract between ", None, None),
        ("<PERSON_1>", True, None),  # the placeholder in the value's first run, its format kept
        ("", None, True),
        (" and Acme Ltd.", None, None),
    ]
    assert any(p.startswith("Write to <EMAIL_ADDRESS_") for p in paragraphs)
    table = [[cell.text for cell in row.cells] for row in document.tables[0].rows]
    assert table[0] == list(HEADERS)
    assert table[1][5] == KEPT[2]
    assert [c.split("_")[0] for c in table[1][:5]] == [
        "<PERSON",
        "<EMAIL",
        "<PHONE",
        "<IBAN",
        "<LOCATION",
    ]
    section = document.sections[0]
    assert section.header.paragraphs[0].text == "Prepared for <PERSON_1>"
    assert section.footer.paragraphs[0].text.startswith("Questions: <EMAIL_ADDRESS_")
    props = document.core_properties
    assert props.author == "<PERSON_1>", "the same person, the same placeholder, file-wide"
    assert props.last_modified_by.startswith("<PERSON_")
    assert props.title == "Contract for <PERSON_1>"
    assert {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "IBAN_CODE"} <= set(done.counts)


async def test_xlsx_keeps_every_other_cell_and_its_type(presidio_analyzer: AnalyzerEngine) -> None:
    done = await redacted(presidio_analyzer, planted_xlsx(), ".xlsx")
    assert_nothing_left(done.data, (*PLANTED, "1985-03-14"))
    book = openpyxl.load_workbook(io.BytesIO(done.data))
    assert book.sheetnames == ["Summary", "Contacts"]
    summary = [[c.value for c in row] for row in book["Summary"].iter_rows()]
    assert summary == [["Quarter", "Revenue"], ["Q1", 1200], ["Q2", 1350.5]], "numbers stay numbers"
    note = book["Summary"]["B2"].comment
    assert note.text.startswith("Confirmed by <PERSON_1> on <PHONE_NUMBER_")
    assert note.author.startswith("<PERSON_")
    contacts = [[c.value for c in row] for row in book["Contacts"].iter_rows()]
    assert contacts[0] == [*HEADERS, "Date of birth"]
    assert contacts[1][6] == "<DATE_OF_BIRTH_1>", "a date cell under its header"
    assert contacts[1][0] == "<PERSON_1>"
    assert contacts[1][5] == "Active"
    assert contacts[2][5] == KEPT[2]
    assert all(str(v).startswith("<") for v in contacts[1][:5])
    assert book.properties.creator == "<PERSON_1>"
    assert book.properties.lastModifiedBy.startswith("<PERSON_")


async def test_pptx_keeps_its_runs_tables_notes_and_comments_redacted(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    done = await redacted(presidio_analyzer, planted_pptx(), ".pptx")
    assert_nothing_left(done.data, (*PLANTED, CARD))
    deck = pptx.Presentation(io.BytesIO(done.data))
    slide = deck.slides[2]  # after the two slides the commented deck had
    assert slide.shapes.title.text == KEPT[3]
    body = slide.placeholders[1].text_frame.paragraphs
    assert body[0].text == KEPT[0]
    assert [(r.text, r.font.bold) for r in body[1].runs] == [
        ("Owner: ", False),
        ("<PERSON_1>", True),
        ("", False),
    ]
    assert body[2].text.startswith("Write to <EMAIL_ADDRESS_")
    notes = slide.notes_slide.notes_text_frame.text
    assert notes.startswith("Call <PHONE_NUMBER_")
    assert notes.endswith("before the meeting.")
    cells = [c.text for c in deck.slides[3].shapes[1].table.iter_cells()]
    assert cells[:4] == ["Name", "E-mail", "IBAN", "Status"]
    assert cells[7] == KEPT[2]
    assert all(c.startswith("<") for c in cells[4:7])
    assert deck.core_properties.author == "<PERSON_1>"


async def test_csv_keeps_its_columns_quoting_and_line_ends(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    source = planted_csv()
    done = await redacted(presidio_analyzer, source.encode("utf-8"), ".csv")
    assert done.form == "csv"
    assert_nothing_left(done.data)
    text = done.data.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert [len(row) for row in rows] == [len(HEADERS)] * 4
    assert rows[0] == list(HEADERS)
    assert rows[1][0] == "<PERSON_1>"
    assert rows[1][5] == "Active"
    assert rows[2][4] == "line one\nline two"
    assert rows[2][5] == KEPT[2]
    assert rows[3][0].startswith("<PERSON_"), "a lone 'Jordan' under 'Name' is a person"
    assert rows[3][1:] == ["", "", "", "", KEPT[2]]
    lines = text.split("\r\n")
    assert lines[1].startswith('"<PERSON_1>",'), "a quoted field stays quoted"
    assert text.count("\r\n") == source.count("\r\n")


async def test_a_file_with_nothing_personal_comes_back_as_it_was(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    data = b"Quarter,Revenue\r\nQ1,1200\r\n"
    done = await redacted(presidio_analyzer, data, ".csv")
    assert done.data == data
    assert done.counts == {}


@pytest.mark.parametrize("suffix", [".txt", ".csvx", ""])
async def test_other_kinds_are_listed_without_units(
    presidio_analyzer: AnalyzerEngine, suffix: str
) -> None:
    readers = Readers(LIMITS)
    listing = await list_units(
        f"Call {OTHER}".encode(), 1, suffix, readers, Deadline(1, LIMITS.max_seconds)
    )
    assert (listing.kind, listing.form, listing.units) == ("text", None, ())


async def test_pdf_is_drawn_again_with_the_values_painted_and_the_kept_text_searchable(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    source = pdf_of(
        [
            [KEPT[0], f"Contract between {NAME} and Acme Ltd.", f"Write to {EMAIL}"],
            ["Name    E-mail    Phone", f"{OTHER}    {OTHER_EMAIL}    {PHONE}", KEPT[1]],
            [f"Refunds go to IBAN {IBAN}."],
        ]
    )
    done = await redacted(presidio_analyzer, source, ".pdf")
    assert (done.kind, done.form, done.pages) == ("pdf", "pdf", 3)
    assert_nothing_left(done.data)
    reader = PdfReader(io.BytesIO(done.data))
    assert not reader.metadata or not any(NAME in str(v) for v in reader.metadata.values())
    pages = [page.extract_text() for page in reader.pages]
    for value in PLANTED:
        assert not any(value in page for page in pages), f"{value!r} is still in the text"
    assert KEPT[0] in pages[0]
    assert "Contract between <PERSON_1> and Acme Ltd." in pages[0]
    assert KEPT[1] in pages[1]
    assert "<IBAN_CODE_1>" in pages[2]
    assert [p.mediabox.width for p in reader.pages] == [
        p.mediabox.width for p in PdfReader(io.BytesIO(source)).pages
    ]
    seen = " ".join(read_pixels(done.data))  # what a person sees: the painted pictures
    assert "Acme Ltd" in seen
    for value in ("Oliveira", "Whitfield", "example", "415", "DE89"):
        assert value not in seen, f"{value!r} can still be read on the page"


async def test_a_pdf_tables_cells_are_read_apart_under_their_column_headers(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    """An invoice's table has no separator in its text but the gap between cells: no value
    runs into the next cell, a lone city is found under "City", amounts and items stay."""
    rows = [
        ("Item", "City", "Contact", "Qty", "Amount"),
        ("Oak desk", "Springfield", NAME, "2", "310.00"),
        ("Lamp", "Lyon", EMAIL, "1", "45.50"),
        ("Chair", "Portland", OTHER, "4", "690.00"),
        ("Shelf Unit", "Denver", PHONE, "1", "120.00"),
    ]
    source = table_pdf(["Invoice 2024-118"], rows, ["Total due 1,165.50 EUR. Thank you."])
    done = await redacted(presidio_analyzer, source, ".pdf")
    text = PdfReader(io.BytesIO(done.data)).pages[0].extract_text()
    lines = text.splitlines()
    assert lines[0] == "Invoice 2024-118"
    assert lines[1] == "Item City Contact Qty Amount"
    assert re.fullmatch(r"Oak desk <LOCATION_\d> <PERSON_\d> 2 310\.00", lines[2])
    assert re.fullmatch(r"Lamp <LOCATION_\d> <EMAIL_ADDRESS_1> 1 45\.50", lines[3])
    assert re.fullmatch(r"Chair <LOCATION_\d> <PERSON_\d> 4 690\.00", lines[4])
    assert re.fullmatch(r"Shelf Unit <LOCATION_\d> <PHONE_NUMBER_1> 1 120\.00", lines[5])
    assert lines[6] == "Total due 1,165.50 EUR. Thank you."
    assert done.counts["LOCATION"] == 4
    assert_nothing_left(done.data, (NAME, EMAIL, OTHER, PHONE, "Lyon", "Springfield"))


def read_pixels(data: bytes) -> list[str]:
    """Each page of a PDF as Tesseract reads it, drawn at 200 dpi."""
    document = pdfium.PdfDocument(data)
    return [pytesseract.image_to_string(page.render(scale=200 / 72).to_pil()) for page in document]


async def test_a_scanned_pdf_comes_back_as_a_pdf_with_its_values_painted(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    """A typed page, a scanned page, a typed page: the scan is read by OCR and painted where
    it stands; the values are in no page's pixels nor text, the rest is still readable."""
    tesseract = tesseract_or_skip()
    strips = [[f"Signed by {NAME}"], [f"Email: {EMAIL}"], ["Received in good order"]]
    source = mixed_pdf([f"Letter from {NAME}"], strips, [KEPT[0]])
    done = await redacted(presidio_analyzer, source, ".pdf", tesseract=tesseract)
    assert (done.kind, done.form, done.pages, done.scans, done.withheld) == ("pdf", "pdf", 3, 1, 0)
    assert done.counts["PERSON"] >= 2
    assert done.counts["EMAIL_ADDRESS"] == 1
    assert_nothing_left(done.data)
    reader = PdfReader(io.BytesIO(done.data))
    assert len(reader.pages) == 3
    texts = [page.extract_text() for page in reader.pages]
    assert "Letter from <PERSON_1>" in texts[0]
    assert KEPT[0] in texts[2]
    seen = read_pixels(done.data)
    assert "Received in good order" in seen[1], "the scan's other text is still there"
    assert "Signed by" in seen[1]
    for value in (*NAME.split(), EMAIL, EMAIL.split("@")[0]):
        assert not any(value in page for page in seen), f"{value!r} can still be read"
