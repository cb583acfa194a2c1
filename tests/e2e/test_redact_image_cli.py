"""``veilbot redact IMAGE --out PATH``: the painted PNG written, the redacted OCR text on stdout."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_redact_file_cli import run
from tests.fixtures.images import encoded, ocr_text, screenshot, tesseract_or_skip

LINES = ["Refund for Maria Gonzalez", "Email: maria.gonzalez@example.com"]
SEEDED = ("Maria", "Gonzalez", "maria.gonzalez@example.com")


def test_an_image_is_painted_to_out_and_its_text_redacted_on_stdout(tmp_path: Path) -> None:
    tesseract_or_skip()
    source, out = tmp_path / "shot.png", tmp_path / "shot.redacted.png"
    source.write_bytes(encoded(screenshot(LINES)))
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "<PERSON_1>" in done.stdout
    assert "<EMAIL_ADDRESS_1>" in done.stdout
    reread = ocr_text(out.read_bytes())
    assert "Refund for" in reread
    for value in SEEDED:
        assert value not in done.stdout + done.stderr
        assert value not in reread
    assert "1 EMAIL_ADDRESS" in done.stderr


def test_without_tesseract_an_image_gets_one_line_and_a_text_file_still_works(
    tmp_path: Path,
) -> None:
    image, text, out = tmp_path / "shot.png", tmp_path / "notes.txt", tmp_path / "out.png"
    image.write_bytes(encoded(screenshot(LINES)))
    text.write_text("Call Maria Gonzalez\n", encoding="utf-8")
    no_tesseract = {"PATH": str(tmp_path / "empty-bin")}
    done = run(tmp_path, str(image), "--out", str(out), **no_tesseract)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "apt-get install tesseract-ocr" in done.stderr
    assert not out.exists()
    done = run(tmp_path, str(text), **no_tesseract)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Call <PERSON_1>")
