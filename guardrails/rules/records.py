"""Record numbers: the number a word names as a person's record, account or membership.

A medical record number, a patient's, member's, customer's or employee's id, an account,
policy, claim or subscriber number: none has a checksum or a shape of its own, so one is
read only right after its word ("MRN 4482910", "patient id: 4482910", "acct # 12-3345-9",
"member ID W123456789", "employee id E-44821", "NHS number …", "TIN …", a passport's
"C01X00T47"). The value holds four digits or more and may open with up to four letters or
end with up to three; an amount, a date with slashes or a number glued to a further figure
is none. A Medicare Beneficiary Identifier has a shape of its own ("1EG4-TE5-MK73"), read
dashed or after "Medicare"/"MBI". A vehicle says whose it is too: a VIN (17 letters and
digits) after "VIN" or with a valid check digit, and a plate after its word ("plate
7ABC123"). So does a booking's reference after its word ("booking reference K7QX2P", "PNR:
QWERTY", "e-ticket 1252345678901"): with the surname it opens the trip. Type ``ID_NUMBER``.

A national number read as this record is no phone number (``phones.find`` leaves it);
with an international prefix it is a phone number whatever names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

ID_NUMBER = "ID_NUMBER"

_OWNER = (
    r"(?:patient|member|membership|customer|client|employee|emp|staff|student|subscriber"
    r"|beneficiary|insurance|insured|policy(?:holder)?|account|acct|acc|claim|chart"
    r"|(?:medical|health)[ \t]+record|(?:health|care|medicare|medicaid|green)[ \t]+card|record|nhs"
    r"|medicare|tax(?:[ \t]+file)?|passport)"
)
_ID_WORD = r"(?:id|identifier|number|num|nr|no\.?|#|:)"
_KEY = (
    rf"(?i:\b(?:MRN|TIN|acct|sort[ \t]+code|BSB|routing|ABA)\b(?:[ \t]*{_ID_WORD})*"
    rf"|\b{_OWNER}(?:[ \t]*{_ID_WORD})+)"
    r"(?:[ \t]*(?i:is|was|=))?[ \t]*"
)
_CANDIDATE = re.compile(
    rf"{_KEY}(?P<v>(?:[A-Za-z]{{1,4}}[ \-]?)?\d(?:-?\d){{2,19}}(?:[ ]\d{{3,6}}){{0,3}}"
    r"(?:[ ]\d(?![\w\-]|[.,/:]\d))?(?:-?[A-Za-z]{1,3})?)(?![\w\-]|[.,/:]\d)"
)
"""A record's word, what may stand between it and its number ("patient id: ", "MRN ", "acct
# ", "NHS number ", "tax file number ", and a bank's branch: "sort code ", "BSB ", "routing
number "), and the number: digit groups joined by hyphens or spaced in threes and more, and
a last digit alone (an Australian Medicare card's "2123 45670 1")."""
_PASSPORT = re.compile(
    rf"(?i:\bpassport(?:[ \t]*{_ID_WORD})*(?:[ \t]*(?:is|was|=))?[ \t]*)"
    r"(?P<v>(?=[A-Z0-9]*\d[A-Z0-9]*\d)[A-Z0-9]{6,12})(?![\w\-])"
)
"""A passport's number after the word, in any country's form ("C01X00T47", "533380006"):
capitals and at least two digits, six to twelve of them."""
_NATIONAL = re.compile(
    r"(?i:\b(?:national[ \t]+(?:id(?:entity)?|insurance)|id(?:entity)?[ \t]+card|identity"
    r"|personal[ \t]+(?:id|identity|identification|code)|personnummer|henkil[öo]tunnus|cpr"
    r"|aadhaa?r|tfn|cpf|curp|rut|rfc|nric|hkid|nhi|utr|c[ée]dula|iqama|emirates[ \t]+id"
    r"|(?-i:A-number)|alien[ \t]+(?:registration[ \t]+)?number|uscis[ \t]+number"
    r"|(?-i:PAN|SIN)|(?:pan|sin)(?=[ \t]*(?:number|num|no\b|nr|#|:|is\b)))\b"
    rf"(?:[ \t]*{_ID_WORD})*(?:[ \t]*(?:is|was|=|:))?[ \t]*)"
    r"(?P<v>[A-Za-z0-9]*\d[A-Za-z0-9]*(?:[.\-/ ]\d[A-Za-z0-9]*|[.\-/][A-Za-z][A-Za-z0-9]*)*+"
    r"(?:\([A-Za-z0-9]\))?)(?![\w\-(]|[.,/:]\d)"
)
"""A person's national number after its name in any country's words ("my aadhaar is …",
"PAN ABCDE1234F", "CURP GODE561231HDFRRN09", "HKID A123456(7)", "cpf 123.456.789-09",
"national id 8001015009087"; "pan" and "sin", words of English and Spanish, in capitals or
before "number", "is" or a colon): six to twenty-five letters and digits, four digits or more, in
groups (a space only before digits); the check character in brackets with it. The countries
veilbot checks by their check digits are ``guardrails.rules.national``'s."""
_NATIONAL_LENGTH = (6, 25)
_MIN_DIGITS = 4
_KEY_REACH, _VALUE_REACH = 40, 60
"""How far before a phone candidate a record's word may start, and how far its value runs."""
NEEDS = re.compile(r"[\dA-Z]")
"""Every record number, VIN and plate holds a digit; an airline's booking reference capitals."""
_DIGIT = re.compile(r"\d")


_VIN = re.compile(r"(?<![\w\-])[A-HJ-NPR-Z0-9]{17}(?![\w\-])")
"""A vehicle identification number's shape: 17 letters and digits, no I, O or Q."""
_VIN_KEY = re.compile(r"(?i:\b(?:vin|chassis)(?:[ \t]*(?:no\.?|number|#|:))*[ \t]*)\Z")
_VIN_VALUES = {
    **{str(d): d for d in range(10)},
    **dict(zip("ABCDEFGH", range(1, 9), strict=True)),
    **dict(zip("JKLMN", range(1, 6), strict=True)),
    "P": 7,
    "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10), strict=True)),
}
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
_PLATE = re.compile(
    r"(?i:\b(?:(?:licen[cs]e|number|reg(?:istration)?)[ \t]+plate|plate|reg(?:istration)?"
    r"[ \t]+(?:no\.?|number)|registration)(?:[ \t]*(?:no\.?|number|#|:|is))*[ \t]*)"
    r"(?P<v>(?=[A-Z0-9 \-]*\d)(?=[A-Z0-9 \-]*[A-Z])[A-Z0-9]{1,4}(?:[ \-]?[A-Z0-9]{1,4}){0,3})"
    r"(?![\w\-])"
)
"""A vehicle's plate after its word ("plate 7ABC123", "reg no. AB12 CDE", "licence plate
KA-01-AB-1234"): letters and a digit, in capitals, in at most four groups."""


def vin_checks(value: str) -> bool:
    """Whether a VIN's ninth character is its check digit (North American VINs)."""
    total = sum(_VIN_VALUES[c] * w for c, w in zip(value, _VIN_WEIGHTS, strict=True))
    check = total % 11
    return value[8] == ("X" if check == 10 else str(check))


_BOOKING = re.compile(
    r"(?i:\b(?:(?P<pnr>pnr|record[ \t]+locator|booking[ \t]+ref(?:erence)?"
    r"|confirmation[ \t]+code)|(?:booking|reservation"
    r"|confirmation|ticket|trip)[ \t]+(?:ref(?:erence)?|code|number|no\.?|#|id)"
    r"|e-?ticket(?:[ \t]+(?:number|no\.?|#))?)\b"
    r"(?:[ \t]*(?:is|was|=|:|#))*[ \t]*)"
    r"(?P<v>[A-Z0-9]{5,14})(?![\w\-])"
)
"""A booking's reference after its word ("booking reference K7QX2P", "PNR: QWERTY",
"confirmation code 8XJ4LM", "ticket number 0012345678901"): five to fourteen capitals and
digits, a digit among them, or an airline's six capitals after its own word (``pnr``).
Whoever holds it and the surname manages the trip (and reads the passport in it)."""

_MBI_LETTER = "[AC-HJKMNP-RT-Y]"  # no S, L, O, I, B or Z
_MBI = re.compile(
    rf"(?i:(?<![\w\-])[1-9]{_MBI_LETTER}[0-9AC-HJKMNP-RT-Y]\d(?P<d>-?){_MBI_LETTER}"
    rf"[0-9AC-HJKMNP-RT-Y]\d(?P=d){_MBI_LETTER}{{2}}\d{{2}}(?![\w\-]))"
)
"""A US Medicare Beneficiary Identifier: eleven characters, digits and letters in fixed
places, the letters never S, L, O, I, B or Z ("1EG4-TE5-MK73")."""
_MBI_KEY = re.compile(r"(?i:\b(?:medicare|mbi)\b)")


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each record number, vehicle id, plate and booking reference."""
    if _DIGIT.search(text) is not None:
        yield from _numbered(text)
    folded = text.casefold()
    if any(
        word in folded for word in ("book", "conf", "reserv", "pnr", "ticket", "locator", "trip")
    ):
        for match in _BOOKING.finditer(text):
            value = match.group("v")
            if _DIGIT.search(value) or match.group("pnr") and len(value) == 6:
                yield match.start("v"), match.end("v"), 0.85


def _numbered(text: str) -> Iterator[tuple[int, int, float]]:
    """The record numbers, Medicare ids, VINs and plates of a text with a digit."""
    yield from _records(text, 0, len(text))
    for match in _MBI.finditer(text):
        keyed = _MBI_KEY.search(text, max(0, match.start() - 40), match.start()) is not None
        if match.group("d") or keyed:  # dashed as the card prints it, or named
            yield match.start(), match.end(), 0.9
    for match in _VIN.finditer(text):
        value = match.group()
        mixed = sum(c.isdigit() for c in value) >= 2 and sum(c.isalpha() for c in value) >= 2
        keyed = _VIN_KEY.search(text, max(0, match.start() - 20), match.start()) is not None
        if mixed and (keyed or vin_checks(value)):
            yield match.start(), match.end(), 0.9
    for match in _PLATE.finditer(text):
        yield match.start("v"), match.end("v"), 0.85


_NATIONAL_HINTS = (
    "national identit card personal personnummer henkil cpr aadha tfn cpf curp rut rfc nric hkid "
    "dula iqama emirates pan sin nhi utr a-number alien uscis"
).split()
"""A piece of every word ``_NATIONAL`` reads after: a text without one has no such number."""


def _records(text: str, start: int, end: int) -> Iterator[tuple[int, int, float]]:
    folded = text[start:end].casefold()
    national = any(hint in folded for hint in _NATIONAL_HINTS)
    for pattern in (_CANDIDATE, _PASSPORT, _NATIONAL) if national else (_CANDIDATE, _PASSPORT):
        for match in pattern.finditer(text, start, end):
            value = match.group("v")
            if pattern is _NATIONAL:
                kept = _national_value(value)
            else:
                kept = sum(c.isdigit() for c in value) >= _MIN_DIGITS
            if kept:
                yield match.start("v"), match.end("v"), 0.9


def _national_value(value: str) -> bool:
    """Whether ``_NATIONAL``'s value has a national number's length and digits."""
    digits = sum(c.isdigit() for c in value)
    return digits >= _MIN_DIGITS and _NATIONAL_LENGTH[0] <= len(value) <= _NATIONAL_LENGTH[1]


_NINO_NAME = re.compile(
    r"(?i:nino)(?:[ \t]*(?:is|was|:|number|no\.?|#))+[ \t]*[A-Za-z]{2}[ \t]?\d{2}[ \t]?\d{2}"
)
"""A UK National Insurance number's name before its first letters and digits."""


def names_an_id(text: str, start: int) -> bool:
    """Whether a word at ``start`` is a national number's name with the number after it.

    "His [Aadhaar] is 2345 6789 0123", "Her [NRIC] is S1234567D": the entity model reads the
    id's name as a person; it says what the value is, and stays.
    """
    if _NINO_NAME.match(text, start):
        return True  # "my [NINO] is AB 12 34 56 C": Nino is a given name too
    match = _NATIONAL.match(text, start)
    return match is not None and _national_value(match.group("v"))


def starts_at(text: str, start: int) -> bool:
    """Whether a record number starts at ``start`` ("account number [12345678]").

    A phone number's candidate there is that record.
    """
    window = _records(text, max(0, start - _KEY_REACH), min(len(text), start + _VALUE_REACH))
    return any(found == start for found, _, _ in window)
