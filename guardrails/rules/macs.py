"""MAC addresses: a device's hardware address names the device, and through it its owner.

Three notations: six pairs of hex digits joined by colons or hyphens (``3c:22:fb:9a:10:7e``,
``00-1A-2B-3C-4D-5E``), three groups of four joined by dots (Cisco's ``0012.3456.789a``), and
twelve hex digits after a word that names one (``MAC 3C22FB9A107E``). Digits alone read as
other things as often (a clock ``12:30:45:10:20:30``, a version ``2024.0101.1234``): such a
value counts only after a word that names a hardware address. A run of pairs longer than six
is something else (an IPv6 address, a key's fingerprint), and the broadcast and all-zero
addresses name no device.

Presidio's ``MacAddressRecognizer`` is left out of the analyzer (``guardrails.engine``): its
patterns take versions and clock times, and a fingerprint's first six pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SCORE = 0.8

_PAIRS = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{2}(?:[:\-][0-9A-Fa-f]{2})+(?![0-9A-Za-z])")
"""A whole run of hex pairs joined by colons or hyphens (its pairs and joins checked after)."""
_DOTTED = re.compile(
    r"(?<![0-9A-Za-z.])[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}(?![0-9A-Za-z]|\.\w)"
)
_BARE = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{12}(?![0-9A-Za-z])")
_LETTER = re.compile("[A-Fa-f]")
_WORD = re.compile(
    r"\b(?i:mac|hw ?addr|hardware[ \t]+address|physical[ \t]+address|ether(?:net)?|bssid|"
    r"wi-?fi|wlan|nic)\b"
)
_WORD_BEFORE = 40
"""How far before a value (characters) a hardware-address word still names it."""
_NO_DEVICE = frozenset({"000000000000", "ffffffffffff"})


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each MAC address in ``text``."""
    for match in _PAIRS.finditer(text):
        value = match.group()
        if len(value) == 17 and len(set(value[2::3])) == 1 and _device(text, match, letters=True):
            yield match.start(), match.end(), SCORE
    for match in _DOTTED.finditer(text):
        if _device(text, match, letters=True):
            yield match.start(), match.end(), SCORE
    for match in _BARE.finditer(text):
        if _device(text, match, letters=False):
            yield match.start(), match.end(), SCORE


def _device(text: str, match: re.Match[str], *, letters: bool) -> bool:
    """Whether a candidate names a device.

    Not broadcast or zero, and a hex letter and a digit in it (when ``letters`` lets that
    decide alone) or a hardware-address word shortly before it.
    """
    digits = re.sub(r"[:\-.]", "", match.group()).lower()
    if digits in _NO_DEVICE:
        return False
    if letters and _LETTER.search(digits) and not digits.isalpha():
        return True
    before = text[max(0, match.start() - _WORD_BEFORE) : match.start()]
    return _WORD.search(before) is not None
