"""``normalize_value``: one lookup form whatever the case, accents or spacing people type."""

import pytest

from guardrails.text.values import normalize_value


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("JOSE  MULLER", "José Müller"),
        ("jose\tmuller ", "JOSÉ MÜLLER"),
        ("strasse", "STRASSE"),
        ("Maria Gonzalez", "maria\u00a0gonzalez"),
        ("ﬁle", "FILE"),
    ],
)
def test_ascii_and_unicode_spellings_of_a_value_meet(typed: str, stored: str) -> None:
    assert normalize_value(typed) == normalize_value(stored)


def test_every_ascii_character_normalizes_as_in_an_accented_spelling() -> None:
    # Plain ASCII takes a fast path; an accented spelling of the same value takes the full
    # Unicode one. They must meet, or "Jose" would not find "José"'s placeholder.
    for char in map(chr, range(128)):
        assert normalize_value(f"A{char}e") == normalize_value(f"a{char}é"), repr(char)
