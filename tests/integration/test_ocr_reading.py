"""Values as OCR reads them, through the real guardrail (real spaCy model, real Redis vault)
and, with Tesseract, a real screenshot: an e-mail address spaced at a dot, an IPv6 address
broken after its colons, an IBAN, a phone or a card number with letters for digits,
"S@rensen". Text read by OCR gets
the whole tolerance and each value is replaced whole, with the placeholder the value has in
the chat; typed text gets only the tolerance that costs no precision (letters for digits
count in a phone or card number, which must then check as one)."""

import re

import pytest

from bot.core.types import ThreadId
from bot.files.intake import IncomingFile, redact_files
from bot.files.limits import FileLimits
from guardrails.detect.detection import detect
from tests.fixtures.images import encoded, ocr_text, screenshot, tesseract_or_skip

T1 = ThreadId("slack:T1:C1:1700000000.001200")
SCREENSHOT = [
    "Invoice 4471 for Mette S@rensen",
    "Email: jane.doe@example. com",
    "Server fe80::1ff: fe23:4567:890a",
    "IBAN DE89 37O4 0044 0532 0l30 00",
]


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("Email: jane.doe@example. com", "Email: <EMAIL_ADDRESS_1>"),
        ("mail jane.doe @ exarnple.corn today", "mail <EMAIL_ADDRESS_1> today"),
        ("Email: jane.doe@example.c0m", "Email: <EMAIL_ADDRESS_1>"),
        ("Email: jane.doe@example.cOm", "Email: <EMAIL_ADDRESS_1>"),
        ("Server fe80:: 1ff: fe23:4567:890a is down", "Server <IP_ADDRESS_1> is down"),
        ("IBAN DE89 3704 0044 0532 OI30 00", "IBAN <IBAN_CODE_1>"),
        ("Invoice 4471 for Mette S@rensen", "Invoice 4471 for <PERSON_1>"),
        ("Phone: +44 20 7946 O958", "Phone: <PHONE_NUMBER_1>"),
        ("Tel 415 555 Ol23 today", "Tel <PHONE_NUMBER_1> today"),
        ("Card 4111 1111 1111 1l11", "Card <CREDIT_CARD_1>"),
    ],
)
async def test_values_as_ocr_reads_them_are_replaced_whole(guardrail, text, redacted):
    redaction = await guardrail.anonymize(T1, text, platform="slack", ocr=True)
    assert redaction.text == redacted


async def test_a_value_read_by_ocr_keeps_the_placeholder_it_has_in_the_chat(guardrail):
    typed = await guardrail.anonymize(T1, "Why did jane.doe@example.com bounce?", platform="slack")
    read = await guardrail.anonymize(T1, "To: jane.doe@example. com", platform="slack", ocr=True)
    assert typed.text == "Why did <EMAIL_ADDRESS_1> bounce?"
    assert read.text == "To: <EMAIL_ADDRESS_1>"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("write to jane.doe@example. com please", ("EMAIL_ADDRESS", "jane.doe@example. com")),
        ("or jane.doe@example .org", ("EMAIL_ADDRESS", "jane.doe@example .org")),
        ("fe80::1ff: fe23:4567:890a is down", ("IP_ADDRESS", "fe80::1ff: fe23:4567:890a")),
        ("IBAN DE89 37O4 0044 0532 0l30 00", ("IBAN_CODE", "DE89 37O4 0044 0532 0l30 00")),
        ("call +44 20 7946 O958 tonight", ("PHONE_NUMBER", "+44 20 7946 O958")),
        ("my number is 4I5-555-0199, thanks", ("PHONE_NUMBER", "4I5-555-0199")),
        ("card 4111 1111 1111 1l11 thanks", ("CREDIT_CARD", "4111 1111 1111 1l11")),
    ],
)
def test_typed_text_gets_the_tolerance_that_costs_no_precision(presidio_analyzer, text, value):
    assert found(presidio_analyzer, text) == [value]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("it was 2001:db8::1: 10:30 then it dropped", "10:30"),  # a time after an address
        ("write jane@acme.com. net was down", "net"),  # the address was whole
        ("mail jane@acme.com. it was down", "it"),
    ],
)
def test_what_follows_a_value_in_typed_text_stays(presidio_analyzer, text, kept):
    assert not [v for _, v in found(presidio_analyzer, text) if kept in v.split()]


@pytest.mark.parametrize("ocr", [True, False])
async def test_letters_beside_figures_that_make_no_number_stay_as_read(guardrail, ocr):
    text = "order ABC-1O2, room IO1, TOOL 2O, model X1O, score 1O-2O, the l0l"
    redaction = await guardrail.anonymize(T1, text, platform="slack", ocr=ocr)
    assert redaction.text == text


async def test_a_screenshot_with_ocr_slips_reaches_the_model_with_none_of_its_values(guardrail):
    tesseract = tesseract_or_skip()
    data = encoded(screenshot(SCREENSHOT))
    read = ocr_text(data)
    assert "example. com" in read, "Tesseract reads the address spaced, as printed"
    files = [IncomingFile(name="invoice.png", data=data)]
    intake = await redact_files(
        guardrail, T1, files, platform="slack", limits=FileLimits(), tesseract=tesseract
    )
    sent = intake.as_text()
    for piece in ("S@rensen", "jane", "example", "fe80", "fe23", "890a", "DE89", "0044", "0532"):
        assert piece not in sent, piece
    assert re.search(r"Invoice 4471 for <PERSON_\d+>", sent)
    (fact,) = intake.facts
    assert {"EMAIL_ADDRESS", "IP_ADDRESS", "IBAN_CODE", "PERSON"} <= set(fact.entities)
