"""Screenshots and photos through the real guardrail, Tesseract and OpenCV (real Redis vault).

Each image is made in the test (``tests.fixtures.images``). What leaves the intake is checked
the way an attacker would: the painted PNG is OCR'd again and must show none of the seeded
values; its metadata must be gone; a second face detector must find no face.
"""

from __future__ import annotations

import io
import re
import struct
import zlib

import pytest
from PIL import Image

from bot.core.attachments import ImagePart
from bot.core.errors import InputRejected
from bot.core.types import ChatMessage, ModelRequest, ThreadId
from bot.files.images import decode
from bot.files.intake import IncomingFile, redact_files
from bot.files.limits import FileLimits
from bot.model.claude import AnthropicModelClient
from bot.model.echo import EchoModelClient
from bot.model.prompt import build_system_prompt
from tests.fixtures.documents import mixed_pdf
from tests.fixtures.images import (
    encoded,
    face,
    faces_found,
    ocr_text,
    screenshot,
    tesseract_or_skip,
)

T1 = ThreadId("slack:T1:C1:1700000000.000700")
NAME, EMAIL = "Maria Oliveira", "maria.oliveira@example.org"
PHONE, CARD = "+1 415 555 0137", "4111 1111 1111 1111"
LINES = [
    f"Ticket 4821 opened by {NAME}",
    f"Email: {EMAIL}",
    f"Phone: {PHONE}",
    f"Card: {CARD}",
    "The export fails with error 502 since Monday.",
]
LIMITS = FileLimits()


@pytest.fixture
def tesseract() -> str:
    """Tesseract's path; skips (fails in CI) without it."""
    return tesseract_or_skip()


def _digits(text: str) -> str:
    """The digits of each line run together, placeholders' numbers left out."""
    lines = re.sub(r"[A-Z][A-Z_]*_\d+", "", text).splitlines()
    return "\n".join(re.sub(r"\D", "", line) for line in lines)


def _readable(values: list[str], text: str) -> list[str]:
    """The seeded values (or their name parts, or a phone's or card's digits) in ``text``."""
    found = [v for v in values if v.lower() in text.lower()]
    found += [p for p in ("Maria", "Oliveira", "oliveira@") if p.lower() in text.lower()]
    digits = _digits(text)
    found += [v for v in (PHONE, CARD) if _digits(v)[-8:] in digits]
    return found


async def _intake(guardrail, data: bytes, tesseract: str, **options: object):
    files = [IncomingFile(name="screenshot.png", data=data)]
    return await redact_files(
        guardrail, T1, files, platform="slack", limits=LIMITS, tesseract=tesseract, **options
    )


async def test_a_screenshot_reaches_the_model_painted_and_its_text_redacted(guardrail, tesseract):
    message = await guardrail.anonymize(T1, f"Why did {EMAIL} get this?", platform="slack")
    intake = await _intake(guardrail, encoded(screenshot(LINES)), tesseract)
    (image,) = intake.images
    assert image.media_type == "image/png"
    assert _readable([NAME, EMAIL, PHONE, CARD], ocr_text(image.data)) == []
    text = intake.as_text()
    assert _readable([NAME, EMAIL, PHONE, CARD], text) == []
    for kind in ("PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD"):
        assert f"<{kind}_" in text, kind
    email = next(e.placeholder for e in message.entities if e.type == "EMAIL_ADDRESS")
    assert email in text, "the image's e-mail is the message's: one placeholder in the thread"
    assert "error 502 since Monday" in text, "the rest of the screenshot is read as it is"
    assert "The export fails" in ocr_text(image.data), "only the findings are painted"
    (fact,) = intake.facts
    assert (fact.kind, fact.pages) == ("png", 1)
    assert fact.entities["CREDIT_CARD"] == 1


async def test_metadata_is_dropped_and_a_photo_is_turned_upright(guardrail, tesseract):
    photo = screenshot(["Lisbon office, badge photo"], size=(900, 300))
    exif = Image.Exif()
    exif[0x010F] = "CameraMaker"  # Make
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to view
    exif.get_ifd(0x8825)[2] = (38.0, 43.0, 25.0)  # GPSLatitude
    sideways = photo.rotate(90, expand=True)
    data = encoded(sideways, "JPEG", exif=exif.tobytes(), quality=95)
    assert b"CameraMaker" in data
    intake = await _intake(guardrail, data, tesseract)
    (image,) = intake.images
    assert b"CameraMaker" not in image.data
    assert b"Exif" not in image.data
    with Image.open(io.BytesIO(image.data)) as painted:
        assert dict(painted.getexif()) == {}
        assert set(painted.info) <= {"dpi"}
        assert painted.size == (900, 300), "EXIF orientation was applied before reading"
    assert "badge photo" in intake.as_text()


async def test_a_face_is_hidden_with_its_head(guardrail, tesseract):
    canvas = screenshot(["Team page"], size=(1000, 600))
    canvas.paste(face(200), (500, 100))
    data = encoded(canvas)
    assert faces_found(data), "the drawn face is one OpenCV finds"
    intake = await _intake(guardrail, data, tesseract)
    (image,) = intake.images
    assert faces_found(image.data) == []
    assert "[image sent with 1 face painted over]" in intake.as_text()


async def test_text_only_sends_no_image_only_the_redacted_text(guardrail, tesseract):
    intake = await _intake(guardrail, encoded(screenshot(LINES)), tesseract, images="text-only")
    assert intake.images == ()
    text = intake.as_text()
    assert "[image not sent: only its text, redacted, is shared here]" in text
    assert "<EMAIL_ADDRESS_" in text
    assert _readable([NAME, EMAIL, PHONE, CARD], text) == []


async def test_images_off_are_refused_with_a_clear_answer(guardrail):
    files = [IncomingFile("a.txt", b"fine"), IncomingFile("s.png", encoded(screenshot(LINES)))]
    with pytest.raises(InputRejected, match="File 2 is an image; images are not read here"):
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS, images="off")


@pytest.mark.parametrize("angle", [20, 180])
async def test_rotated_text_is_sent_with_what_ocr_could_not_read_painted(
    guardrail, tesseract, angle
):
    tilted = screenshot(LINES).rotate(angle, expand=True, fillcolor="white")
    intake = await _intake(guardrail, encoded(tilted), tesseract)
    (image,) = intake.images
    assert re.search(
        r"\[image sent with .*unreadable text regions painted over\]", intake.as_text()
    )
    with Image.open(io.BytesIO(image.data)) as painted:
        upright = encoded(painted.rotate(-angle, expand=True, fillcolor="white"))
    assert _readable([NAME, EMAIL, PHONE, CARD], ocr_text(upright)) == []
    assert _readable([NAME, EMAIL, PHONE, CARD], intake.as_text()) == []


async def test_without_tesseract_images_are_refused_and_text_files_still_work(guardrail):
    missing = "/nonexistent/tesseract"
    with pytest.raises(InputRejected, match=r"apt-get install tesseract-ocr") as caught:
        await _intake(guardrail, encoded(screenshot(LINES)), missing)
    assert "\n" not in str(caught.value)
    files = [IncomingFile("notes.txt", f"Call {NAME}".encode())]
    intake = await redact_files(
        guardrail, T1, files, platform="slack", limits=LIMITS, tesseract=missing
    )
    assert "<PERSON_" in intake.as_text()


def _png_claiming(width: int, height: int) -> bytes:
    """A 1x1 PNG whose header claims ``width`` x ``height`` (a decompression bomb's shape)."""
    data = bytearray(encoded(Image.new("RGB", (1, 1))))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


@pytest.mark.parametrize("side", [100_000, 7_000], ids=["pillow-bomb", "over-our-limit"])
async def test_a_decompression_bomb_is_refused_before_decoding(guardrail, side):
    assert side * side > LIMITS.max_pixels
    files = [IncomingFile("bomb.png", _png_claiming(side, side))]
    most = f"{LIMITS.max_pixels / 1_000_000:g} megapixels"
    with pytest.raises(InputRejected, match=f"File 1 is an image of more than {most}"):
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "GIF"])
def test_jpeg_webp_and_a_gifs_first_frame_are_decoded(fmt):
    first, second = Image.new("RGB", (64, 32), "red"), Image.new("RGB", (64, 32), "blue")
    extra = {"save_all": True, "append_images": [second]} if fmt == "GIF" else {}
    pixels = decode(encoded(first, fmt, **extra), 1, LIMITS)
    assert pixels.size == (64, 32)
    assert pixels.mode == "RGB"
    red, _, blue = pixels.getpixel((10, 10))  # type: ignore[misc]
    assert (red > 200, blue < 60) == (True, True), "the first frame, its colours kept"


async def test_the_model_receives_the_painted_image_and_nothing_it_could_read(
    guardrail, tesseract, fake_anthropic
):
    message = await guardrail.anonymize(T1, "What went wrong here?", platform="slack")
    intake = await _intake(guardrail, encoded(screenshot(LINES)), tesseract)
    text = f"{message.text}\n\n{intake.as_text()}"
    asked = ModelRequest(build_system_prompt(), (ChatMessage("user", text),), images=intake.images)
    model = AnthropicModelClient(
        "sk-test",
        model="claude-sonnet-4-6",
        base_url=fake_anthropic.url,
        max_tokens=100,
        temperature=None,
        timeout=5.0,
        max_retries=0,
        strict_response_validation=True,
    )
    try:
        await model.complete(asked)
    finally:
        await model.aclose()
    ((media_type, received),) = fake_anthropic.images_sent()
    assert (media_type, received) == ("image/png", intake.images[0].data), "the painted PNG"
    assert _readable([NAME, EMAIL, PHONE, CARD], ocr_text(received)) == []
    assert _readable([NAME, EMAIL, PHONE, CARD], fake_anthropic.all_text_sent()) == []


async def test_the_offline_model_says_how_many_images_it_received():
    image = ImagePart("image/png", encoded(Image.new("RGB", (4, 4))))
    asked = ModelRequest("", (ChatMessage("user", "look"),), images=(image, image))
    result = await EchoModelClient().complete(asked)
    assert result.text.endswith("look\n(and 2 redacted images)")


def _scanned(pages: list[list[str]]) -> bytes:
    """A PDF whose pages are only pictures of text, as a scanner writes them."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    drawing = canvas.Canvas(buffer, pagesize=A4)
    for lines in pages:
        page = screenshot(lines, size=(1100, 400))
        drawing.drawImage(ImageReader(page), 20, 400, width=550, height=200)
        drawing.showPage()
    drawing.save()
    return buffer.getvalue()


async def test_a_scanned_pdf_is_read_page_by_page_the_image_way(guardrail, tesseract):
    scan = _scanned([LINES[:2], [LINES[2], LINES[4]]])
    files = [IncomingFile(name="scan.pdf", data=scan)]
    intake = await redact_files(
        guardrail, T1, files, platform="slack", limits=LIMITS, tesseract=tesseract
    )
    text = intake.as_text()
    assert _readable([NAME, EMAIL, PHONE], text) == []
    for kind in ("PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER"):
        assert f"<{kind}_" in text, kind
    assert "error 502" in text, "the scan's other words are read"
    assert len(intake.images) == 2, "each page goes painted"
    for page in intake.images:
        assert _readable([NAME, EMAIL, PHONE], ocr_text(page.data)) == []
    (fact,) = intake.facts
    assert (fact.kind, fact.pages) == ("pdf", 2)


async def test_a_pdf_mixing_typed_and_scanned_pages_reads_every_page_in_order(guardrail, tesseract):
    strips = [
        [f"Scanned form of {NAME}", f"Phone: {PHONE}"],
        [f"Card: {CARD}", "Signed and returned"],
    ]
    letter = mixed_pdf([f"Letter from {NAME}", f"Email: {EMAIL}"], strips, ["Kind regards"])
    files = [IncomingFile(name="letter.pdf", data=letter)]
    intake = await redact_files(
        guardrail, T1, files, platform="slack", limits=LIMITS, tesseract=tesseract
    )
    text = intake.as_text()
    assert _readable([NAME, EMAIL, PHONE, CARD], text) == []
    for kind in ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD"):
        assert f"<{kind}_" in text, kind
    typed, scanned = text.index("Letter from <PERSON_1>"), text.index("Scanned form of <PERSON_1>")
    note = text.index("[page 2 is scanned: its text was read by OCR]")
    assert typed < note < scanned < text.index("Signed and returned") < text.index("Kind regards")
    assert len(intake.images) == 2, "each strip of the scanned page goes painted"
    for strip in intake.images:
        assert _readable([NAME, PHONE, CARD], ocr_text(strip.data)) == []
    (fact,) = intake.facts
    assert (fact.kind, fact.pages) == ("pdf", 3), "pages, not pictures"
    assert (fact.entities["PHONE_NUMBER"], fact.entities["CREDIT_CARD"]) == (1, 1)


async def test_a_scanned_page_counts_against_the_files_text_limit(guardrail, tesseract):
    strips = [[f"Scanned form of {NAME}", f"Phone: {PHONE}"]]
    letter = mixed_pdf(["Short typed page"], strips, [])
    files = [IncomingFile(name="letter.pdf", data=letter)]
    with pytest.raises(InputRejected, match="File 1 holds [0-9,]+ characters") as caught:
        await redact_files(
            guardrail,
            T1,
            files,
            platform="slack",
            limits=FileLimits(max_chars=40),
            tesseract=tesseract,
        )
    assert caught.value.reason == "too_much_text"


async def test_where_images_are_off_a_pdf_with_scanned_pages_is_refused_saying_why(guardrail):
    letter = mixed_pdf(["Typed page"], [[f"Phone: {PHONE}"]], [])
    files = [IncomingFile(name="letter.pdf", data=letter)]
    with pytest.raises(InputRejected, match="File 1 has scanned pages") as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS, images="off")
    assert caught.value.reason == "images_off"
