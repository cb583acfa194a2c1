"""Key/value fields: where a key of personal data stands and where its value is.

``fields`` finds ``key: value``, ``key = value`` and ``"key": "value"`` pairs at a line's start
(after a bullet or list number and markup) or after a separator (``{``, ``,``, ``;``, ``|``); a
value ends at its closing quote, at the next field on its line, or at the line's end (at most
200 characters). ``table_fields`` gives the cells of tables (pipe tables, rows pasted from a
spreadsheet or a CSV file) under their header cells.
Only keys ``KEYS`` knows are kept; ``guardrails.rules.structure`` decides whether each value has
its key's shape. ``outside_keys`` cuts a name span the NER model ran into a known key.
Everything here is linear: each pattern reads a bounded window at each position.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

_PERSON_STRONG = """fullname firstname lastname surname givenname familyname forename
    middlename maidenname birthname legalname preferredname displayname nickname patient
    patientname contactname customername clientname employeename nextofkin emergencycontact
    spouse husband wife mother father guardian parent accountholder cardholder
    beneficiary payee signedby apellido apellidos prenom vorname nachname cognome""".split()
_PERSON_NAME = "name nombre nom nome accountname holder".split()
_PERSON_WEAK = """owner assignee reporter author contact customer client employee manager
    member attendee attendees participant requester requestedby approvedby preparedby
    createdby assignedto doctor physician nurse tenant landlord recipient sender""".split()
HEADERS = "to from cc bcc replyto sender recipient recipients attendees".split()
"""Keys whose names are read only before an address (``To: Amber Christian <a@b.c>``)."""
_LOCATION = """address addr homeaddress streetaddress mailingaddress postaladdress
    billingaddress shippingaddress deliveryaddress residence street street1 street2
    addressline addressline1 addressline2 address1 address2 city town hometown birthplace
    placeofbirth zip zipcode postcode postalcode direccion adresse indirizzo anschrift
    morada""".split()
_PHONE = """phone phonenumber tel telephone mobile mobilenumber cell cellphone fax
    whatsapp contactnumber homephone workphone telefono telefon telephone handy""".split()
_DOB = """dob dateofbirth birthdate birthday bday born geburtsdatum fechadenacimiento
    datadinascita datedenaissance""".split()
_LICENCE = """dl dlnumber dlno driverslicense driverlicense driverslicence driverlicence
    drivinglicense drivinglicence licensenumber licencenumber licenseno licenceno
    """.split()
_LICENCE_WEAK = "license licence".split()
"""Also software licences (``license: GPL-3``): the value needs a state's licence format."""

KEYS: dict[str, str] = {
    **{k: "PERSON" for k in _PERSON_STRONG + _PERSON_NAME + _PERSON_WEAK + HEADERS},
    **{k: "LOCATION" for k in _LOCATION},
    **{k: "PHONE_NUMBER" for k in _PHONE},
    **{k: "DATE_OF_BIRTH" for k in _DOB},
    **{k: "DRIVER_LICENSE" for k in _LICENCE + _LICENCE_WEAK},
}
"""Normalized key (lower case, letters and digits only) -> the type of its value."""
_LEVEL = {
    **{k: 2 for k in _PERSON_STRONG},
    **{k: 1 for k in _PERSON_NAME},
    **{k: 0 for k in _PERSON_WEAK + _LICENCE_WEAK},
}
"""How sure a key is of its value's type (2 the default); see ``StructureReader._person``."""

_FIELD = re.compile(
    r"(?:^|(?<=[,;|{(\[]))[ \t]*(?:[-*•·‣◦▪>+][ \t]*|\d{1,2}[.)][ \t]+)?[*_]{0,2}"
    r"(?P<q>[\"']?)(?P<key>[A-Za-z][A-Za-z0-9 _.\-]{0,29}?)(?P=q)[*_]{0,2}[ \t]*"
    r"(?:=>|:=|[:=：])[*_]{0,2}[ \t]*(?P<value>[^\n]{1,200})",
    re.MULTILINE,
)
_NEXT_FIELD = re.compile(
    r"[ \t]*(?:[}\]|]|[,;][ \t]*[\"']?[A-Za-z][A-Za-z0-9 _.\-]{0,29}[\"']?[ \t]*(?:=>|:=|[:=])"
    r"|[ \t]{3})"
)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}
_WRAP = " \t*_~`/|[](){}<>«»“”‘’\"',;."
_LINE = re.compile(r"^[^\n]*$", re.MULTILINE)
_RULE_ROW = re.compile(r"[ \t|:\-+]+")
_SEPARATORS = ("|", "\t", ";", ",")
_LABEL = re.compile(r"[ \t*_`\"']*[A-Za-z][A-Za-z0-9 _.#/\-]{0,29}[ \t*_`\"']*")
"""A header cell: a short label of a few words, no sentence."""


@dataclass(frozen=True)
class Field:
    """A known key and its value, as offsets into the text (the value trimmed of markup)."""

    key: str
    """The key normalized: lower case, letters and digits only."""
    key_start: int
    key_end: int
    start: int
    end: int
    stop: int
    """Where the value's line (at most 200 characters of it) ends."""

    @property
    def type(self) -> str:
        """The type of the value."""
        return KEYS[self.key]

    @property
    def level(self) -> int:
        """How sure the key is: 2 a name key, 1 ``name`` itself, 0 a key of many things."""
        return _LEVEL.get(self.key, 2)


def normal_key(key: str) -> str:
    """A key as ``KEYS`` spells it ("Full Name", "full_name", "fullName" -> "fullname")."""
    return re.sub(r"[^a-z0-9]", "", key.casefold())


@functools.lru_cache(maxsize=32)
def fields(text: str) -> tuple[Field, ...]:
    """Every key/value field of ``text`` whose key ``KEYS`` knows, in reading order."""
    found: list[Field] = []
    position = 0
    while match := _FIELD.search(text, position):
        start, end = _value_bounds(text, match.start("value"), match.end("value"))
        position = max(end, match.start("value"))
        key = normal_key(match.group("key"))
        if key in KEYS and end > start:
            found.append(Field(key, *match.span("key"), start, end, match.end("value")))
    return tuple(found)


def table_fields(text: str) -> Iterator[Field]:
    """The cells of tables under a header cell ``KEYS`` knows, one line a row.

    Pipe tables with or without their outer bars ("| Name | Phone |", "Name | Phone"), and
    rows pasted from a spreadsheet or a CSV file, their cells between tabs, semicolons or
    commas (a quoted cell may hold its separator). A header row has two cells or more, each a
    short label, one of them a key; the rows under it have as many cells. A row of dashes
    under the header ("|---|---|") is no row, nor is a row of totals ("Total,,,,3 rows").
    """
    header: list[tuple[str, int, int]] | None = None
    separator = ""
    for line in _LINE.finditer(text):
        start, end = line.span()
        if header is not None:
            cells = _split(text, start, end, separator)
            if len(cells) == len(header) and not _RULE_ROW.fullmatch(line.group()):
                if _total_row(text, cells):
                    continue  # "Total,,,,3 rows": a sum under the name column, no person
                for (key, key_start, key_end), (a, b) in zip(header, cells, strict=True):
                    if key in KEYS and b > a:
                        yield Field(key, key_start, key_end, a, b, b)
                continue
            if _RULE_ROW.fullmatch(line.group()) and separator == "|":
                continue
            header = None  # the table ended: this line may head the next one
        header, separator = _header(text, start, end)


_TOTALS = frozenset("total totals subtotal sum grandtotal average avg mean count".split())


def _total_row(text: str, cells: list[tuple[int, int]]) -> bool:
    """Whether a row's first filled cell names it a total ("Total", "Grand total", "Sum")."""
    first = next((text[a:b] for a, b in cells if b > a), "")
    return normal_key(first) in _TOTALS


def _header(text: str, start: int, end: int) -> tuple[list[tuple[str, int, int]] | None, str]:
    """A line's header cells and their separator, if the line heads a table."""
    line = text[start:end]
    for separator in _SEPARATORS:
        if separator not in line:
            continue
        cells = _split(text, start, end, separator)
        labels = [text[a:b] for a, b in cells]
        if (
            len(cells) >= 2
            and all(_LABEL.fullmatch(label) for label in labels)
            and any(normal_key(label) in KEYS for label in labels)
        ):
            return [(normal_key(text[a:b]), a, b) for a, b in cells], separator
    return None, ""


def _split(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """The spans of a row's cells between ``separator``s, trimmed of blanks and markup.

    A cell in double quotes may hold the separator; a pipe row's outer bars open and close it.
    """
    if separator == "|":
        bars = [i for i in range(start, end) if text[i] == "|"]
        inner = text[start:end].strip()
        edges = [start - 1, *bars, end]
        if inner.startswith("|"):
            edges = edges[1:]
        if inner.endswith("|") and len(edges) > 1:
            edges = edges[:-1]
        pieces = list(itertools.pairwise(edges))
    else:
        pieces, at, quoted = [], start - 1, False
        for i in range(start, end):
            if text[i] == '"':
                quoted = not quoted
            elif text[i] == separator and not quoted:
                pieces.append((at, i))
                at = i
        pieces.append((at, end))
    cells = []
    for a, b in pieces:
        a += 1
        while a < b and text[a] in _WRAP:
            a += 1
        while b > a and text[b - 1] in _WRAP:
            b -= 1
        cells.append((a, b))
    return cells


def _value_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where a value ends: its closing quote, or the next field, then trimmed of markup."""
    opening = text[start]
    closing = _QUOTES.get(opening)
    if closing is not None:
        close = text.find(closing, start + 1, end)
        if close > start:
            return start + 1, close
    nxt = _NEXT_FIELD.search(text, start + 1, end)
    end = nxt.start() if nxt else end
    while start < end and text[start] in _WRAP:
        start += 1
    while end > start and text[end - 1] in _WRAP:
        end -= 1
    return start, end


def outside_keys(text: str, start: int, end: int) -> tuple[int, int]:
    """A name span cut before a known key it runs into (a name, a break, "• Phone:")."""
    found = fields(text)
    starts = _key_starts(text)
    i = bisect.bisect_left(starts, end) - 1
    while i >= 0 and found[i].key_end > start:  # keys are disjoint and in order
        f = found[i]
        if f.key_start <= start:
            start = max(start, f.key_end)
        else:
            end = f.key_start
        i -= 1
    while start < end and text[start] in _WRAP + "\n•·‣◦▪-:=":
        start += 1
    while end > start and text[end - 1] in _WRAP + "\n•·‣◦▪-:=":
        end -= 1
    return start, end


@functools.lru_cache(maxsize=32)
def _key_starts(text: str) -> tuple[int, ...]:
    return tuple(f.key_start for f in fields(text))
