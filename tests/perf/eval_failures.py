"""Failing dev cases, printed for whoever tunes detection (``--show-failures``).

Only the dev split ever reaches this module: ``eval_score`` keeps failures of dev cases only,
and ``eval_guardrail`` refuses ``--show-failures`` with ``--split test``. The test split is
reported as figures alone, so tuning cannot see it.
"""

from __future__ import annotations

from collections import Counter

from tests.perf.eval_score import Failure

KIND = {
    "leak": "missed",
    "partial": "partly missed",
    "over": "over-redacted",
    "false": "false detection",
}


def marked(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` between ``⟦`` and ``⟧`` (line breaks shown as ``⏎``)."""
    shown = f"{text[:start]}⟦{text[start:end]}⟧{text[end:]}"
    return shown.replace("\n", "⏎")


def classes(failures: list[Failure]) -> list[tuple[tuple[str, str, str], int]]:
    """Counts by (source, kind, type), largest first."""
    counted = Counter((f.case.source, KIND[f.kind], f.type) for f in failures)
    return counted.most_common()


def render(detector: str, failures: list[Failure], limit: int) -> list[str]:
    """Failure classes, then up to ``limit`` failing cases per class with the span marked."""
    if any(f.case.split != "dev" for f in failures):
        raise ValueError("failures of the test split are never shown")
    out = [f"{detector} on the dev split: failures by source, kind and type"]
    out += [
        f"  {n:5d}  {source}  {kind}  {kind_type}"
        for (source, kind, kind_type), n in classes(failures)
    ]
    shown: Counter[tuple[str, str, str]] = Counter()
    for failure in failures:
        key = (failure.case.source, KIND[failure.kind], failure.type)
        shown[key] += 1
        if shown[key] > limit:
            continue
        origin = failure.case.origin
        where = f"{origin.repo}@{origin.commit[:10]} {origin.file} {origin.test}"
        out.append(f"- {KIND[failure.kind]} {failure.type} [{failure.case.id}; {where}]")
        out.append(f"    text: {marked(failure.case.text, failure.start, failure.end)}")
        out.append(f"    sent: {failure.sent.replace(chr(10), '⏎')}")
    return out
