"""Detection: where the personal data of a message is, in the message's own offsets.

``detect`` is pure (no Redis, no vault): the guardrail redacts what it returns, and the
evaluation (``veilbot redact --jsonl``) scores it against labelled messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bot.types import Platform
from guardrails.engine import LANGUAGE
from guardrails.normalize import normalize
from guardrails.policy import Policy, default_policy

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine


@dataclass(frozen=True, slots=True)
class Detection:
    """One value to redact: its type and its span in the original text (end exclusive)."""

    type: str
    start: int
    end: int
    score: float = 1.0


class _Scored(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def score(self) -> float: ...


_S = TypeVar("_S", bound=_Scored)


def resolve_overlaps(spans: Sequence[_S]) -> list[_S]:
    """Keep the best of overlapping spans (higher score, then longer), in reading order."""
    ranked = sorted(spans, key=lambda s: (-s.score, -(s.end - s.start), s.start))
    kept: list[_S] = []
    for span in ranked:
        if all(span.end <= k.start or span.start >= k.end for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)


def detect(
    analyzer: AnalyzerEngine,
    text: str,
    platform: Platform,
    policy: Policy | None = None,
) -> list[Detection]:
    """Find the personal data in a message.

    Args:
        analyzer: from ``guardrails.engine.build_analyzer``.
        text: the message as the platform delivered it (markup included).
        platform: where it was written; decides which markup is understood.
        policy: what to redact; the shipped default when ``None``.

    Returns:
        Non-overlapping detections in reading order, with offsets into ``text``.
    """
    policy = policy or default_policy()
    norm = normalize(text, platform)
    if not norm.text.strip():
        return []
    supported = set(analyzer.get_supported_entities(LANGUAGE))
    results: list[Any] = analyzer.analyze(
        text=norm.text,
        language=LANGUAGE,
        entities=sorted(policy.enabled & supported),
        score_threshold=policy.min_threshold,
    )
    found = [
        Detection(str(r.entity_type), *norm.original(int(r.start), int(r.end)), float(r.score))
        for r in results
        if float(r.score) >= policy.threshold(str(r.entity_type)) and r.end > r.start
    ]
    return resolve_overlaps(found)
