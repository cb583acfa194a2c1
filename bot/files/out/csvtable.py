"""CSV and TSV files field by field: each field redacted alone, under its column's header.

The fields are found in the decoded text by one linear pass (RFC 4180 quoting: a quoted field
may hold the delimiter, line breaks and doubled quotes), keeping where each field's content
lies, so a placeholder is written inside its own field and the rest of the file, quoting and
line ends included, is kept byte for byte. A placeholder (``<PERSON_1>``) holds no delimiter,
quote or line break, so no row gains or loses a column.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.files.out.splice import Edit

DELIMITERS = ",;\t|"
_SAMPLE = 16 * 1024


@dataclass(frozen=True, slots=True)
class Field:
    """One field: its value (quotes undone) and where each value character lies in the text.

    Attributes:
        row: the field's row, from 0 (the header row).
        column: its column, from 0.
        value: the field's value.
        start: where its content starts in the text (after an opening quote).
        doubled: value offsets of quotes written doubled in the text (``""``).
    """

    row: int
    column: int
    value: str
    start: int
    doubled: tuple[int, ...] = ()

    def raw(self, offset: int) -> int:
        """The text offset of value offset ``offset`` (doubled quotes take two characters)."""
        return self.start + offset + sum(1 for d in self.doubled if d < offset)


def delimiter(text: str, suffix: str) -> str:
    """A table's delimiter: a tab for ``.tsv``, else the one ``csv.Sniffer`` finds (``,``)."""
    if suffix == ".tsv":
        return "\t"
    try:
        return csv.Sniffer().sniff(text[:_SAMPLE], delimiters=DELIMITERS).delimiter
    except csv.Error:
        return ","


def fields(text: str, sep: str) -> Iterator[Field]:
    """Every field of ``text``, row by row; an empty last line is no row."""
    row = column = 0
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            field, i = _quoted(text, i, sep, row, column)
        else:
            end = i
            while end < n and text[end] not in (sep, "\n", "\r"):
                end += 1
            field, i = Field(row, column, text[i:end], i), end
        yield field
        if i < n and text[i] == sep:
            column, i = column + 1, i + 1
            if i == n:
                yield Field(row, column, "", i)
        elif i < n:
            i += 2 if text.startswith("\r\n", i) else 1
            row, column = row + 1, 0


def _quoted(text: str, i: int, sep: str, row: int, column: int) -> tuple[Field, int]:
    """The quoted field at ``text[i]`` and where it ends; an unclosed quote runs to the end."""
    start, j, length = i + 1, i + 1, 0
    parts: list[str] = []
    doubled: list[int] = []
    while True:
        close = text.find('"', j)
        if close < 0:
            parts.append(text[j:])
            return Field(row, column, "".join(parts), start, tuple(doubled)), len(text)
        parts.append(text[j:close])
        length += close - j
        if text.startswith('""', close):
            doubled.append(length)
            parts.append('"')
            length += 1
            j = close + 2
            continue
        end = close + 1
        while end < len(text) and text[end] not in (sep, "\n", "\r"):  # stray text after the quote
            end += 1
        return Field(row, column, "".join(parts), start, tuple(doubled)), end


def headers(table: Sequence[Field]) -> dict[int, str]:
    """The header row's value by column."""
    return {f.column: f.value for f in table if f.row == 0}


def edited(text: str, table: Sequence[Field], edits: Mapping[int, Sequence[Edit]]) -> str:
    """``text`` with each field's edits (by the field's index in ``table``) made in place."""
    out: list[str] = []
    position = 0
    for index in sorted(edits):
        field = table[index]
        for s, e, placeholder in edits[index]:
            a, b = field.raw(s), field.raw(e - 1) + 1
            if e - 1 in field.doubled:
                b += 1
            out += [text[position:a], placeholder]
            position = b
    out.append(text[position:])
    return "".join(out)
