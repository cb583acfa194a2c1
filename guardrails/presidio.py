"""``PresidioGuardrail``: Presidio detection plus the per-thread vault.

Detection runs in a worker thread (spaCy is CPU bound) and any failure there fails closed with
``GuardrailError``. Overlapping detections are resolved (higher score, then longer span), the
survivors get vault placeholders in reading order, and the redacted text is built here.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.errors import GuardrailError
from bot.types import EntityRef, Platform, Redaction, ThreadId
from guardrails.engine import LANGUAGE
from guardrails.placeholders import PlaceholderRestorer, find_placeholders, placeholder_type
from guardrails.reveal import RevealPolicy
from guardrails.vault import RedisVault

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

logger = logging.getLogger(__name__)

DEFAULT_ENTITIES: tuple[str, ...] = (
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "LOCATION",
    "CREDIT_CARD",
    "US_SSN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "CRYPTO",
    "US_DRIVER_LICENSE",
    "US_PASSPORT",
    "US_BANK_NUMBER",
)
"""Entity types redacted by default (Presidio names)."""

# Zero-width characters and C0/C1 controls other than \t and \n: they can split a value so
# that detection misses it, and nothing legitimate needs them.
_INVISIBLE_RE = re.compile(r"[\u200b-\u200d\u2060\ufeff\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WARM_UP_TEXT = "Hi, I'm Jane Doe from Denver, jane@example.com, +1 212 555 0187."


@dataclass(frozen=True, slots=True)
class Span:
    """One detected value: its position in the analyzed text, type and score."""

    start: int
    end: int
    type: str
    score: float


def clean_text(text: str) -> str:
    """Remove zero-width characters and control characters other than tab and newline."""
    return _INVISIBLE_RE.sub("", text)


def resolve_overlaps(spans: Sequence[Span]) -> list[Span]:
    """Keep the best of overlapping spans (higher score, then longer), in reading order."""
    ranked = sorted(spans, key=lambda s: (-s.score, -(s.end - s.start), s.start))
    kept: list[Span] = []
    for span in ranked:
        if all(span.end <= k.start or span.start >= k.end for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)


class PresidioGuardrail:
    """The ``Guardrail`` port on Presidio and a ``RedisVault``.

    Args:
        analyzer: an analyzer from ``guardrails.engine.build_analyzer``.
        vault: the placeholder vault.
        entities: the Presidio entity types to redact.
        score_threshold: detections scoring below this are ignored.
        reveal: what readers see for each entity type in shared and private places.
    """

    def __init__(
        self,
        analyzer: AnalyzerEngine,
        vault: RedisVault,
        *,
        entities: Sequence[str] = DEFAULT_ENTITIES,
        score_threshold: float = 0.4,
        reveal: RevealPolicy | None = None,
    ) -> None:
        self._analyzer = analyzer
        self._reveal = reveal or RevealPolicy()
        self._vault = vault
        self._entities = list(entities)
        self._threshold = score_threshold
        # spaCy pipelines are not documented as thread-safe: one analysis at a time, queued
        # on the event loop rather than in blocked worker threads.
        self._analyzing = asyncio.Semaphore(1)

    async def warm_up(self) -> None:
        """Run one analysis, so the first user does not pay Presidio's lazy start-up.

        Raises:
            GuardrailError: the analyzer does not work.
        """
        await self._detect(_WARM_UP_TEXT)

    async def anonymize(self, thread_id: ThreadId, text: str, *, platform: Platform) -> Redaction:
        """Replace personal data in a user's text by this thread's placeholders.

        Raises:
            GuardrailError: detection could not run; nothing may be sent to the model.
            StoreError: the vault could not be read or written.
        """
        cleaned = clean_text(text)
        spans = await self._detect(cleaned)
        redaction = await self._redact(thread_id, cleaned, spans)
        logger.debug(
            "anonymized thread=%s platform=%s entities=%s", thread_id, platform, redaction.counts()
        )
        return redaction

    async def restorer(
        self, thread_id: ThreadId, *, platform: Platform, private: bool
    ) -> PlaceholderRestorer:
        """A restorer bound to this thread's vault and the reveal policy of the place.

        Args:
            thread_id: the thread whose placeholders may be filled (and no other's).
            platform: where the answer goes.
            private: ``True`` in a direct message; shared places may see masked values.

        Raises:
            StoreError: the vault could not be read.
        """
        mapping = await self._vault.mapping(thread_id)
        shown = {
            ph: self._reveal.render(ph, entity_type, value, private=private)
            for ph, (entity_type, value) in mapping.items()
        }
        return PlaceholderRestorer(shown, known_types=self._entities)

    async def scan_output(self, thread_id: ThreadId, text: str, *, platform: Platform) -> Redaction:
        """Redact personal data the model produced itself, for the stored copy of an answer.

        Placeholders already in the answer are left alone and not counted.

        Raises:
            GuardrailError: detection could not run.
            StoreError: the vault could not be read or written.
        """
        cleaned = clean_text(text)
        protected = [(m.start(), m.end()) for m in find_placeholders(cleaned)]
        masked = _mask(cleaned, protected)
        spans = [s for s in await self._detect(masked) if not _overlaps(s, protected)]
        redaction = await self._redact(thread_id, cleaned, spans)
        logger.debug(
            "scanned output thread=%s platform=%s entities=%s",
            thread_id,
            platform,
            redaction.counts(),
        )
        return redaction

    async def _detect(self, text: str) -> list[Span]:
        """Presidio's overlap-resolved findings; any failure becomes ``GuardrailError``."""
        async with self._analyzing:
            try:
                results = await asyncio.to_thread(self._analyze, text)
            except Exception as exc:
                raise GuardrailError(
                    f"PII detection failed ({type(exc).__name__}); fail closed"
                ) from exc
        return resolve_overlaps(results)

    def _analyze(self, text: str) -> list[Span]:
        results: list[Any] = self._analyzer.analyze(
            text=text,
            language=LANGUAGE,
            entities=self._entities,
            score_threshold=self._threshold,
        )
        return [Span(int(r.start), int(r.end), str(r.entity_type), float(r.score)) for r in results]

    async def _redact(self, tid: ThreadId, text: str, spans: list[Span]) -> Redaction:
        """Swap each span for its vault placeholder."""
        if not spans:
            return Redaction(text=text)
        placeholders = await self._vault.assign(
            tid, [(s.type, text[s.start : s.end]) for s in spans]
        )
        pieces: list[str] = []
        position = 0
        for span, placeholder in zip(spans, placeholders, strict=True):
            pieces += [text[position : span.start], placeholder]
            position = span.end
        pieces.append(text[position:])
        entities = tuple(EntityRef(placeholder_type(p), p) for p in placeholders)
        return Redaction(text="".join(pieces), entities=entities)


def _mask(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """The text with each range blanked out, keeping every offset."""
    chars = list(text)
    for start, end in ranges:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _overlaps(span: Span, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(span.start < end and start < span.end for start, end in ranges)
