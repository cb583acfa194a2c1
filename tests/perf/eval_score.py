"""Scoring of outside labelled cases for one detector (pure but for the detector it runs).

Per labelled value, with the leak definitions of ``tests.perf.eval_metrics``:

- *caught* (recall): a detection overlaps it and it does not leak (not visible in the redacted
  text verbatim or lightly normalized). Types the policy turns off (``cases.OFF_TYPES``: URL,
  DATE_TIME, NRP, ORGANIZATION) are left out. ``all`` counts veilbot's types
  (``cases.SCORED_TYPES``) without weak labels; ``weak`` and ``other`` (types veilbot does not
  redact, e.g. TITLE, AGE) are lines of their own.
- *partial leak*: caught, but a word of 4+ letters or 4+ digits of it survives.
- *over-redaction*: a keep span (organization, negative test) that a detection overlaps.
- *span precision*: detections overlapping a labelled value (of any type) / detections,
  counting only detections of a type for which the case's labels are complete (every type
  for generated data, the tested type for a recognizer test, none for LLM Guard's tests);
  detections of off types are not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.perf.eval_detectors import Detector, Found, Output
from tests.perf.eval_metrics import Tally, leaks, partly_leaks
from tests.perf.sources.cases import OFF_TYPES, SCORED_TYPES, Case


@dataclass(frozen=True)
class Failure:
    """One miss on a dev case: ``kind`` is ``leak``, ``partial``, ``over`` or ``false``."""

    case: Case
    kind: str
    type: str
    start: int
    end: int
    sent: str
    """What the detector made of the case's text."""


@dataclass
class Score:
    """Figures of one detector on one source and split."""

    recall: Tally = field(default_factory=Tally)
    partial: Tally = field(default_factory=Tally)
    over: Tally = field(default_factory=Tally)
    precision: Tally = field(default_factory=Tally)
    cases: int = 0
    seconds: float = 0.0
    failures: list[Failure] = field(default_factory=list)

    @property
    def ms_per_case(self) -> float:
        """Mean milliseconds per text."""
        return self.seconds * 1000 / self.cases if self.cases else 0.0


def _overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def label_groups(kind: str, weak: bool) -> list[str]:
    """The tally groups a labelled value of ``kind`` counts in (empty: not scored)."""
    if kind in OFF_TYPES:
        return []
    if weak:
        return ["weak", "all+weak"] if kind in SCORED_TYPES else ["weak"]
    if kind in SCORED_TYPES:
        return ["all", "all+weak", f"type:{kind}"]
    return ["other", f"type:{kind}"]


def score_case(case: Case, sent: str, found: tuple[Found, ...], score: Score) -> None:
    """Add one case's figures, given the redacted text and the detections."""
    covered = [(f.start, f.end) for f in found]
    keep_failures = case.split == "dev" and not case.source.startswith("regression")
    for item in case.labels:
        groups = label_groups(item.type, item.weak)
        if not groups:
            continue
        hit = any(_overlaps(s, e, item.start, item.end) for s, e in covered)
        caught = hit and not leaks(item.value, sent)
        partial = caught and partly_leaks(case.text, item.start, item.end, covered)
        score.recall.add(groups, caught)
        score.partial.add(groups, partial)
        if keep_failures and (not caught or partial):
            kind = "partial" if caught else "leak"
            score.failures.append(Failure(case, kind, item.type, item.start, item.end, sent))
    for item in case.keeps:
        hit = any(_overlaps(s, e, item.start, item.end) for s, e in covered)
        score.over.add(["all", f"kind:{item.kind.split(':')[0]}"], hit)
        if keep_failures and hit:
            score.failures.append(Failure(case, "over", item.kind, item.start, item.end, sent))
    _precision(case, sent, found, score)


def _precision(case: Case, sent: str, found: tuple[Found, ...], score: Score) -> None:
    for det in found:
        if det.type in OFF_TYPES or case.complete is not None and det.type not in case.complete:
            continue  # off, or the source does not say whether the text has values of that type
        right = any(_overlaps(det.start, det.end, lb.start, lb.end) for lb in case.labels)
        score.precision.add(["all", f"type:{det.type}"], right)
        if not right and case.split == "dev" and not case.source.startswith("regression"):
            score.failures.append(Failure(case, "false", det.type, det.start, det.end, sent))


def run(
    detector: Detector,
    cases: list[Case],
    split: Callable[[Case], str] = lambda case: case.split,
    observe: Callable[[Case, Output], None] | None = None,
) -> dict[str, Score]:
    """Score ``detector`` on ``cases``: one ``Score`` per split (``dev``, ``test``).

    ``split`` names a case's split (the regression set is one split, ``all``); ``observe``
    sees every output (the regression set also feeds its own corpus metrics).

    Raises:
        ValueError: a case of a corpus's ``train`` part (entity model data is never scored).
    """
    scores: dict[str, Score] = {}
    for case in cases:
        if case.split == "train":
            raise ValueError(f"{case.id} is training data: it is never scored")
        score = scores.setdefault(split(case), Score())
        started = time.perf_counter()
        output = detector.run(case.text, case.platform)
        score.seconds += time.perf_counter() - started
        score.cases += 1
        score_case(case, output.text, output.found, score)
        if observe is not None:
            observe(case, output)
    return scores


def combine(scores: list[Score]) -> Score:
    """One score adding up several (the peer sources together)."""
    total = Score()
    for score in scores:
        for name in ("recall", "partial", "over", "precision"):
            mine, theirs = getattr(total, name), getattr(score, name)
            mine.total.update(theirs.total)
            mine.hits.update(theirs.hits)
        total.cases += score.cases
        total.seconds += score.seconds
    return total
