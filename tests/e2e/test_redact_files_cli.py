"""``veilbot redact FILE... --out FOLDER [--jsonl]``: many files and folders in one start.

Run as the console script ships, with the real guardrail: every good file is written as its
own kind under the output folder, a bad file among them gets its line and the others go on,
the exit status says one failed; ``--jsonl`` gives one object per file; a progress bar shows
on a terminal only. No planted value reaches stdout, stderr or any output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import docx
import openpyxl
from pypdf import PdfReader

from tests.fixtures.documents import seeded_pdf
from tests.fixtures.planted import PLANTED, planted_csv, planted_docx, planted_pptx, planted_xlsx
from tests.integration.test_file_out import assert_nothing_left


def environ(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
    }


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "redact", *args],
        capture_output=True,
        text=True,
        env=environ(tmp_path),
        timeout=300,
        check=False,
    )


def folder(tmp_path: Path) -> Path:
    """Office files, a CSV, a PDF, a bad file and a hidden one, one of them a level down."""
    source = tmp_path / "inbox"
    (source / "sheets").mkdir(parents=True)
    (source / "contract.docx").write_bytes(planted_docx())
    (source / "sheets" / "contacts.xlsx").write_bytes(planted_xlsx())
    (source / "deck.pptx").write_bytes(planted_pptx())
    (source / "clients.csv").write_text(planted_csv(), encoding="utf-8", newline="")
    (source / "report.pdf").write_bytes(seeded_pdf())
    (source / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (source / ".hidden.txt").write_text("Maria Oliveira", encoding="utf-8")
    return source


def test_a_folder_is_written_as_its_kinds_and_a_bad_file_does_not_stop_the_rest(
    tmp_path: Path,
) -> None:
    out = tmp_path / "redacted"
    done = run(tmp_path, str(folder(tmp_path)), "--out", str(out))
    assert done.returncode == 2, "one file failed"
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == [
        "clients.csv",
        "contract.docx",
        "deck.pptx",
        "report.pdf",
        "sheets/contacts.xlsx",
    ]
    for path in out.rglob("*"):
        if path.is_file():
            assert_nothing_left(path.read_bytes())
    assert docx.Document(out / "contract.docx").tables[0].rows[0].cells[0].text == "Name"
    assert openpyxl.load_workbook(out / "sheets" / "contacts.xlsx")["Summary"]["B2"].value == 1200
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 6, done.stderr
    broken = next(line for line in lines if "broken.docx" in line)
    assert "File 1 is not a kind I read" in broken
    contract = next(line for line in lines if "contract.docx" in line)
    assert "docx, redacted" in contract
    assert f"-> {out / 'contract.docx'}" in contract
    assert "pdf, redacted" in next(line for line in lines if "report.pdf" in line)
    pages = [page.extract_text() for page in PdfReader(out / "report.pdf").pages]
    assert "Customer record" in pages[0]
    assert "<IBAN_CODE_1>" in pages[1]
    for value in PLANTED:
        assert value not in done.stderr + done.stdout


def test_jsonl_gives_one_object_per_file_with_its_text_when_nothing_is_written(
    tmp_path: Path,
) -> None:
    notes, bad = tmp_path / "notes.md", tmp_path / "empty.txt"
    notes.write_text("Call Maria Oliveira on +1 415 555 0137\n", encoding="utf-8")
    bad.write_bytes(b"")
    sheet = tmp_path / "contacts.csv"
    sheet.write_text(planted_csv(), encoding="utf-8", newline="")
    done = run(tmp_path, "--jsonl", str(notes), str(bad), str(sheet))
    assert done.returncode == 2
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["file"] for o in objects] == [str(notes), str(bad), str(sheet)]
    assert objects[0]["text"] == "Call <PERSON_1> on <PHONE_NUMBER_1>\n"
    assert objects[0]["counts"] == {"PERSON": 1, "PHONE_NUMBER": 1}
    assert objects[0]["error"] is None
    assert objects[0]["out"] is None
    assert objects[1]["error"]["reason"] == "empty_file"
    assert objects[2]["kind"] == "text"
    assert done.stderr == "", "with --jsonl, stdout says it all"
    for value in PLANTED:
        assert value not in done.stdout

    out = tmp_path / "out"
    written = run(tmp_path, "--jsonl", str(sheet), str(notes), "--out", str(out))
    assert written.returncode == 0, written.stderr
    first, second = (json.loads(line) for line in written.stdout.splitlines())
    assert (first["written_as"], first["out"]) == ("csv", str(out / "contacts.csv"))
    assert "text" not in first
    assert (second["written_as"], second["out"]) == ("text", str(out / "notes.md"))
    assert (out / "notes.md").read_text(encoding="utf-8") == "Call <PERSON_1> on <PHONE_NUMBER_1>\n"


def test_a_progress_bar_shows_on_a_terminal_only(tmp_path: Path) -> None:
    one, two = tmp_path / "a.csv", tmp_path / "b.csv"
    one.write_text("name,phone\nMaria Oliveira,+1 415 555 0137\n", encoding="utf-8")
    two.write_text("name\nJordan Whitfield\n", encoding="utf-8")
    out = tmp_path / "out"
    piped = run(tmp_path, str(one), str(two), "--out", str(out))
    assert piped.returncode == 0, piped.stderr
    assert "redacting" not in piped.stderr
    assert len(piped.stderr.splitlines()) == 2

    leader, follower = os.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "bot", "redact", str(one), str(two), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=follower,
        env={**environ(tmp_path), "COLUMNS": "100"},
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert child.wait(timeout=300) == 0
    shown = seen.decode("utf-8", "replace")
    assert "redacting" in shown
    assert "2/2" in shown
    assert "a.csv: text as csv, redacted 1 PERSON, 1 PHONE_NUMBER" in shown
    for value in ("Maria", "Oliveira", "Whitfield", "555 0137"):
        assert value not in shown


def test_several_files_need_an_output_folder(tmp_path: Path) -> None:
    one, two = tmp_path / "a.txt", tmp_path / "b.txt"
    one.write_text("a", encoding="utf-8")
    two.write_text("b", encoding="utf-8")
    done = run(tmp_path, str(one), str(two))
    assert done.returncode == 2
    assert "give --out FOLDER" in done.stderr


def test_two_files_of_one_name_are_both_written(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = tmp_path / "a" / "notes.txt", tmp_path / "b" / "notes.txt"
    one.write_text("Call Maria Oliveira", encoding="utf-8")
    two.write_text("Mail j.whitfield@example.net", encoding="utf-8")
    out = tmp_path / "out"
    done = run(tmp_path, str(one), str(two), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "notes.txt").read_text(encoding="utf-8") == "Call <PERSON_1>"
    assert (out / "notes-2.txt").read_text(encoding="utf-8") == "Mail <EMAIL_ADDRESS_1>"
