"""``veilbot redact IMAGE --out PATH``: the painted PNG written, the redacted OCR text on stdout."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium

from tests.e2e.test_redact_file_cli import run
from tests.fixtures.documents import mixed_pdf
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
    assert f"VEILBOT_FILES_IMAGES=redacted: wrote the painted image to {out}" in done.stderr


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


def test_where_images_are_text_only_no_image_is_written_and_it_says_so(tmp_path: Path) -> None:
    tesseract_or_skip()
    source, out = tmp_path / "shot.png", tmp_path / "shot.redacted.png"
    source.write_bytes(encoded(screenshot(LINES)))
    done = run(tmp_path, str(source), "--out", str(out), VEILBOT_FILES_IMAGES="text-only")
    assert done.returncode == 0, done.stderr
    assert "[image not sent: only its text, redacted, is shared here]" in done.stdout
    assert "<EMAIL_ADDRESS_1>" in done.stdout
    assert not out.exists(), "text-only: the image itself goes nowhere"
    assert "VEILBOT_FILES_IMAGES=text-only: only the text of the pictures" in done.stderr
    for value in SEEDED:
        assert value not in done.stdout + done.stderr


def test_where_images_are_off_an_image_gets_one_line_and_nothing_is_read(tmp_path: Path) -> None:
    source, out = tmp_path / "shot.png", tmp_path / "shot.redacted.png"
    source.write_bytes(encoded(screenshot(LINES)))
    done = run(tmp_path, str(source), "--out", str(out), VEILBOT_FILES_IMAGES="off")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("veilbot: File 1 is an image; images are not read here")
    assert done.stderr.strip().endswith("(VEILBOT_FILES_IMAGES=off; nothing written)")
    assert done.stderr.count("\n") == 1
    assert not out.exists()


def test_a_pdf_with_a_scanned_page_is_redacted_whole_with_one_numbering(tmp_path: Path) -> None:
    tesseract_or_skip()
    strips = [["Signed by Maria Gonzalez"], ["Email: maria.gonzalez@example.com"]]
    letter = mixed_pdf(["Letter from Maria Gonzalez"], strips, ["Kind regards"])
    source, out = tmp_path / "letter.pdf", tmp_path / "letter.txt"
    source.write_bytes(letter)
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    redacted = out.read_text(encoding="utf-8")
    assert "Letter from <PERSON_1>" in redacted
    # each picture's text now comes under a line saying what of it was painted
    assert re.search(
        r"\[page 2 is scanned: its text was read by OCR\]\n\n"
        r"\[image sent with [^\]]* painted over\]\nSigned by <PERSON_1>",
        redacted,
    )
    assert "<EMAIL_ADDRESS_1>" in redacted
    assert redacted.index("Signed by") < redacted.index("Email:") < redacted.index("Kind regards")
    for value in SEEDED:
        assert value not in redacted + done.stderr + done.stdout
    assert (
        "VEILBOT_FILES_IMAGES=redacted: 2 scanned-page pictures read by OCR; "
        "2 would go to the model painted over (not written)"
    ) in done.stderr


def test_values_ocr_misreads_are_found_whole_in_an_image(tmp_path: Path) -> None:
    """The offline redactor reads a picture's text with OCR's slips in mind, as a turn does."""
    tesseract_or_skip()
    lines = ["Invoice for Mette S@rensen", "Email: jane.doe@example.c0m"]
    source = tmp_path / "slip.png"
    source.write_bytes(encoded(screenshot(lines)))
    done = run(tmp_path, str(source))
    assert done.returncode == 0, done.stderr
    assert "Invoice for <PERSON_1>" in done.stdout
    assert "Email: <EMAIL_ADDRESS_1>" in done.stdout
    for piece in ("S@rensen", "jane", "example"):
        assert piece not in done.stdout, piece


def _letter(tmp_path: Path) -> Path:
    strips = [["Signed by Maria Gonzalez"], ["Email: maria.gonzalez@example.com"]]
    source = tmp_path / "letter.pdf"
    source.write_bytes(mixed_pdf(["Letter from Maria Gonzalez"], strips, ["Kind regards"]))
    return source


def test_a_pdf_with_a_scanned_page_comes_back_as_a_pdf_painted_where_the_values_were(
    tmp_path: Path,
) -> None:
    tesseract_or_skip()
    source, out = _letter(tmp_path), tmp_path / "letter.redacted.pdf"
    done = run(tmp_path, str(source), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (
        "VEILBOT_FILES_IMAGES=redacted: 1 scanned page read by OCR and painted into the PDF"
    ) in done.stderr
    document = pdfium.PdfDocument(out.read_bytes())
    assert len(document) == 3
    seen = [ocr_text(encoded(page.render(scale=2).to_pil()), scale=1) for page in document]
    assert "Signed by" in seen[1]
    assert "Kind regards" in seen[2]
    for value in SEEDED:
        assert not any(value in page for page in seen), f"{value!r} can still be read"
        assert value not in done.stdout + done.stderr
        assert value.encode() not in out.read_bytes()


def test_a_scanned_pdf_follows_the_image_policy(tmp_path: Path) -> None:
    """``off``: refused, nothing written; ``text-only``: its redacted text, never a picture."""
    tesseract_or_skip()
    source, out = _letter(tmp_path), tmp_path / "letter.redacted.pdf"
    done = run(tmp_path, str(source), "--out", str(out), VEILBOT_FILES_IMAGES="off")
    assert done.returncode == 2
    assert "File 1 has scanned pages (pictures of text); images are not read here" in done.stderr
    assert not out.exists()
    done = run(tmp_path, str(source), "--out", str(out), VEILBOT_FILES_IMAGES="text-only")
    assert done.returncode == 0, done.stderr
    assert not out.exists(), "no picture of the page goes anywhere"
    text = out.with_name(out.name + ".txt").read_text(encoding="utf-8")
    assert "Signed by <PERSON_1>" in text
    for value in SEEDED:
        assert value not in text
