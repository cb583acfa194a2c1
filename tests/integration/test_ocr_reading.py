"""Values broken the way text copied out of a PDF or a scan has them, in typed text, through
the real detection on the small spaCy model: an e-mail address spaced at its last dot, an IPv6
address broken after a colon, an IBAN with letters for digits. Typed text gets only the
tolerance that costs no precision: what follows such a value stays."""

import pytest

from guardrails.detect.detection import detect


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("write to jane.doe@example. com please", ("EMAIL_ADDRESS", "jane.doe@example. com")),
        ("or jane.doe@example .org", ("EMAIL_ADDRESS", "jane.doe@example .org")),
        ("fe80::1ff: fe23:4567:890a is down", ("IP_ADDRESS", "fe80::1ff: fe23:4567:890a")),
        ("IBAN DE89 37O4 0044 0532 0l30 00", ("IBAN_CODE", "DE89 37O4 0044 0532 0l30 00")),
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
