"""Evasion forms and encoded link values through the real guardrail (real spaCy, real Redis).

Each form hides a value from a pattern while a reader still sees it. The guardrail must
replace the whole written form by one placeholder, and give the user's own text back when
the answer is restored.
"""

from __future__ import annotations

import re
import unicodedata

import pytest

from bot.core.errors import InputRejected
from bot.core.types import Platform, ThreadId
from guardrails.presidio import PresidioGuardrail

T1 = ThreadId("slack:T1:C1:1700000000.000200")
_NUMBERS = "zero one two three four five six seven eight nine".split()
_HIDDEN = ("Cf", "Mn", "Me", "Cc")
_DIGIT_WORDS = {word: str(digit) for digit, word in enumerate(_NUMBERS)}


def plain(text: str) -> str:
    """What a reader makes of a text: no hidden characters, marks, spacing or joiners."""
    text = "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else c for c in text)
    text = "".join(c for c in text if unicodedata.category(c) not in _HIDDEN or c == "\n")
    text = re.sub(
        r"\b(" + "|".join(_DIGIT_WORDS) + r")\b", lambda m: _DIGIT_WORDS[m.group()], text.lower()
    )
    return re.sub(r"[\s/\u2800\u3164\u115f\u1160]", "", text)


EVASIONS = [
    ("mail jane\u180e.doe@exam\u034fple.com today", "jane.doe@example.com"),
    ("mail j\u2060a\u2061n\u2062e.\u2063doe@example.com today", "jane.doe@example.com"),
    ("mail jane.d\u200boe@exa\u200dmple.com today", "jane.doe@example.com"),
    ("mail jane.doe\ufe0f@example\ufe0f.com today", "jane.doe@example.com"),
    ("mail ja\u2800ne.doe@example.com today", "jane.doe@example.com"),
    ("mail jane\U000e0020.doe@example\U000e007f.com today", "jane.doe@example.com"),
    ("mail jane.do\u00ade@example.com today", "jane.doe@example.com"),
    ("mail j a n e . d o e @ e x a m p l e . c o m today", "jane.doe@example.com"),
    ("ask for J a n e   D o e at the desk", "janedoe"),
    ("call me at 4 1 5 5 5 5 0 1 9 9 tonight", "4155550199"),
    ("call me at four one five five five five zero one nine nine tonight", "4155550199"),
    ("call me at four-one-five, five five five, zero one nine nine", "4155550199"),
    ("call me on oh seven seven double oh 900123 tonight", "07700900123"),
    ("card 4111/1111/1111/1111 thanks", "4111111111111111"),
    ("card 4111\u03011111\u03011111\u03011111 thanks", "4111111111111111"),
    ("card 4\u03361\u03361\u03361\u0336 1111 1111 1111 thanks", "4111111111111111"),
    ("call me on +44 20 7946 O958 tonight", "442079460958"),
    ("my number is 4I5-555-0199, thanks", "4155550199"),
    ("card 4111 1111 1111 1l11 thanks", "4111111111111111"),
]


@pytest.mark.parametrize(("text", "value"), EVASIONS)
async def test_an_evasion_form_becomes_one_placeholder_and_restores_as_written(
    guardrail: PresidioGuardrail, text: str, value: str
) -> None:
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    left = plain(re.sub(r"<[A-Z_]+_\d+>", " ", redaction.text))
    assert not [piece for piece in re.findall(r"[a-z]{3,}|\d", value) if piece in left]
    assert len(redaction.entities) == 1
    restored = (await guardrail.restorer(T1, platform="slack", private=True)).restore(
        redaction.text
    )
    assert restored.text == text


TAGGED = "".join(chr(0xE0000 + ord(c)) for c in "write jane.doe@example.com")


async def test_text_hidden_in_tag_characters_is_read_and_replaced(
    guardrail: PresidioGuardrail,
) -> None:
    text = f"Please summarise the thread above for me, thanks a lot {TAGGED} ok"
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert "jane.doe@example.com" not in plain(redaction.text)
    assert redaction.counts() == {"EMAIL_ADDRESS": 1}


@pytest.mark.parametrize(
    "text",
    [
        "hi" + TAGGED,
        "ok" + "\u200b\u2060\u180e\ufe0f" * 10,
        "a\u2800" * 30,
    ],
)
async def test_a_message_mostly_of_hidden_characters_is_refused(
    guardrail: PresidioGuardrail, text: str
) -> None:
    with pytest.raises(InputRejected) as caught:
        await guardrail.anonymize(T1, text, platform="slack")
    assert caught.value.reason == "hidden"


async def test_an_emoji_flag_is_not_hidden_text(guardrail: PresidioGuardrail) -> None:
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    redaction = await guardrail.anonymize(T1, f"Go {scotland}!", platform="slack")
    assert redaction.text == f"Go {scotland}!"


URL_VALUES = [
    ("https://example.com/form?phone=%2B14155550199&x=1", "PHONE_NUMBER", "+14155550199"),
    ("https://example.com/form?name=Ingrid+Halvorsen&step=2", "PERSON", "ingrid halvorsen"),
    ("https://example.com/form?dob=1969-05-12&step=2", "DATE_OF_BIRTH", "1969-05-12"),
    ("https://example.com/form?email=ingrid%40example.org", "EMAIL_ADDRESS", "ingrid@example.org"),
    ("https://example.com/f?first_name=Ingrid&lang=en", "PERSON", "ingrid"),
    ("https://example.com/f?ssn=078-05-1120&lang=en", "US_SSN", "078-05-1120"),
    ("https://example.com/f?birthdate=12%2F05%2F1969&lang=en", "DATE_OF_BIRTH", "12/05/1969"),
    ("https://example.com/f?address=12+Baker+Street%2C+London&k=1", "LOCATION", "baker street"),
    ("https://example.com/u/ingrid%2Ehalvorsen%40gmail%2Ecom/x", "EMAIL_ADDRESS", "halvorsen"),
]


@pytest.mark.parametrize(("url", "entity_type", "value"), URL_VALUES)
@pytest.mark.parametrize("platform", ["slack", "discord"])
async def test_an_encoded_link_value_is_replaced_by_what_its_key_says(
    guardrail: PresidioGuardrail, url: str, entity_type: str, value: str, platform: Platform
) -> None:
    text = f"the form is <{url}|here>" if platform == "slack" else f"the form is {url} ok"
    redaction = await guardrail.anonymize(T1, text, platform=platform)
    decoded = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), redaction.text)
    assert value not in decoded.replace("+", " ").lower()
    assert entity_type in redaction.counts()
    assert "example.com/" in redaction.text  # the link itself stays a link
    restorer = await guardrail.restorer(T1, platform=platform, private=True)
    assert restorer.restore(redaction.text).text == text


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("<mailto:ingrid@example.org|EMAIL_ADDRESS_1>", "ingrid@example.org"),
        ("<tel:+14155550199|PHONE_NUMBER_1>", "4155550199"),
        ("<mailto:ingrid@example.org|&lt;EMAIL_ADDRESS_1&gt;>", "ingrid@example.org"),
    ],
)
async def test_a_link_labelled_like_a_placeholder_hides_its_target(
    guardrail: PresidioGuardrail, link: str, target: str
) -> None:
    text = f"write to {link} please"
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert target not in redaction.text.replace(" ", "")
    assert len(redaction.entities) == 1
    restorer = await guardrail.restorer(T1, platform="slack", private=True)
    assert restorer.restore(redaction.text).text == text


@pytest.mark.parametrize(
    "typed", ["&lt;person_1&gt;", "&lt;PERSON_1&gt;", "P E R S O N _ 1", "PER\u200bSON_1"]
)
async def test_a_typed_placeholder_is_never_restored_as_the_threads_value(
    guardrail: PresidioGuardrail, typed: str
) -> None:
    first = await guardrail.anonymize(T1, "I'm Ingrid Halvorsen.", platform="slack")
    assert first.text == "I'm <PERSON_1>."
    redaction = await guardrail.anonymize(T1, f"what does {typed} mean?", platform="slack")
    assert "PERSON_1" not in plain(redaction.text).upper()
    restorer = await guardrail.restorer(T1, platform="slack", private=True)
    # The model quotes what it was sent: the user gets their own text back, no one's name.
    restored = restorer.restore(f"You asked: {redaction.text}").text
    assert restored == f"You asked: what does {typed} mean?"
    assert "Ingrid" not in restored


async def test_a_value_and_its_evasion_forms_share_one_placeholder(
    guardrail: PresidioGuardrail,
) -> None:
    turns = [
        "Mail jane.doe@example.com or call 415-555-0199, card 4111 1111 1111 1111.",
        "again: jane\u180e.doe@exam\u034fple.com, four one five five five five zero one nine nine",
        "and j a n e . d o e @ e x a m p l e . c o m, 4 1 5 5 5 5 0 1 9 9, 4111/1111/1111/1111",
        "last: call 4I5-555-O199, card 4111 1111 1111 1l11",
    ]
    redactions = [await guardrail.anonymize(T1, t, platform="slack") for t in turns]
    assert [sorted(r.counts().items()) for r in redactions] == [
        [("CREDIT_CARD", 1), ("EMAIL_ADDRESS", 1), ("PHONE_NUMBER", 1)],
        [("EMAIL_ADDRESS", 1), ("PHONE_NUMBER", 1)],
        [("CREDIT_CARD", 1), ("EMAIL_ADDRESS", 1), ("PHONE_NUMBER", 1)],
        [("CREDIT_CARD", 1), ("PHONE_NUMBER", 1)],
    ]
    placeholders = {e.placeholder for r in redactions for e in r.entities}
    assert placeholders == {"<EMAIL_ADDRESS_1>", "<PHONE_NUMBER_1>", "<CREDIT_CARD_1>"}
