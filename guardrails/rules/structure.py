"""Structured text as context: the key a value sits under says what the value is.

Chat carries records pasted whole: JSON and YAML (``"name": "Ruby Hope"``, ``full_name: Grant
Will``), form lines and bullets (``• Name: Tariq``, ``- Phone: 0171 2345678``), e-mail headers
(``To: Amber Christian <amber@acme.io>``, a quoted display name before an address anywhere,
a Lotus Notes address ``Robert Bryngelson@AZURIX``), tables under a header row (``| Name |
Phone |``) and staff lists (``Ruby Grant — Head of Sales``). A small NER model reads such a value as
loose words: "Ruby" a place, "Will" a verb, a name that runs on into the next line's key.
``guardrails.text.fields`` finds the fields (a key and its value, or a table cell under its
header) whose key names a type; ``StructureReader`` makes the value a finding of that type,
whole, above the NER model's score, when it has the type's shape (a name, a date, a phone
or licence number, an address). E-mail headers give the display names before each
``<address>``; a line of a name, a dash and a job title gives the name, and so does a name
between slashes, brackets or guillemets when the name lexicon knows it. Every pattern reads
a bounded window at each position, so all of it is linear in the text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

from guardrails.rules import licences
from guardrails.rules.names import COMPANY_WORDS, ROLE_WORDS, TEAM_WORDS
from guardrails.text.fields import HEADERS, Field, fields, table_fields

WordCheck = Callable[[str], bool]

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
_SENDER_WORDS = COMPANY_WORDS | TEAM_WORDS
"""Words of a display name that is a company, a team or a service ("Acme Support")."""
_ROLE_LINE = re.compile(
    r"^[ \t]*(?:[-*•·‣◦▪>+][ \t]*|\d{1,2}[.)][ \t]+)?[*_]{0,2}"
    r"(?P<name>[^\W\d_][\w'’.\-]*(?:[ \t]+[^\W\d_][\w'’.\-]*){0,3})[*_]{0,2}"
    r"[ \t]+(?:[—–]|--?|\|)[ \t]+(?P<role>[^\n]{1,80})",
    re.MULTILINE,
)
_MARKED_NAME = r"[^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*){0,2}"
_MARKED = re.compile(
    rf"(?<![\w/|\[{{«])(?:/(?P<a>{_MARKED_NAME})/|\[(?P<b>{_MARKED_NAME})\]|{{(?P<c>{_MARKED_NAME})}}"
    rf"|«(?P<d>{_MARKED_NAME})»)(?![\w/|\]}}»])"
)
"""A name between slashes, brackets, braces or guillemets ("/Faina Yefremova/")."""
_QUOTED_SENDER = re.compile(r"\"(?P<name>[^\"<>@\n]{1,60})\"[ \t]*<[^<>\s@]+@[^<>\s]+>")
"""A quoted display name before an address, anywhere ("\"Townsend, George\" <g@x.org>")."""
_NOTES_ADDRESS = re.compile(
    r"(?<![\w.@/])(?P<name>[A-Z][a-z]+(?:[ \t]+[A-Z]\.?)?[ \t]+[A-Z][A-Za-z'’\-]+)"
    r"(?:/[A-Z]{2,}){0,3}@[A-Z][A-Z0-9&\-]+(?![\w.@])"
)
"""A Lotus Notes address: a name, then "@" and the organization in capitals ("Robert
Bryngelson@AZURIX", "Mark Taylor/HOU/ECT@ECT")."""
NEEDS = re.compile(r"[:=：|/\[{«<@\s]")
"""What a text with structure contains: a key's colon or equals sign, a table's bar, a
marked name's slash, bracket, brace or guillemet, an address's angle bracket or at sign, or
a role line's spaces."""


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
            if f.key in HEADERS and _is_header(text, f):
                found += [("PERSON", a, b, 0.9) for a, b in self._header_names(text, f)]
            elif f.key not in HEADERS and (span := self._value_span(text, f)) is not None:
                found.append((f.type, *span, 0.9))
        found += [("PERSON", a, b, 0.86) for a, b in self._role_names(text)]
        for sender in _QUOTED_SENDER.finditer(text):  # on a header line or anywhere else
            if (span := self._display_name(sender, "name")) is not None:
                found.append(("PERSON", *span, 0.9))
        for notes in _NOTES_ADDRESS.finditer(text):
            if self._person(notes.group("name"), 1):
                found.append(("PERSON", *notes.span("name"), 0.9))
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
            if entry.group("name") and (span := self._display_name(entry, "name")) is not None:
                yield span  # a quoted name is ``_QUOTED_SENDER``'s, wherever it stands
            comma = _LIST_SEPARATOR.match(text, entry.end(), line_end)
            if comma is None:
                break
            position = comma.end()

    def _display_name(self, entry: re.Match[str], group: str) -> tuple[int, int] | None:
        """The span of the display name in ``group`` if it names a person, not a team."""
        name = entry.group(group).strip()
        words = {w.casefold() for w in _NAME_WORD.findall(name)}
        if not self._person(name, 2) or words & _SENDER_WORDS:
            return None
        start = entry.start(group) + entry.group(group).index(name)
        return start, start + len(name)

    def _role_names(self, text: str) -> Iterator[tuple[int, int]]:
        """Names on lines of a name, a dash and a role ("Ruby Grant — Head of Sales")."""
        for line in _ROLE_LINE.finditer(text):
            role = {w.casefold() for w in re.findall(r"[^\W\d_]+", line.group("role"))}
            name = line.group("name")
            if role & ROLE_WORDS and self._person(name, 2 if " " in name else 0):
                yield line.start("name"), line.end("name")


def _is_header(text: str, f: Field) -> bool:
    """Whether a field is an e-mail header with addresses (``To: Name <a@b.c>``)."""
    return _ADDRESS.search(text, f.key_end, f.stop) is not None
