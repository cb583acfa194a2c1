"""Stateless redaction of single messages: what ``veilbot redact`` and the evaluation run.

No vault and no Redis: placeholders are numbered per message (``<PERSON_1>`` is the first person
of this message; the parts of one file share a ``Numbering``), equal values in one message
share a placeholder, and nothing is kept. The
detection is the guardrail's own (``detect``), so what an admin sees here is what the model
would be sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.core.errors import GuardrailError, VeilbotError
from bot.core.types import Platform
from guardrails.restore.placeholders import format_placeholder
from guardrails.text.normalize import GAP
from guardrails.text.values import normalize_value


class Found(Protocol):
    """A detection: type and span in the original text (end exclusive)."""

    @property
    def type(self) -> str:
        """The entity type."""
        ...

    @property
    def start(self) -> int:
        """Start offset in the original text."""
        ...

    @property
    def end(self) -> int:
        """End offset in the original text (exclusive)."""
        ...


class Detector(Protocol):
    """Finds personal data in a message (``guardrails.detect.detection.detect``, bound)."""

    def __call__(
        self, text: str, platform: Platform, *, context: str | None = None
    ) -> Sequence[Found]:
        """The detections in ``text``; ``context``: the heading it sits under, if any."""
        ...


class ManyDetector(Protocol):
    """Finds personal data in many short texts at once, one NER pass (``detect_many``, bound).

    Gives, per message, its detections or the exception its analysis raised.
    """

    def __call__(
        self,
        messages: Sequence[tuple[str, Platform]],
        *,
        contexts: Sequence[str | None] | None = None,
    ) -> Sequence[Sequence[Found] | Exception]:
        """The detections of each ``(text, platform)``, under its heading in ``contexts``."""
        ...


@dataclass(frozen=True, slots=True)
class Entity:
    """One redacted value: type, span in the original text, placeholder in the output."""

    type: str
    start: int
    end: int
    placeholder: str


@dataclass(frozen=True, slots=True)
class Redacted:
    """A message with its personal data replaced; carries no original value."""

    text: str
    entities: tuple[Entity, ...]


class Numbering:
    """The placeholders issued so far: one message's, or every text of one file's.

    A file is redacted part by part (its text, then each picture's OCR'd text); sharing one
    numbering keeps ``<PERSON_1>`` the same person throughout it.
    """

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._issued: dict[tuple[str, str], str] = {}

    def placeholder(self, entity_type: str, value: str) -> str:
        """The placeholder of ``value``: the one it was given, else the type's next number."""
        key = (entity_type, normalize_value(value))
        if key not in self._issued:
            self._numbers[entity_type] = self._numbers.get(entity_type, 0) + 1
            number = self._numbers[entity_type]
            self._issued[key] = format_placeholder(_type_name(entity_type), number)
        return self._issued[key]


class Redactor:
    """Redacts one message at a time with per-message placeholder numbers.

    Args:
        detector: the guardrail's detection (``guardrails.detect.detection.detect`` bound to an
            analyzer and a policy).
        as_printed: how OCR'd text reads as printed, one character for one, a character
            OCR added as a zero-width space (``guardrails.rules.ocr.as_printed``); without
            it OCR'd text is read as typed text is.
        many: the same detection over many texts in one NER pass (``redact_many``); without
            it they are detected one by one.
    """

    def __init__(
        self,
        detector: Detector,
        as_printed: Callable[[str], str] | None = None,
        *,
        many: ManyDetector | None = None,
    ) -> None:
        self._detect = detector
        self._as_printed = as_printed
        self._many = many

    def redact(
        self,
        text: str,
        platform: Platform,
        numbering: Numbering | None = None,
        *,
        ocr: bool = False,
        context: str | None = None,
    ) -> Redacted:
        """The message with each detected value replaced by its placeholder.

        ``numbering`` carries the placeholders of earlier texts of the same file; without
        it the numbers start afresh. ``ocr``: the text was read from a picture by OCR; it
        is detected as printed, each finding replaces its whole span of ``text``, and the
        value it is numbered by is the one printed. ``context``: the heading the text sits
        under (a table cell's column header, a document property's name), read as its key.

        Raises:
            GuardrailError: detection failed.
        """
        try:
            printed = self._as_printed(text) if ocr and self._as_printed else None
            found = sorted(
                self._detect(printed or text, platform, context=context), key=lambda f: f.start
            )
        except VeilbotError:
            raise
        except Exception as exc:  # fail closed, naming the error type only (never the text)
            raise GuardrailError(f"PII detection failed ({type(exc).__name__})") from exc
        return _replaced(text, printed, found, numbering or Numbering())

    def redact_many(
        self,
        items: Sequence[tuple[str, str | None]],
        platform: Platform,
        numbering: Numbering,
    ) -> list[Redacted]:
        """``redact`` of each ``(text, context)``, in order, with one NER pass for them all.

        A file's cells and fields are many short texts: read together they cost a third of
        what they cost one by one. Numbers are given in the order of ``items``.

        Raises:
            GuardrailError: detection failed for any of them; none is given.
        """
        if self._many is None:
            return [self.redact(t, platform, numbering, context=c) for t, c in items]
        try:
            results = self._many(
                [(text, platform) for text, _ in items], contexts=[c for _, c in items]
            )
        except VeilbotError:
            raise
        except Exception as exc:  # fail closed, naming the error type only (never the text)
            raise GuardrailError(f"PII detection failed ({type(exc).__name__})") from exc
        out = []
        for (text, _), found in zip(items, results, strict=True):
            if isinstance(found, Exception):
                raise GuardrailError(f"PII detection failed ({type(found).__name__})") from found
            out.append(_replaced(text, None, sorted(found, key=lambda f: f.start), numbering))
        return out


def _replaced(
    text: str, printed: str | None, found: Sequence[Found], numbering: Numbering
) -> Redacted:
    """``text`` with each of ``found`` (in order; the first of overlapping ones) replaced."""
    pieces: list[str] = []
    entities: list[Entity] = []
    position = 0
    for item in found:
        if item.start < position:  # overlapping detections: the first one wins
            continue
        placeholder = numbering.placeholder(item.type, _value(text, printed, item))
        pieces += [text[position : item.start], placeholder]
        entities.append(Entity(item.type, item.start, item.end, placeholder))
        position = item.end
    pieces.append(text[position:])
    return Redacted("".join(pieces), tuple(entities))


def _value(text: str, printed: str | None, item: Found) -> str:
    """A detection's value; of OCR'd text, as ``printed`` has it, less what OCR added."""
    if printed is None:
        return text[item.start : item.end]
    return printed[item.start : item.end].replace(GAP, "")


def _type_name(entity_type: str) -> str:
    """An entity type usable in a placeholder (recognizer names may hold other characters)."""
    name = re.sub(r"[^A-Z0-9_]", "_", entity_type.upper())[:40]
    return name if name[:1].isalpha() else f"PII_{name}"[:40]
