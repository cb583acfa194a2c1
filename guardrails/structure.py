"""Structured text as context: the key a value sits under says what the value is.

Chat carries records pasted whole: JSON and YAML (``"name": "Ruby Hope"``, ``full_name: Grant
Will``), form lines and bullets (``• Name: Tariq``, ``- Phone: 0171 2345678``), e-mail headers
(``To: Amber Christian <amber@acme.io>``), tables under a header row (``| Name | Phone |``)
and staff lists (``Ruby Grant — Head of Sales``). A small NER model reads such a value as
loose words: "Ruby" a place, "Will" a verb, a name that runs on into the next line's key. One
reader finds the fields (a key, a separator, a value up to the line's end, its closing quote
or the next field; or a table cell under its header) and looks the key up in ``KEYS``; the
value then is a finding of the key's type, whole, above the NER model's score, when it has
that type's shape (a name, a date, a number). E-mail headers give the display names before
each ``<address>``; a line of a name, a dash and a job title gives the name, and so does a
name between slashes, brackets or guillemets when the name lexicon knows it.

Keys are no values: ``outside_keys`` cuts a name span the NER model ran into a known key of
the next line ("Tariq Oyelaran", a line break, "• Phone:"). Everything here is linear: each
pattern reads a bounded window at each position.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from guardrails import licences
from guardrails.names import COMPANY_WORDS

WordCheck = Callable[[str], bool]

_PERSON_STRONG = """fullname firstname lastname surname givenname familyname forename
    middlename maidenname birthname legalname preferredname displayname nickname patient
    patientname contactname customername clientname employeename nextofkin emergencycontact
    spouse husband wife mother father guardian parent accountholder cardholder
    beneficiary payee signedby apellido apellidos prenom vorname nachname cognome""".split()
_PERSON_NAME = "name nombre nom nome accountname holder".split()
_PERSON_WEAK = """owner assignee reporter author contact customer client employee manager
    member attendee attendees participant requester requestedby approvedby preparedby
    createdby assignedto doctor physician nurse tenant landlord recipient sender""".split()
_HEADERS = "to from cc bcc replyto sender recipient recipients attendees".split()
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
    **{k: "PERSON" for k in _PERSON_STRONG + _PERSON_NAME + _PERSON_WEAK + _HEADERS},
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
_NULL = frozenset("null none nil n/a na unknown tbd tba true false yes no - ? redacted".split())
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’.\-](?=[^\W\d_])|\.(?=\s|$))*")
_NAME_VALUE = re.compile(
    r"[^\W\d_][^\W\d_'’.\-]*(?:['’.\-][^\W\d_]+)*\.?(?:(?:[ \t]+|,[ \t]*)[^\W\d_]"
    r"[^\W\d_'’.\-]*(?:['’.\-][^\W\d_]+)*\.?){0,4}"
)
_PHONE_VALUE = re.compile(r"\+?[\d(][\d ()./\-]{4,22}\d(?:[ \t]*(?:x|ext\.?)[ \t]*\d{1,6})?")
_LICENCE_VALUE = re.compile(
    r"(?=[A-Za-z0-9\- ]{0,24}\d)[A-Za-z0-9](?:[A-Za-z0-9]|[ \-](?=\w)){3,23}"
)
_DATE_VALUE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/. ]\d{1,2}[-/. ](?:\d{4}|\d{2})|\d{8}"
    r"|\d{1,2}(?:st|nd|rd|th)?[ \-/.]?[A-Za-z]{3,9}\.?,?[ \-/.]?\d{2,4}"
    r"|[A-Za-z]{3,9}\.?[ \-]\d{1,2}(?:st|nd|rd|th)?,?[ \-]\d{2,4}"
)
_ADDRESS_VALUE = re.compile(r"[^\n]*[^\W_][^\n]*")
_HEADER_ENTRY = re.compile(
    r"[ \t]*(?:\"(?P<quoted>[^\"<>@\n]{1,60})\"|(?P<name>[^\s<>\",;@][^<>\",;@\n]{0,58}?))?"
    r"[ \t]*<[^<>\s@]+@[^<>\s]+>"
)
_LIST_SEPARATOR = re.compile(r"[ \t]*[,;]")
_ADDRESS = re.compile(r"<[^<>\s@]+@[^<>\s]+>")
_SENDER_WORDS = COMPANY_WORDS | frozenset(
    "support billing sales notifications notification noreply no-reply info help helpdesk"
    " admin news newsletter alerts alert bot team via updates service desk".split()
)
"""Words of a display name that is a team or a service ("Acme Support"), not a person."""
_ROLE_LINE = re.compile(
    r"^[ \t]*(?:[-*•·‣◦▪>+][ \t]*|\d{1,2}[.)][ \t]+)?[*_]{0,2}"
    r"(?P<name>[^\W\d_][\w'’.\-]*(?:[ \t]+[^\W\d_][\w'’.\-]*){0,3})[*_]{0,2}"
    r"[ \t]+(?:[—–]|--?|\|)[ \t]+(?P<role>[^\n]{1,80})",
    re.MULTILINE,
)
_ROLE_WORDS = frozenset(
    """engineer manager lead head director designer developer ceo cto cfo coo cio ciso vp
    svp evp president founder cofounder co-founder intern analyst consultant architect
    administrator recruiter scientist researcher editor accountant assistant coordinator
    specialist officer chair chairman chairwoman secretary treasurer contractor nurse doctor
    physician teacher professor student counsel attorney lawyer advisor mentor pm sre
    programmer owner""".split()
)
"""Job titles: a capitalized name before a dash and one of these is a person."""
_MARKED_NAME = r"[^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*){0,2}"
_MARKED = re.compile(
    rf"(?<![\w/|\[{{«])(?:/(?P<a>{_MARKED_NAME})/|\[(?P<b>{_MARKED_NAME})\]|{{(?P<c>{_MARKED_NAME})}}"
    rf"|«(?P<d>{_MARKED_NAME})»)(?![\w/|\]}}»])"
)
"""A name between slashes, brackets, braces or guillemets ("/Faina Yefremova/")."""
_TABLE_ROW = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*$", re.MULTILINE)
_RULE_ROW = re.compile(r"[ \t|:\-]+")


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
    """The cells of pipe tables under a header cell ``KEYS`` knows ("| Name | Phone |")."""
    header: list[tuple[str, int, int]] | None = None
    previous_end = -2
    for row in _TABLE_ROW.finditer(text):
        if row.start() != previous_end + 1:
            header = None  # a new table
        previous_end = row.end()
        cells = _cells(text, row.start(), row.end())
        if header is None:
            header = [(normal_key(text[a:b]), a, b) for a, b in cells]
        elif not _RULE_ROW.fullmatch(row.group()):
            for (key, key_start, key_end), (a, b) in zip(header, cells, strict=False):
                if key in KEYS and b > a:
                    yield Field(key, key_start, key_end, a, b, b)


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of a table row's cells, trimmed of blanks and markup."""
    bars = [i for i in range(start, end) if text[i] == "|"]
    cells = []
    for a, b in itertools.pairwise(bars):
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


class StructureReader:
    """Values the structure of a text types (see the module docstring); one per policy.

    Args:
        english: whether a word is English rather than a name (the name lexicon's check).
        name_word: whether a word is a first or last name and no English word.
    """

    def __init__(self, english: WordCheck, name_word: WordCheck) -> None:
        self._english = english
        self._name_word = name_word

    def find(self, entity_type: str, text: str) -> Iterator[tuple[int, int, float]]:
        """``(start, end, score)`` of each value of ``entity_type`` the structure gives."""
        for found in self._all(text):
            if found[0] == entity_type:
                yield found[1:]

    @functools.lru_cache(maxsize=32)  # noqa: B019  (one reader per policy, a few texts)
    def _all(self, text: str) -> tuple[tuple[str, int, int, float], ...]:
        found: list[tuple[str, int, int, float]] = []
        for f in fields(text):
            if f.key in _HEADERS and _is_header(text, f):
                found += [("PERSON", a, b, 0.9) for a, b in self._header_names(text, f)]
            elif f.key not in _HEADERS and (span := self._value_span(text, f)) is not None:
                found.append((f.type, *span, 0.9))
        found += [("PERSON", a, b, 0.86) for a, b in self._role_names(text)]
        for marked in _MARKED.finditer(text):
            group = next(g for g in "abcd" if marked.group(g) is not None)
            if self._person(marked.group(group), 0):
                found.append(("PERSON", *marked.span(group), 0.86))
        for f in table_fields(text):
            if (span := self._value_span(text, f)) is not None:
                found.append((f.type, *span, 0.9))
        return tuple(found)

    def _value_span(self, text: str, f: Field) -> tuple[int, int] | None:
        """The value's span if it has its type's shape (a name, a date, a number...)."""
        value = text[f.start : f.end]
        if value.casefold() in _NULL or value.startswith("<") and value.endswith(">"):
            return None
        if f.type == "DRIVER_LICENSE":
            return self._licence_span(text, f)
        if f.type == "PERSON":
            if "@" in value or not _NAME_VALUE.fullmatch(value):
                return None
            return (f.start, f.end) if self._person(value, f.level) else None
        pattern = {
            "PHONE_NUMBER": _PHONE_VALUE,
            "DATE_OF_BIRTH": _DATE_VALUE,
            "LOCATION": _ADDRESS_VALUE,
        }[str(f.type)]
        if pattern.fullmatch(value) is None or f.type == "LOCATION" and len(value) > 120:
            return None
        digits = sum(c.isdigit() for c in value)
        if f.type == "PHONE_NUMBER" and digits < 6:
            return None
        if f.type == "LOCATION" and not (digits or re.search(r"\b[^\W\d_a-z]", value)):
            return None  # "see above"
        return f.start, f.end

    @staticmethod
    def _licence_span(text: str, f: Field) -> tuple[int, int] | None:
        """A licence number after its state, as ``licences`` accepts it after a licence word."""
        state = licences.STATE_PREFIX.match(text, f.start, f.end)
        start = state.end() if state else f.start
        code = licences.state_code(state.group("state")) if state else None
        value = text[start : f.end]
        if not _LICENCE_VALUE.fullmatch(value):
            return None
        return (start, f.end) if licences.accepted(value, code, strong=f.level > 0) else None

    def _person(self, value: str, level: int) -> bool:
        """Whether a value can be a person's name, by how sure its key is (``Field.level``).

        A name key (2): a name of the lexicon, a word English does not know, or capitals
        ("Grant Will"); lower-case English words ("hope") are left to the NER model. The key
        ``name`` (1), which also names services and build steps: a name of the lexicon, or
        every word capitalized. A key of many things (0: ``owner``), markup and role lines:
        a name of the lexicon, or capitalized words English does not know.
        """
        words = _NAME_WORD.findall(value)
        if not words or len(words) > 5:
            return False
        if any(self._name_word(w.rstrip(".")) for w in words):
            return any(w[0].isupper() for w in words) or level > 0
        unknown = any(not self._english(w.rstrip(".")) for w in words)
        capitals = all(w[0].isupper() for w in words)
        if level == 2:
            return unknown or capitals
        return capitals and (level == 1 or unknown)

    def _header_names(self, text: str, f: Field) -> Iterator[tuple[int, int]]:
        """The display names of an e-mail header's addresses ("Amber Christian <a@b.c>")."""
        line_end = f.stop
        colon = text.find(":", f.key_end, line_end)
        position = colon + 1 if colon >= 0 else f.start
        while entry := _HEADER_ENTRY.match(text, position, line_end):
            group = "quoted" if entry.group("quoted") else "name"
            name = (entry.group(group) or "").strip()
            words = {w.casefold() for w in _NAME_WORD.findall(name)}
            if self._person(name, 2) and not words & _SENDER_WORDS:
                start = entry.start(group) + entry.group(group).index(name)
                yield start, start + len(name)
            comma = _LIST_SEPARATOR.match(text, entry.end(), line_end)
            if comma is None:
                break
            position = comma.end()

    def _role_names(self, text: str) -> Iterator[tuple[int, int]]:
        """Names on lines of a name, a dash and a role ("Ruby Grant — Head of Sales")."""
        for line in _ROLE_LINE.finditer(text):
            role = {w.casefold() for w in re.findall(r"[^\W\d_]+", line.group("role"))}
            name = line.group("name")
            if role & _ROLE_WORDS and self._person(name, 2 if " " in name else 0):
                yield line.start("name"), line.end("name")


def _is_header(text: str, f: Field) -> bool:
    """Whether a field is an e-mail header with addresses (``To: Name <a@b.c>``)."""
    return _ADDRESS.search(text, f.key_end, f.stop) is not None


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
