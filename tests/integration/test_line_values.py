"""Cards and phone numbers one per line, through the real detection on the small spaCy model
(and the real vault for a turn's message and files): each is found whole on its own line, and
none runs over the line break into the value on the next line."""

import re

import pytest

from bot.core.attachments import IncomingFile
from bot.core.types import ThreadId
from bot.files.intake import redact_files
from bot.files.limits import FileLimits
from guardrails.detect.detection import detect

T1 = ThreadId("slack:T1:C1:1700000000.001100")
AMEX, VISA, MASTERCARD = "3782 822463 10005", "4111 1111 1111 1111", "5555 5555 5555 4444"
PHONE = "+44 20 7946 0958"


def numbers(analyzer, text):
    """The cards and phone numbers found in ``text``, in order."""
    found = detect(analyzer, text, "console")
    return [(d.type, text[d.start : d.end]) for d in found if d.type in _NUMBERS]


_NUMBERS = ("CREDIT_CARD", "PHONE_NUMBER")


def groups(*values: str) -> list[str]:
    """Every digit group of the values: none may reach the model."""
    return [g for value in values for g in re.findall(r"\d+", value.removeprefix("+"))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Amex {AMEX}\n{VISA} is my visa", [("CREDIT_CARD", AMEX), ("CREDIT_CARD", VISA)]),
        (f"call {PHONE}\n{VISA}", [("PHONE_NUMBER", PHONE), ("CREDIT_CARD", VISA)]),
        (f"Total 120\n{VISA} ok", [("CREDIT_CARD", VISA)]),  # a figure, then a card
        (f"{VISA}\n42 left", [("CREDIT_CARD", VISA)]),  # a card, then a figure
        ("card 4111 1111\n1111 1111 thanks", [("CREDIT_CARD", "4111 1111\n1111 1111")]),
    ],
)
def test_a_card_is_found_whole_on_its_own_line(presidio_analyzer, text, expected):
    assert numbers(presidio_analyzer, text) == expected


async def test_no_digit_of_cards_and_phones_on_consecutive_lines_reaches_the_model(guardrail):
    text = f"Amex {AMEX}\n{VISA} is my visa\ncall {PHONE}\n{MASTERCARD}"
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert redaction.text == (
        "Amex <CREDIT_CARD_1>\n<CREDIT_CARD_2> is my visa\ncall <PHONE_NUMBER_1>\n<CREDIT_CARD_3>"
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("cards.txt", f"Cards on file:\n{AMEX}\n{VISA}\n{PHONE}\n{MASTERCARD}\n"),
        ("cards.csv", f"number\n{AMEX}\n{VISA}\n{PHONE}\n{MASTERCARD}\n"),
    ],
)
async def test_a_file_listing_cards_and_phones_one_a_line_hides_every_one_whole(
    guardrail, name, content
):
    files = [IncomingFile(name=name, data=content.encode())]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=FileLimits())
    sent = intake.as_text()
    assert [g for g in groups(AMEX, VISA, MASTERCARD, PHONE) if g in sent] == []
    (fact,) = intake.facts
    assert (fact.entities["CREDIT_CARD"], fact.entities["PHONE_NUMBER"]) == (3, 1)
