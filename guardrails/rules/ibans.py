"""IBAN validation: a country that issues IBANs, that country's length, the mod-97 checksum.

Mod-97 alone lets one run of characters in 97 through: "fd90 keeps timing out when", after
an IPv6 address, passed and took the address's tail. Lengths are the IBAN registry's (SWIFT);
Presidio's own layout table has four of them wrong (MU, PS, PT, QA), so it is not used.
Countries with "partial" IBANs (used by some banks, not in the registry) are checked by
mod-97 alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

LENGTHS: dict[str, int] = {
    entry[:2]: int(entry[2:])
    for entry in (
        "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 "
        "DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 "
        "HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 "
        "MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 "
        "RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 "
        "VA22 VG24 XK20 YE30"
    ).split()
}
"""Country code -> IBAN length, from the IBAN registry."""
PARTIAL = frozenset("AO BF BJ CF CG CI CM CV DZ GA GQ GW IR KM MA MG ML MZ NE SN TD TG".split())
"""Countries whose banks issue IBANs outside the registry: length not checked."""
_SEPARATORS = re.compile(r"[\s.\-]")


def valid(value: str) -> bool:
    """Whether ``value`` (any grouping, any case) is an IBAN: country, length, checksum."""
    compact = _SEPARATORS.sub("", value).upper()
    country = compact[:2]
    if not 15 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    if LENGTHS.get(country, len(compact) if country in PARTIAL else 0) != len(compact):
        return False
    rotated = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rotated)) % 97 == 1


MISREAD = re.compile(r"\b[A-Z]{2}[0-9OIli]{2}(?:[ .\-]?+[0-9A-Za-z]{1,4}+){3,8}+\b")
"""An IBAN's shape with "O" for 0 or "I", "l" or "i" for 1 where digits go."""
_TO_DIGIT = str.maketrans("OoIli", "00111")


def misread(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, as printed)`` of each IBAN with digits read as letters ("DE89 37O4 …").

    OCR and text copied out of a scan read 0 as "O" and 1 as "I", "l" or "i". Read as digits
    after its country code (or after its bank code too, which is letters in some countries:
    "GB82 WEST …", "IE29 AIBK …"), the value must have its country's length and checksum,
    which a misread IBAN then has and other text has one time in 97 at best.
    """
    for match in MISREAD.finditer(text):
        value = match.group()
        if valid(value) or not re.search("[OIli]", value[2:]):
            continue
        printed = _as_digits(value)
        if printed is not None:
            yield match.start(), match.start() + len(printed), printed


def _as_digits(value: str) -> str | None:
    """``value`` or its first groups with the letters read as digits, if that is an IBAN."""
    for cut in _group_ends(value):
        alnum = [i for i, c in enumerate(value[:cut]) if c.isalnum()]
        for kept in (frozenset[int](), frozenset(alnum[4:8])):
            read = "".join(
                c.translate(_TO_DIGIT) if i >= alnum[2] and i not in kept else c
                for i, c in enumerate(value[:cut])
            )
            if valid(read):
                return read
    return None


def _group_ends(value: str) -> Iterator[int]:
    """The end of ``value``, then the end of each group before it, longest first."""
    yield len(value)
    for i in range(len(value) - 1, 0, -1):
        if value[i] in " .-" and value[i - 1] not in " .-":
            yield i


def find_misread(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each IBAN of ``misread``."""
    return ((start, end, 0.95) for start, end, _ in misread(text))


MISTYPED = re.compile(
    r"\b[A-Z]{2}\d{2}(?:(?: [A-Z0-9]{4}){2,7}+(?: [A-Z0-9]{1,3})?+|[A-Z0-9]{11,30}+)(?![\w\-])"
)
"""An IBAN as banks print it (country, check digits, groups of four and a short last one) or
run together."""
_ACCOUNT_WORD = re.compile(
    r"\b(?i:iban|account|acct|a/c|bank|konto\w*|bankverbindung|compte|cuenta|conto|"
    r"rekening\w*|rachun\w*)\b"
)
_WORD_BEFORE = 40
_SLACK = 2
"""How many characters a mistyped IBAN may have lost or gained against its country's length."""


def find_mistyped(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each IBAN someone mistyped after a word that names it.

    "my IBAN is DE89 3704 0044 0532 0130 01", a digit off, is still the account; read as
    anything else, its middle groups became a card or phone number and its country and first
    groups reached the model. After a word for an IBAN or an account (as a mistyped card
    after a card word), a run in an IBAN's shape with a country that issues IBANs and about
    that country's length is one, whatever its checksum; without such a word it is no IBAN,
    as Presidio's tests hold.
    """
    for match in MISTYPED.finditer(text):
        value = match.group()
        if valid(value) or not _near_length(value):
            continue
        before = text[max(0, match.start() - _WORD_BEFORE) : match.start()]
        if _ACCOUNT_WORD.search(before) is not None:
            yield match.start(), match.end(), 0.95  # a card or phone inside it is none


def _near_length(value: str) -> bool:
    """Whether ``value`` is within ``_SLACK`` characters of its country's IBAN length."""
    compact = value.replace(" ", "")
    country = compact[:2]
    if country in PARTIAL:
        return 15 <= len(compact) <= 34
    length = LENGTHS.get(country)
    return length is not None and abs(len(compact) - length) <= _SLACK
