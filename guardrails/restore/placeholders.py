r"""The placeholder grammar and the streaming restorer.

A placeholder is ``<TYPE_n>``: ``TYPE`` an entity type (``PERSON``, ``EMAIL_ADDRESS``) and ``n``
its number within the thread, from 1. The vault only ever issues that canonical form, but models
do not always copy it verbatim, so the reading side accepts every form below (one grammar, built
by ``grammar``; ``_PARTIAL_RE`` and ``_could_start_bare`` describe its prefixes and must change
with it):

```
<PERSON_1>  <person_1>  < PERSON_1 >  <Person_01>     angle brackets, any case, spaces inside
<<PERSON_1>>  [PERSON_1]                              doubled angle brackets, square brackets
PERSON_1  EMAIL\_ADDRESS\_1                           bare, upper case, known types only
`<PERSON_1>`  [<PERSON_1>](mailto:<EMAIL_ADDRESS_1>)  inside code and links: only the
                                                      placeholder is replaced, the markup stays
<PERSON_1>'s                                          possessive, see below
```

Decisions: a bare ``TYPE_n`` is only read as a placeholder for a known entity type in upper
case, so ``person_1`` in a code sample or ``COVID_19`` stay text. ``[PERSON_1](url)`` is a markdown
link label: the brackets stay and only the name inside is replaced. In inline code the value
is put inside the code span (the backticks stay), so the user sees what the model formatted.
Possessives follow the usual (Chicago/Oxford) rule for singular names: ``'s`` is kept after a
final s ("James's"); only a value that already ends in an apostrophe-s ("McDonald's") does not
get a second one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping
from typing import Final

from bot.core.types import Restoration

TYPE_RE: Final = re.compile(r"[A-Z][A-Z0-9_]{0,39}")
"""A well-formed entity type, as the vault stores it."""

PLACEHOLDER_RE: Final = re.compile(r"< {0,3}([A-Za-z][A-Za-z0-9_]{0,39})_(\d{1,6}) {0,3}>")
"""The angle-bracket form; groups are the type and the number (see ``grammar`` for all forms)."""

KNOWN_TYPES: Final = frozenset(
    {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "LOCATION",
        "CREDIT_CARD",
        "US_SSN",
        "IBAN_CODE",
        "IP_ADDRESS",
        "MAC_ADDRESS",
        "CRYPTO",
        "US_DRIVER_LICENSE",
        "US_PASSPORT",
        "US_BANK_NUMBER",
        "DATE_TIME",
        "DATE_OF_BIRTH",
        "NRP",
        "URL",
        "USER",
        "MEDICAL_LICENSE",
        "DRIVER_LICENSE",
        "AGE",
        "UK_NINO",
        "USERNAME",
        "PASSWORD",
        "SECRET",
        "ID_NUMBER",
    }
)
"""Entity types whose bare form (``PERSON_1``) is read as a placeholder."""

TYPED: Final = "PLACEHOLDER"
"""The entity type of placeholder-shaped text a user typed (``who is <PERSON_1>?``).

Only the guardrail mints placeholders: typed ones are neutralized before analysis, each kept
in the vault as typed under a placeholder of this type, so the model sees ``<PLACEHOLDER_1>``
(never the thread's ``<PERSON_1>``) and an answer that quotes it shows the author what they
typed, never the value the thread's ``<PERSON_1>`` stands for.
"""

NEUTRAL: Final = "[redacted]"
"""Shown instead of a placeholder the thread never issued."""

_BODY = r" {0,3}[A-Za-z](?:[A-Za-z0-9]|\\?_){0,39}?\\?_\d{1,6} {0,3}"
_INNER_RE: Final = re.compile(r" *([A-Za-z](?:[A-Za-z0-9]|\\?_)*?)\\?_(\d+) *")
_POSSESSIVE = r"(?P<poss>['\u2019]s(?![A-Za-z0-9]))?"
_PARTIAL_RE: Final = re.compile(r"(?:<<?|\[) {0,3}(?:[A-Za-z][A-Za-z0-9_\\]{0,60} {0,3}>?)?")
"""What a stream may end with while a bracketed placeholder is still being written."""
_MAX_PARTIAL: Final = 80  # longer than any partial the grammar accepts
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")


@functools.lru_cache(maxsize=64)
def grammar(known_types: frozenset[str] = KNOWN_TYPES) -> re.Pattern[str]:
    """The tolerant placeholder pattern; ``group("ph")`` is the placeholder without possessive.

    Args:
        known_types: entity types whose bare form (``PERSON_1``) counts as a placeholder.
    """
    bare_types = "|".join(
        t.replace("_", r"\\?_") for t in sorted(known_types, key=len, reverse=True)
    )
    bare = rf"(?<![A-Za-z0-9_])(?:{bare_types})\\?_\d{{1,6}}(?![A-Za-z0-9_])"
    forms = rf"<<{_BODY}>>|<{_BODY}>|\[{_BODY}\](?!\()|{bare}"
    return re.compile(rf"(?P<ph>{forms}){_POSSESSIVE}")


def format_placeholder(entity_type: str, number: int) -> str:
    """The canonical placeholder of the ``number``-th value of a type.

    Raises:
        ValueError: the type is not ``[A-Z][A-Z0-9_]*`` or the number is below 1.
    """
    if not TYPE_RE.fullmatch(entity_type) or number < 1:
        raise ValueError("malformed placeholder parts")
    return f"<{entity_type}_{number}>"


def canonical(match: re.Match[str]) -> str:
    """The canonical form (``<PERSON_1>``) of a tolerated match (``< person_01 >``)."""
    text = match.group("ph") if "ph" in match.re.groupindex else match.group(0)
    inner = _INNER_RE.search(text.strip("<>[]"))
    if inner is None:  # pragma: no cover - the grammar only matches bodies _INNER_RE reads
        raise ValueError("not a placeholder")
    entity_type = inner.group(1).replace("\\", "").upper()
    return f"<{entity_type}_{int(inner.group(2))}>"


def placeholder_type(placeholder: str) -> str:
    """The entity type of a canonical placeholder (``<EMAIL_ADDRESS_2>`` -> ``EMAIL_ADDRESS``)."""
    found = _type_of(placeholder)
    if found is None:
        raise ValueError("not a placeholder")
    return found


@functools.lru_cache(maxsize=4096)
def _type_of(placeholder: str) -> str | None:
    """``placeholder_type``, ``None`` for no placeholder; remembered.

    Each turn reads the types of every placeholder its thread's vault holds (hundreds in an
    old thread).
    """
    match = PLACEHOLDER_RE.fullmatch(placeholder)
    return None if match is None else match.group(1).upper()


def find_placeholders(
    text: str, known_types: Iterable[str] = KNOWN_TYPES
) -> Iterator[re.Match[str]]:
    """Every placeholder-shaped span of a text in any accepted form, in reading order."""
    return grammar(frozenset(known_types)).finditer(text)


def _could_start_bare(buffer: str, start: int, known: frozenset[str]) -> bool:
    """Whether ``buffer[start:]`` may still grow into a bare placeholder of a known type."""
    if start > 0 and _WORD_CHAR.match(buffer, start - 1):
        return False
    tail = buffer[start:].replace("\\", "")
    head = tail.rstrip("0123456789")
    if not head or not re.fullmatch(r"[A-Z_]+", head):
        return False
    if head != tail:  # digits already written: TYPE_ must be complete
        return head[:-1] in known and head.endswith("_")
    return any(f"{t}_".startswith(head) for t in known)


def _partial_start(buffer: str, begin: int, known: frozenset[str]) -> int:
    """Where a placeholder that is still being written begins, or ``len(buffer)``."""
    for start in range(max(begin, len(buffer) - _MAX_PARTIAL), len(buffer)):
        char = buffer[start]
        if char in "<[" and _PARTIAL_RE.fullmatch(buffer, start):
            return start
        if char.isupper() and _could_start_bare(buffer, start, known):
            return start
    return len(buffer)


def _may_grow(match: re.Match[str], buffer: str) -> bool:
    """Whether more text could still change this match (a digit, a bracket, a possessive)."""
    after = buffer[match.end() :]
    return after == "" or (match.group("poss") is None and after in ("'", "\u2019"))


class PlaceholderRestorer:
    """Restores placeholders in a streamed answer from one thread's values.

    Implements ``bot.core.ports.StreamRestorer``. ``feed`` holds back only a tail that could still
    become (or extend) a placeholder in any accepted form, so a placeholder is never shown
    half-written, and the concatenation of everything ``feed`` returned equals
    ``finish().text``, whatever the delta boundaries. Placeholders the thread never issued are
    shown as ``[redacted]`` and counted; they are never filled from anywhere else. Placeholders
    written in any form but the canonical one (``[PERSON_1]``, ``person_1``) are counted as
    mangled: how well a model keeps to the instructions.

    Args:
        values: canonical placeholder (``<PERSON_1>``) to the text shown for it (the value, or
            what the reveal policy makes of it); kept, not copied, and read only for the
            placeholders the answer uses (a lazy mapping unseals just those).
        known_types: extra entity types whose bare form counts as a placeholder; the types of
            ``values`` and ``KNOWN_TYPES`` always do.
        fetch: makes ``values`` hold the placeholders it is given (``fetch``); without it
            ``values`` holds every placeholder it can fill already.
        placed: what ``placeholders`` reports; by default every placeholder of ``values``.
    """

    def __init__(
        self,
        values: Mapping[str, str],
        known_types: Iterable[str] = (),
        *,
        fetch: Callable[[Collection[str]], Awaitable[None]] | None = None,
        placed: Collection[str] | None = None,
    ) -> None:
        self._values = values
        self._extra = frozenset(known_types)
        self._fetch = fetch
        self._placed = placed
        self._know_types()
        self._raw = ""
        self._done = 0
        self._shown: list[str] = []
        self._unknown = 0
        self._mangled = 0

    def _know_types(self) -> None:
        types = {t for p in self._values if (t := _type_of(p)) is not None}
        self._known = frozenset(KNOWN_TYPES | types | self._extra)
        self._pattern = grammar(self._known)

    @property
    def placeholders(self) -> Collection[str]:
        """What a turn's retention looks at: the ``placed`` given, else every one it fills."""
        return self._values.keys() if self._placed is None else self._placed

    async def fetch(self, delta: str, *, end: bool = False) -> None:
        """Fetch the values of the placeholders ``delta`` completes; call before ``feed(delta)``.

        The text not shown yet (a held-back tail) and ``delta`` are read for placeholders this
        restorer cannot fill yet; one that may still grow waits for the next delta, or for
        ``end`` (the answer is complete: ``delta`` is its last part, or empty). Nothing else
        is fetched: an answer's values, not the thread's.

        Raises:
            StoreError: the values could not be fetched.
        """
        if self._fetch is None:
            return
        pending = self._raw[self._done :] + delta
        wanted = {
            canonical(m)
            for m in self._pattern.finditer(pending)
            if end or not _may_grow(m, pending)
        }
        missing = [p for p in wanted if p not in self._values]
        if missing:
            await self._fetch(missing)
            self._know_types()

    def feed(self, delta: str) -> str:
        """Accept a delta; return what can be shown now (never half a placeholder)."""
        self._raw += delta
        cut = _partial_start(self._raw, self._done, self._known)
        for match in self._pattern.finditer(self._raw, self._done):
            if match.start() >= cut:
                break
            if match.end() > cut or _may_grow(match, self._raw):
                cut = match.start()  # "< PERSON_1 " may still close: hold the whole of it
                break
        return self._emit(cut)

    def finish(self) -> Restoration:
        """Flush what was held back; return the whole restored answer and its counters."""
        self._emit(len(self._raw))
        return Restoration(
            text="".join(self._shown),
            unknown_placeholders=self._unknown,
            mangled_placeholders=self._mangled,
        )

    def restore(self, text: str) -> Restoration:
        """Restore a whole answer at once (same result as ``feed`` + ``finish``)."""
        self.feed(text)
        return self.finish()

    def _emit(self, cut: int) -> str:
        pieces: list[str] = []
        position = self._done
        for match in self._pattern.finditer(self._raw, self._done):
            if match.end() > cut:
                break
            pieces += [self._raw[position : match.start()], self._replace(match)]
            position = match.end()
        pieces.append(self._raw[position:cut])
        self._done = cut
        out = "".join(pieces)
        self._shown.append(out)
        return out

    def _replace(self, match: re.Match[str]) -> str:
        placeholder = canonical(match)
        if match.group("ph") != placeholder:
            self._mangled += 1
        value = self._values.get(placeholder)
        possessive = match.group("poss") or ""
        if value is None:
            self._unknown += 1
            return NEUTRAL + possessive
        if possessive and value.endswith(("'s", "\u2019s")):
            return value
        return value + possessive
