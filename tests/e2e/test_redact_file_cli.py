"""``veilbot redact FILE [--out PATH]``: a text file or a document redacted by the console."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import docx
from pypdf import PdfReader, PdfWriter

from tests.fixtures.documents import SEEDED as DOCUMENT_SEEDED
from tests.fixtures.documents import seeded_docx, seeded_pdf, seeded_xlsx

CSV = "name,email,phone,note\nMaria Gonzalez,maria@example.com,+1 415 555 0123,déjà vu\n"
SEEDED = ("Maria", "Gonzalez", "maria@example.com", "555 0123")


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "VEILBOT_DATA_DIR": str(tmp_path),
        "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", "redact", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
        check=False,
    )


def test_a_latin1_csv_is_redacted_to_the_out_file_with_counts_on_stderr(tmp_path: Path) -> None:
    source, out = tmp_path / "clients.csv", tmp_path / "clients.redacted.csv"
    source.write_bytes(CSV.encode("latin-1"))
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    redacted = out.read_text(encoding="utf-8")
    assert "<EMAIL_ADDRESS_1>" in redacted
    assert "déjà vu" in redacted, "decoded from latin-1, written as UTF-8"
    for value in SEEDED:
        assert value not in redacted
        assert value not in done.stderr + done.stdout
    assert "1 EMAIL_ADDRESS" in done.stderr


def test_without_out_the_redacted_text_goes_to_stdout(tmp_path: Path) -> None:
    source = tmp_path / "notes.md"
    source.write_text("Call Maria Gonzalez at +1 415 555 0123\n", encoding="utf-8")
    done = run(tmp_path, str(source))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Call <PERSON_1> at <PHONE_NUMBER_1>")


def test_bad_files_get_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    binary, pdf = tmp_path / "a.txt", tmp_path / "b.txt"
    binary.write_bytes(b"\x7fELF" + bytes(64))
    pdf.write_bytes(b"%PDF-1.7\n")
    big = tmp_path / "big.log"
    big.write_text("x" * 2048)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    out = tmp_path / "out.txt"
    cases = [
        (run(tmp_path, str(empty), "--out", str(out)), "the file is empty; there is nothing"),
        (run(tmp_path, str(binary), "--out", str(out)), "is not a kind I read"),
        (run(tmp_path, str(pdf), "--out", str(out)), "looks like a PDF document"),
        (run(tmp_path, str(tmp_path / "missing.txt")), "cannot read the file"),
        (run(tmp_path, str(big), VEILBOT_FILES_MAX_BYTES="1024"), "I read files up to"),
        (run(tmp_path, str(big), VEILBOT_FILES_MAX_CHARS="100"), "2,048 characters of text"),
    ]
    for done, expected in cases:
        assert done.returncode == 2
        assert expected in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()


def test_neither_a_file_nor_jsonl_is_a_usage_error(tmp_path: Path) -> None:
    done = run(tmp_path)
    assert done.returncode == 2
    assert "FILE" in done.stderr or "--jsonl" in done.stderr


def test_documents_are_redacted_whatever_their_name(tmp_path: Path) -> None:
    built = {"report.pdf": seeded_pdf(), "letter.txt": seeded_docx(), "sheet.xlsx": seeded_xlsx()}
    for name, data in built.items():
        source, out = tmp_path / name, tmp_path / f"{name}.redacted.txt"
        source.write_bytes(data)
        done = run(tmp_path, str(source), "--out", str(out))
        assert done.returncode == 0, done.stderr
        redacted = out.read_text(encoding="utf-8")
        for value in DOCUMENT_SEEDED:
            assert value not in redacted, f"{value!r} left in {name}"
            assert value not in done.stderr
        assert "<IBAN_CODE_1>" in redacted
        assert "1 IBAN_CODE" in done.stderr


def test_a_password_protected_pdf_gets_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(seeded_pdf())))
    writer.encrypt(user_password="s3cret", algorithm="AES-128")
    source, out = tmp_path / "locked.pdf", tmp_path / "out.txt"
    with source.open("wb") as handle:
        writer.write(handle)
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "veilbot: File 1 is a password-protected PDF; I cannot open it. "
        "Send a copy without the password, or paste the text you need."
    )
    assert not out.exists()


def test_an_office_file_is_written_as_its_kind_and_a_txt_path_asks_for_text(
    tmp_path: Path,
) -> None:
    source = tmp_path / "letter.bin"  # the kind comes from the bytes, not the name
    source.write_bytes(seeded_docx())
    out, text = tmp_path / "letter.docx", tmp_path / "letter.txt"
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    table = docx.Document(out).tables[0]
    assert [c.text for c in table.rows[0].cells] == ["Phone", "Card", "IBAN"]
    assert [c.text for c in table.rows[1].cells] == [
        "<PHONE_NUMBER_1>",
        "<CREDIT_CARD_1>",
        "<IBAN_CODE_1>",
    ]
    assert "docx, redacted 1 CREDIT_CARD, 1 EMAIL_ADDRESS, 1 IBAN_CODE" in done.stderr
    assert f"-> {out}" in done.stderr
    as_text = run(tmp_path, str(source), "--out", str(text))
    assert as_text.returncode == 0, as_text.stderr
    assert "Phone\tCard\tIBAN" in text.read_text(encoding="utf-8"), "what the model would read"


def test_a_document_in_another_language_is_read_in_it_with_languages(tmp_path: Path) -> None:
    """A Spanish docx with ``--languages es``: its paragraphs are read together as Spanish, by
    the Spanish model and rules, which find the town and the person English misses."""
    spanish = (
        "Nacido en Barcelona, Herrera ha desarrollado la mayor parte de su trayectoria ligado "
        "al Badajoz."
    )  # from CoNLL-2002 Spanish's dev part, never its test part
    document = docx.Document()
    document.add_paragraph(spanish)
    document.add_paragraph("El club confirmó su renovación por dos temporadas más.")
    source, out = tmp_path / "nota.docx", tmp_path / "nota.redacted.docx"
    buffer = io.BytesIO()
    document.save(buffer)
    source.write_bytes(buffer.getvalue())

    done = run(tmp_path, str(source), "--out", str(out), "--languages", "es")
    assert done.returncode == 0, done.stderr
    paragraphs = [p.text for p in docx.Document(out).paragraphs]
    assert "Barcelona" not in paragraphs[0]
    assert "Herrera" not in paragraphs[0]
    assert paragraphs[1] == "El club confirmó su renovación por dos temporadas más."
    english = run(tmp_path, str(source), "--out", str(out))
    assert english.returncode == 0, english.stderr
    assert "Herrera" in docx.Document(out).paragraphs[0].text
