"""PDF, Word, Excel and PowerPoint files through the real guardrail (real spaCy, real Redis vault).

Each document is written by tests/fixtures/documents with the library an office suite stands for
(reportlab for PDF, python-docx, openpyxl, python-pptx), seeded with a name, an e-mail, a phone,
a card and an IBAN in the places a reader could miss (tables, headers, footers, notes, a second
sheet). What the model would receive holds none of them, only placeholders; every bad document
gets a clear answer naming it by position, never by its name or its content.
"""

from __future__ import annotations

import io
import re
import zipfile

import openpyxl
import pytest
from pypdf import PdfReader, PdfWriter

from bot.core.attachments import IncomingFile
from bot.core.errors import InputRejected
from bot.core.types import ThreadId
from bot.files.extract import extract
from bot.files.intake import redact_files
from bot.files.kinds import sniff
from bot.files.limits import FileLimits
from tests.fixtures.documents import (
    NAME,
    PLACEHOLDERS,
    SEEDED,
    annotated_docx,
    annotated_pptx,
    annotated_xlsx,
    pdf_of,
    saved,
    scanned_pdf,
    seeded_docx,
    seeded_pdf,
    seeded_pptx,
    seeded_xlsx,
    table_pdf,
    with_jbig2_page,
)

T1 = ThreadId("slack:T1:C1:1700000000.000950")
LIMITS = FileLimits()


@pytest.mark.parametrize(
    ("kind", "build", "name", "pages", "kept"),
    [
        ("pdf", seeded_pdf, "record.pdf", 2, "Customer record"),
        ("docx", seeded_docx, "letter.docx", 1, "update the payment details"),
        ("xlsx", seeded_xlsx, "accounts.xlsx", 2, "# Contacts"),
        ("pptx", seeded_pptx, "review.pptx", 2, "Account review"),
    ],
)
async def test_every_seeded_value_in_a_document_reaches_the_model_as_a_placeholder(
    guardrail, kind, build, name, pages, kept
):
    data = build()
    files = [IncomingFile(name=name, data=data)]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    sent = intake.as_text()
    for value in SEEDED:
        assert value not in sent, f"{value!r} left in the {kind}"
    for placeholder in PLACEHOLDERS:
        assert placeholder in sent, f"{placeholder} missing from the {kind}"
    assert kept in sent, "the document's other text reaches the model"
    (fact,) = intake.facts
    assert (fact.kind, fact.size, fact.pages) == (kind, len(data), pages)
    assert fact.entities["CREDIT_CARD"] == 1
    assert fact.entities["IBAN_CODE"] == 1


def test_a_spreadsheets_rows_are_tab_separated_under_their_sheet_names():
    extracted = extract("xlsx", seeded_xlsx(), 1, LIMITS)
    assert extracted.text.startswith("# Summary\nQuarter\tRevenue\nQ1\t1200\n# Contacts\n")


async def test_an_invoices_table_reaches_the_model_as_a_table_read_cell_by_cell(guardrail):
    """Cells placed by column have no separator in the PDF's text but the gap: the model reads
    each row as a table row, no value runs into the next cell, a lone city is found under its
    "City" header, and items and amounts are kept."""
    rows = [
        ("Item", "City", "Contact", "Qty", "Amount"),
        ("Oak desk", "Springfield", NAME, "2", "310.00"),
        ("Lamp", "Lyon", "maria.oliveira@example.org", "1", "45.50"),
        ("Chair", "Portland", "Jordan Whitfield", "4", "690.00"),
    ]
    data = table_pdf(["Invoice 2024-118"], rows, ["Total due 1,165.50 EUR. Thank you."])
    files = [IncomingFile(name="invoice.pdf", data=data)]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    lines = intake.blocks[0].splitlines()[1:-1]
    assert lines[0] == "Invoice 2024-118"
    assert lines[1] == "| Item | City | Contact | Qty | Amount |"
    assert re.fullmatch(r"\| Oak desk \| <LOCATION_\d> \| <PERSON_\d> \| 2 \| 310\.00 \|", lines[2])
    email = r"<EMAIL_ADDRESS_1>"
    assert re.fullmatch(rf"\| Lamp \| <LOCATION_\d> \| {email} \| 1 \| 45\.50 \|", lines[3])
    assert re.fullmatch(r"\| Chair \| <LOCATION_\d> \| <PERSON_\d> \| 4 \| 690\.00 \|", lines[4])
    assert lines[5] == "Total due 1,165.50 EUR. Thank you."
    assert intake.facts[0].entities["LOCATION"] == 3


async def test_the_same_person_in_the_file_name_and_the_body_gets_one_placeholder(guardrail):
    files = [IncomingFile(name=f"{NAME} record.pdf", data=seeded_pdf())]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    (block,) = intake.blocks
    header, body = block.split("\n", 1)
    (person,) = {p for p in ("<PERSON_1>", "<PERSON_2>") if p in header}
    assert person in body
    assert "<PERSON_2>" not in block
    assert "<PERSON_3>" not in block


async def test_a_pdf_named_txt_is_read_as_a_pdf(guardrail):
    files = [IncomingFile(name="notes.txt", data=seeded_pdf())]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert intake.facts[0].kind == "pdf"
    assert "Customer record" in intake.as_text()
    assert "%PDF" not in intake.as_text(), "its text, not its bytes"


async def test_a_document_past_the_page_limit_is_refused_before_its_text_is_read(guardrail):
    long = pdf_of([[f"page {i}"] for i in range(4)])
    files = [IncomingFile(name="a.txt", data=b"ok"), IncomingFile(name="long.pdf", data=long)]
    with pytest.raises(InputRejected, match="File 2 has 4 pages; I read documents up to 3") as e:
        await redact_files(guardrail, T1, files, platform="slack", limits=FileLimits(max_pages=3))
    assert e.value.reason == "too_many_pages"


@pytest.mark.parametrize("kind", ["xlsx", "pptx"])
def test_sheets_and_slides_count_as_pages(kind):
    build = {"xlsx": seeded_xlsx, "pptx": seeded_pptx}[kind]
    with pytest.raises(InputRejected, match="File 1 has 2 pages") as caught:
        extract(kind, build(), 1, FileLimits(max_pages=1))
    assert caught.value.reason == "too_many_pages"


def test_extraction_stops_at_the_text_limit_instead_of_reading_everything():
    data = pdf_of([[f"line {row} of page {page} " * 4 for row in range(30)] for page in range(20)])
    with pytest.raises(InputRejected, match="more than 2,000 characters") as caught:
        extract("pdf", data, 1, FileLimits(max_chars=2000))
    assert caught.value.reason == "too_much_text"


def test_a_password_protected_pdf_gets_a_clear_answer():
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(seeded_pdf())))
    writer.encrypt(user_password="s3cret", owner_password="owner", algorithm="AES-128")
    locked = io.BytesIO()
    writer.write(locked)
    with pytest.raises(InputRejected, match="File 3 is a password-protected PDF") as caught:
        extract(sniff(locked.getvalue()), locked.getvalue(), 3, LIMITS)
    assert caught.value.reason == "password_protected"


def test_a_pdf_restricted_only_by_an_owner_password_is_read():
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(seeded_pdf())))
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    restricted = io.BytesIO()
    writer.write(restricted)
    assert "Customer record" in extract("pdf", restricted.getvalue(), 1, LIMITS).text


BROKEN_PART = {
    "docx": "word/document.xml",
    "xlsx": "xl/workbook.xml",
    "pptx": "ppt/presentation.xml",
}


@pytest.mark.parametrize("kind", ["pdf", "docx", "xlsx", "pptx"])
def test_a_damaged_document_gets_an_answer_naming_only_its_position(kind):
    whole = {"pdf": seeded_pdf, "docx": seeded_docx, "xlsx": seeded_xlsx, "pptx": seeded_pptx}
    data = whole[kind]()
    # a PDF cut off halfway, as an interrupted upload leaves it; an office file whose main
    # part is broken XML, as a failed save leaves it
    damaged = data[: len(data) // 2] if kind == "pdf" else _zip_without(data, BROKEN_PART[kind])
    assert sniff(damaged) == kind
    with pytest.raises(InputRejected) as caught:
        extract(kind, damaged, 2, LIMITS)
    assert caught.value.reason == "unreadable_file"
    assert str(caught.value).startswith(f"File 2 looks like a {kind.upper()} document")
    for value in SEEDED:
        assert value not in str(caught.value)
    assert caught.value.__cause__ is None, "the parser's message (it may quote the file) is gone"
    assert caught.value.__suppress_context__


def _zip_without(data: bytes, dropped: str) -> bytes:
    """The office file with one part emptied, as a truncated upload or a broken save leaves it."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, b"<broken" if info.filename == dropped else source.read(info))
    return out.getvalue()


def test_a_zip_bomb_named_docx_is_refused_before_anything_is_inflated():
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", b"<Types/>")
        archive.writestr("word/document.xml", b"<w:document/>")
        archive.writestr("word/media/filler.xml", bytes(8 * 1024 * 1024))
    data = bomb.getvalue()
    assert len(data) < 20_000, "8 MB of zeros packs into a few kB"
    limits = FileLimits(max_bytes=1024 * 1024, max_chars=10_000)
    with pytest.raises(InputRejected, match="File 1 unpacks to 8 MB") as caught:
        extract(sniff(data), data, 1, limits)
    assert caught.value.reason == "zip_bomb"


def test_a_scanned_pdfs_pages_come_out_as_pictures_for_ocr_one_part_a_page():
    parts = extract("pdf", scanned_pdf(images_per_page=2), 1, LIMITS).parts
    assert [(part.page, len(part.images)) for part in parts] == [(1, 2), (2, 2)]
    pictures = [picture for part in parts for picture in part.images]
    assert all(sniff(picture) == "png" for picture in pictures)


def test_a_pdf_mixing_text_and_scanned_pages_keeps_them_in_page_order():
    typed = pdf_of([[f"Letter from {NAME}"], [], ["Kind regards"]])
    mixed = _with_page(typed, scanned_pdf(images_per_page=3), at=1)
    extracted = extract("pdf", mixed, 1, LIMITS)
    first, scan, last = extracted.parts
    assert f"Letter from {NAME}" in first
    assert (scan.page, len(scan.images), scan.undecoded) == (2, 3, 0)
    assert "Kind regards" in last
    assert extracted.pages == 4, "the blank page counts; the scan's strips make one page"


def _with_page(data: bytes, scan: bytes, *, at: int) -> bytes:
    """The PDF with the scan's first page inserted before page ``at`` (0-based)."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.insert_page(PdfReader(io.BytesIO(scan)).pages[0], at)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_of_many_small_pictures_is_refused_before_they_are_read():
    with pytest.raises(InputRejected, match="File 1 holds more than 8 images") as caught:
        extract("pdf", scanned_pdf(images_per_page=5), 1, LIMITS)
    assert caught.value.reason == "too_many_images"


def test_a_scanned_pdf_keeps_to_the_page_limit():
    with pytest.raises(InputRejected, match="File 4 has 2 pages"):
        extract("pdf", scanned_pdf(), 4, FileLimits(max_pages=1))


def test_a_sheet_whose_rows_run_past_excels_limit_is_refused():
    book = openpyxl.Workbook()
    book.active["A1"], book.active["A3"] = "first", "last"
    data = _xlsx_rewritten(saved(book), {b'r="3"': b'r="2000000"', b'r="A3"': b'r="A2000000"'})
    with pytest.raises(InputRejected, match="File 1 runs past 1,048,576 rows") as caught:
        extract("xlsx", data, 1, LIMITS)
    assert caught.value.reason == "too_much_text"


def test_a_sheet_claiming_the_whole_grid_is_read_as_the_cells_it_holds():
    """Two cells 300,000 rows apart in a sheet whose stored size is Excel's whole grid: a
    reader that trusts the stored size pads every row between to 16,384 columns (5 billion
    cells) and never finishes."""
    book = openpyxl.Workbook()
    book.active["A1"], book.active["A3"] = "first", "last"
    edits = {
        b'<dimension ref="A1:A3"/>': b'<dimension ref="A1:XFD1048576"/>',
        b'r="3"': b'r="300000"',
        b'r="A3"': b'r="A300000"',
    }
    data = _xlsx_rewritten(saved(book), edits)
    assert extract("xlsx", data, 1, LIMITS).text == "# Sheet\nfirst\nlast"


def _xlsx_rewritten(data: bytes, edits: dict[bytes, bytes]) -> bytes:
    """The workbook with its first sheet's XML edited, as a hand-made or hostile file has it."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            part = source.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                for old, new in edits.items():
                    assert old in part
                    part = part.replace(old, new)
            target.writestr(info, part)
    return out.getvalue()


ANNOTATED = {
    "docx": [
        r"We reviewed the refund request\.",
        r"Card in the box: <CREDIT_CARD_\d+>",  # the text box, once: its VML copy is skipped
        r"The refund was approved by the bank",  # a tracked insertion
        r"The bank pays within five days\.",  # moved: read where it is now, not twice
        r"Form field: <EMAIL_ADDRESS_\d+>",  # a content control
        r"# Footnotes\n Source: interview with <PERSON_\d+>, <EMAIL_ADDRESS_\d+>",
        r"# Endnotes\n Refunds go to IBAN <IBAN_CODE_\d+>",
        r"# Comments\n<PERSON_\d+>: Call her on <PHONE_NUMBER_\d+> first",
    ],
    "xlsx": [
        r"# Summary\nQuarter\tRevenue\nQ1\t1200\n",
        r"Note on B2 by <PERSON_\d+>: Confirmed by phone <PHONE_NUMBER_\d+>\n# Contacts",
        r"Note on A1 by Reviewer: Email <EMAIL_ADDRESS_\d+>, card <CREDIT_CARD_\d+>",
    ],
    "pptx": [
        r"# Slide 1\nQuarterly review\nComment by <PERSON_\d+>: Ask <EMAIL_ADDRESS_\d+> for",
        r"# Slide 2\nPayments\nComment by Reviewer: Card on file <CREDIT_CARD_\d+>\n",
        r"Comment by <PERSON_\d+>: Refund to <IBAN_CODE_\d+>",  # a reply
    ],
}


@pytest.mark.parametrize(
    ("kind", "build"),
    [("docx", annotated_docx), ("xlsx", annotated_xlsx), ("pptx", annotated_pptx)],
)
async def test_comments_notes_and_text_boxes_are_read_and_reach_the_model_redacted(
    guardrail, kind, build
):
    thread = ThreadId(f"slack:T1:C1:1700000000.00095{len(kind)}{kind[0]}")
    files = [IncomingFile(name=f"review.{kind}", data=build())]
    intake = await redact_files(guardrail, thread, files, platform="slack", limits=LIMITS)
    sent = intake.as_text()
    for value in SEEDED:
        assert value not in sent, f"{value!r} left in the {kind}"
    for expected in ANNOTATED[kind]:
        assert len(re.findall(expected, sent)) == 1, f"{expected!r} not once in {sent}"
    (fact,) = intake.facts
    assert fact.entities["CREDIT_CARD"] == 1


async def test_a_scanned_page_in_a_format_not_decoded_is_said_and_the_rest_is_read(guardrail):
    letter = with_jbig2_page(pdf_of([[f"Letter from {NAME}"]]))
    files = [IncomingFile(name="letter.pdf", data=letter)]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    sent = intake.as_text()
    assert re.search(r"Letter from <PERSON_\d+>", sent), "the typed page is read"
    assert "[page 2: 1 scanned picture in a format I cannot decode; not read]" in sent
    assert intake.images == ()
    assert intake.facts[0].pages == 2
