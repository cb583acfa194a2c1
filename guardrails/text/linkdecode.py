"""Link targets decoded for analysis: percent escapes, and ``+`` for a space in a query.

``guardrails.text.normalize`` writes a link's target through ``decode_target``, so the analyzer
reads ``?phone=+14155550199&name=Jane Doe&email=a@b.co`` where the user wrote
``?phone=%2B14155550199&name=Jane+Doe&email=a%40b.co``; each decoded character maps back to
its escape, so a detection replaces exactly what the user wrote. An escape of a URL
delimiter (``%2F``, ``%3F``, ``%26``, ...) stays as written, so decoding never changes where a
path segment or a parameter ends. Each parameter's decoded value is recorded with its key
(folded to lower-case letters and digits): ``guardrails.rules.urls.field_type`` says what it is.
"""

from __future__ import annotations

import codecs
import re
from typing import Protocol

_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_PARAM = re.compile(r"[^&;#]+")
_KEY_NOISE = re.compile(r"[^a-z0-9]")
_KEEP_ESCAPED = frozenset("/?#&;=%\ufffd")


class Builder(Protocol):
    """What decoding needs of ``guardrails.text.normalize``'s text builder."""

    @property
    def source(self) -> str:
        """The text as the user wrote it."""

    @property
    def length(self) -> int:
        """Characters of analysis text written so far."""

    def copy(self, start: int, end: int) -> None:
        """Write ``source[start:end]`` as is."""

    def stand_in(self, text: str, start: int, end: int) -> None:
        """Write ``text`` for ``source[start:end]``."""

    def add_field(self, key: str, start: int, end: int) -> None:
        """Record a parameter's value: its key, its analysis span."""


def decode_target(b: Builder, start: int, end: int) -> None:
    """Copy a link target decoded: percent escapes, and ``+`` for a space in the query.

    Each parameter's decoded value is recorded with its key (``Normalized.fields``).
    """
    query = b.source.find("?", start, end)
    if query < 0:
        _decoded(b, start, end, plus=False)
        return
    _decoded(b, start, query + 1, plus=False)
    position = query + 1
    for param in _PARAM.finditer(b.source, position, end):
        equals = b.source.find("=", param.start(), param.end())
        if equals < 0:
            continue
        _decoded(b, position, equals + 1, plus=True)
        value = b.length
        _decoded(b, equals + 1, param.end(), plus=True)
        key = _KEY_NOISE.sub("", b.source[param.start() : equals].lower())
        if b.length > value:
            b.add_field(key, value, b.length)
        position = param.end()
    _decoded(b, position, end, plus=True)


def _decoded(b: Builder, start: int, end: int, *, plus: bool) -> None:
    """Copy with percent escapes decoded (and ``+`` as a space when ``plus``)."""
    position = start
    for run in _PERCENT.finditer(b.source, start, end):
        _plain(b, position, run.start(), plus=plus)
        _percent(b, run.start(), run.end())
        position = run.end()
    _plain(b, position, end, plus=plus)


def _plain(b: Builder, start: int, end: int, *, plus: bool) -> None:
    position = start
    while plus and (found := b.source.find("+", position, end)) >= 0:
        b.copy(position, found)
        b.stand_in(" ", found, found + 1)
        position = found + 1
    b.copy(position, end)


def _percent(b: Builder, start: int, end: int) -> None:
    """A run of ``%XX`` escapes as the UTF-8 characters they encode.

    Each character maps to its escapes; an escape of a URL delimiter, or of no
    character, stays as written.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    first = start
    for escape in range(start, end, 3):
        chars = decoder.decode(bytes([int(b.source[escape + 1 : escape + 3], 16)]))
        if not chars:
            continue  # inside a multi-byte character
        if len(chars) == 1 and chars not in _KEEP_ESCAPED and chars.isprintable():
            b.stand_in(chars, first, escape + 3)
        else:
            b.copy(first, escape + 3)
        first = escape + 3
    b.copy(first, end)
