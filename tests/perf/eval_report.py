"""Tables of the outside-source evaluation: plain text, Markdown, JSON (figures only).

``Results`` maps source -> split -> detector name -> ``Score``. Every table has a veilbot and
a stock Presidio column. Nothing here prints a value from a case: failures are printed by
``failures``, and only for the dev split.
"""

from __future__ import annotations

from typing import Any

from tests.perf.eval_metrics import Tally
from tests.perf.eval_score import Score
from tests.perf.sources.cases import MAIN_TYPES, SCORED_TYPES

Results = dict[str, dict[str, dict[str, Score]]]
DETECTORS = ("veilbot", "presidio")
PEERS_ROW = "peers combined"


def _rate(tally: Tally, group: str) -> str:
    return f"{tally.rate(group):.1%}" if tally.total[group] else "-"


def _pair(scores: dict[str, Score], metric: str, group: str = "all") -> list[str]:
    return [_rate(getattr(scores[d], metric), group) for d in DETECTORS]


def summary_rows(results: Results) -> list[list[str]]:
    """One row per source and split: counts, then veilbot | Presidio for each measure."""
    rows = []
    for source, splits in results.items():
        for split, scores in splits.items():
            base = scores["veilbot"]
            precision = _pair(scores, "precision")
            rows.append(
                [
                    source,
                    split,
                    str(base.cases),
                    str(base.recall.total["all"]),
                    *_pair(scores, "recall"),
                    *_pair(scores, "partial"),
                    *precision,
                    str(base.over.total["all"]),
                    *_pair(scores, "over"),
                    *[f"{scores[d].ms_per_case:.1f}" for d in DETECTORS],
                ]
            )
    return rows


SUMMARY_HEAD = [
    "source", "split", "texts", "values", "recall v", "recall P", "partial v", "partial P",
    "precision v", "precision P", "keep", "over v", "over P", "ms v", "ms P",
]  # fmt: skip


def type_rows(splits: dict[str, dict[str, Score]]) -> list[list[str]]:
    """Per type: values, recall and partial leaks, veilbot | Presidio, for each split."""
    groups = {g for scores in splits.values() for g in scores["veilbot"].recall.total}
    named = sorted(g[5:] for g in groups if g.startswith("type:"))
    types = [t for t in MAIN_TYPES if t in named]
    types += [t for t in named if t in SCORED_TYPES and t not in types]
    types += [t for t in named if t not in SCORED_TYPES]
    rows = []
    for name in [*types, "weak", "other"]:
        group = name if name in ("weak", "other") else f"type:{name}"
        if not any(s["veilbot"].recall.total[group] for s in splits.values()):
            continue
        row = [name]
        for scores in splits.values():
            row += [str(scores["veilbot"].recall.total[group]), *_pair(scores, "recall", group)]
            row += _pair(scores, "partial", group)
        rows.append(row)
    return rows


def type_head(splits: list[str]) -> list[str]:
    """Header of ``type_rows``."""
    head = ["type"]
    for split in splits:
        head += [f"{split} n", "recall v", "recall P", "partial v", "partial P"]
    return head


def text_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """Aligned plain-text columns."""
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *rows]]


def markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(r) + " |" for r in rows]


def render(results: Results, markdown: bool = False) -> list[str]:
    """The summary table, then one per-type table per source (splits side by side)."""
    table = markdown_table if markdown else text_table
    out = ["Outside sources: veilbot (v) vs stock Presidio (P), same spaCy model", ""]
    out += table(SUMMARY_HEAD, summary_rows(results))
    for source, splits in results.items():
        out += ["", f"{source}: recall and partial leaks by type"]
        out += table(type_head(list(splits)), type_rows(splits))
    return out


def as_json(results: Results, meta: dict[str, Any]) -> dict[str, Any]:
    """Every tally as ``{group: [hits, total]}``, for comparing runs."""

    def tally(t: Tally) -> dict[str, list[int]]:
        return {g: [t.hits[g], t.total[g]] for g in sorted(t.total)}

    return {
        **meta,
        "sources": {
            source: {
                split: {
                    name: {
                        "texts": s.cases,
                        "ms_per_text": round(s.ms_per_case, 2),
                        **{
                            m: tally(getattr(s, m))
                            for m in ("recall", "partial", "over", "precision")
                        },
                    }
                    for name, s in scores.items()
                }
                for split, scores in splits.items()
            }
            for source, splits in results.items()
        },
    }
