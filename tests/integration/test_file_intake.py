"""A message's files through the real guardrail (real spaCy model, real Redis vault).

Each test builds its file in the test; what the model would receive holds no seeded value, the
placeholders match the message text's, the audit's facts hold no content, and every bad file
gets a clear answer naming it by position (never by its name).
"""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from bot.core.attachments import IncomingFile
from bot.core.errors import InputRejected
from bot.core.types import ThreadId
from bot.files.intake import redact_files
from bot.files.kinds import sniff
from bot.files.limits import FileLimits
from bot.files.text import decode
from tests.fixtures.documents import compound_file

T1 = ThreadId("slack:T1:C1:1700000000.000900")
EMAIL = "maria.oliveira@example.org"
PHONE = "+1 415 555 0137"
NAME = "Maria Oliveira"
LIMITS = FileLimits()


def _csv(encoding: str) -> bytes:
    rows = [
        "name,email,phone,city,note",
        f"{NAME},{EMAIL},{PHONE},Lisbon,déjà vu",
        "Zoë Brontë,,,Köln,crème brûlée",
    ]
    return ("\n".join(rows) + "\n").encode(encoding)


def _zip(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return buffer.getvalue()


async def test_a_csv_reaches_the_model_redacted_with_the_threads_placeholders(guardrail):
    message = await guardrail.anonymize(T1, f"Please check {EMAIL}'s row", platform="slack")
    files = [IncomingFile(name=f"{NAME} contacts.csv", data=_csv("utf-8"))]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    sent = message.text + "\n\n" + intake.as_text()
    for value in (EMAIL, PHONE, NAME, "Oliveira"):
        assert value not in sent
    email_placeholder = next(e.placeholder for e in message.entities if e.type == "EMAIL_ADDRESS")
    assert email_placeholder in intake.as_text(), "the same value keeps its placeholder"
    assert intake.as_text().startswith('<file name="<PERSON_')
    assert "name,email,phone,city" in intake.as_text(), "the non-personal text reaches the model"


async def test_the_audit_facts_hold_kind_size_and_counts_never_content(guardrail):
    data = _csv("utf-8")
    files = [IncomingFile(name=f"{NAME}.csv", data=data)]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    (fact,) = intake.facts
    assert (fact.kind, fact.size, fact.pages) == ("text", len(data), 1)
    assert fact.entities["EMAIL_ADDRESS"] == 1
    assert fact.entities["PERSON"] >= 1
    dumped = json.dumps([fact.kind, fact.size, fact.pages, fact.entities, intake.entities])
    for value in (EMAIL, PHONE, NAME, "Oliveira", "contacts"):
        assert value not in dumped


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "cp1252"])
async def test_a_file_in_another_charset_is_decoded_before_redaction(guardrail, encoding):
    files = [IncomingFile(name="export.csv", data=_csv(encoding))]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    text = intake.as_text()
    assert EMAIL not in text
    assert "Brontë" not in text, "the accented name is read and hidden"
    assert "crème brûlée" in text, f"{encoding} text is decoded, not mangled"


async def test_a_renamed_binary_is_refused_by_its_bytes_not_its_name(guardrail):
    files = [IncomingFile(name="notes.txt", data=b"\x7fELF\x02\x01\x01\x00" + bytes(64))]
    with pytest.raises(InputRejected) as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert caught.value.reason == "unsupported_file"
    assert "File 1" in str(caught.value)
    assert "notes" not in str(caught.value)


async def test_a_broken_pdf_named_txt_is_refused_as_a_pdf(guardrail):
    files = [IncomingFile(name="plain.txt", data=b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")]
    with pytest.raises(InputRejected, match="File 1 looks like a PDF document") as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert caught.value.reason == "unreadable_file"


async def test_a_broken_image_is_refused_with_one_clear_line(guardrail):
    png = b"\x89PNG\r\n\x1a\n" + bytes(32)
    files = [IncomingFile(name="a.txt", data=b"fine"), IncomingFile(name="shot.png", data=png)]
    with pytest.raises(InputRejected, match="File 2 looks like an image but I could not decode"):
        await redact_files(guardrail, T1, files, platform="discord", limits=LIMITS)


async def test_too_many_files_are_refused_before_any_is_read(guardrail):
    files = [IncomingFile(name=f"{i}.txt", data=b"x") for i in range(3)]
    with pytest.raises(InputRejected, match="3 files; I read at most 2") as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=FileLimits(max_files=2))
    assert caught.value.reason == "too_many_files"


async def test_a_file_past_the_size_limit_is_refused_naming_its_size(guardrail):
    files = [IncomingFile(name="a.txt", data=b"ok"), IncomingFile(name="b.log", data=b"x" * 3000)]
    limits = FileLimits(max_bytes=2048)
    with pytest.raises(
        InputRejected, match="File 2 is 2.9 KB; I read files up to 2.0 KB"
    ) as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=limits)
    assert caught.value.reason == "file_too_large"


def test_too_many_pages_are_refused():
    with pytest.raises(InputRejected, match="File 4 has 31 pages; I read documents up to 30"):
        LIMITS.check_pages(4, 31)
    LIMITS.check_pages(4, 30)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"%PDF-1.4", "pdf"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "jpeg"),
        (b"GIF89a....", "gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "webp"),
        (_zip({"[Content_Types].xml": b"<x/>", "word/document.xml": b"<w/>"}), "docx"),
        (_zip({"[Content_Types].xml": b"<x/>", "xl/workbook.xml": b"<w/>"}), "xlsx"),
        (_zip({"[Content_Types].xml": b"<x/>", "ppt/presentation.xml": b"<p/>"}), "pptx"),
        (_zip({"readme.txt": b"hello"}), "unknown"),
        (b"PK\x03\x04 truncated", "unknown"),
        ('{"a": "ünïcode"}'.encode("utf-16"), "text"),
        (b"def f():\n    return 1\n", "text"),
    ],
)
def test_the_kind_comes_from_the_bytes(data, kind):
    assert sniff(data) == kind


def test_a_short_latin1_file_keeps_its_accents() -> None:
    data = "Zoë Brontë, Köln, São Paulo, Ærø\n".encode("latin-1")
    assert decode(data, position=1) == "Zoë Brontë, Köln, São Paulo, Ærø\n"


def test_cyrillic_in_windows_1251_is_not_read_as_latin() -> None:
    text = "Привет, это список клиентов из Москвы и Санкт-Петербурга.\n" * 3
    assert decode(text.encode("cp1251"), position=1) == text


async def test_a_file_with_more_text_than_is_read_is_refused_with_its_length(guardrail):
    files = [IncomingFile(name="a.csv", data=_csv("utf-8") * 20)]
    limits = FileLimits(max_chars=1000)
    with pytest.raises(InputRejected, match="File 1 holds 2,620 characters") as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=limits)
    assert caught.value.reason == "too_much_text"


@pytest.mark.parametrize(
    ("stream", "name", "told"),
    [
        ("WordDocument", "minutes.doc", "an old-format Word 97-2003 document (.doc)"),
        ("Workbook", "budget.xls", "an old-format Excel 97-2003 workbook (.xls)"),
        ("PowerPoint Document", "deck.ppt", "an old-format PowerPoint 97-2003 presentation"),
    ],
)
async def test_an_old_office_file_is_refused_with_what_to_save_it_as(guardrail, stream, name, told):
    files = [IncomingFile(name=name, data=compound_file(stream, f"Call {NAME}".encode()))]
    with pytest.raises(InputRejected) as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    answer = str(caught.value)
    assert answer.startswith(f"File 1 is {told}")
    new = {"doc": ".docx", "xls": ".xlsx", "ppt": ".pptx"}[name.rsplit(".", 1)[1]]
    assert "File > Save As > " in answer
    assert f"({new}) or PDF" in answer
    assert "\n" not in answer
    assert caught.value.reason == "old_office_format"


async def test_a_password_protected_office_file_is_told_apart_from_an_old_one(guardrail):
    files = [IncomingFile(name="locked.docx", data=compound_file("EncryptedPackage"))]
    with pytest.raises(InputRejected, match="File 1 is a password-protected Office document"):
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)


async def test_any_other_compound_file_is_a_kind_not_read(guardrail):
    files = [IncomingFile(name="mail.msg", data=compound_file("__substg1.0_0037001F"))]
    with pytest.raises(InputRejected, match=r"File 1 is not a kind I read \(text, ") as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert caught.value.reason == "unsupported_file"
