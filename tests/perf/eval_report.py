"""Tables of the outside-source evaluation: plain text, Markdown, JSON (figures only).

``Results`` maps source -> split -> detector name -> ``Score``. Every table has a column per
detector, in ``DETECTORS`` order: veilbot, stock Presidio on the small model and, when it is
installed, stock Presidio on the medium one. Nothing here prints a value from a case: failures
are printed by ``failures``, and only for the dev split.
"""

from __future__ import annotations

from typing import Any

from tests.perf.eval_metrics import Tally
from tests.perf.eval_score import Score
from tests.perf.sources.cases import MAIN_TYPES, SCORED_TYPES

Results = dict[str, dict[str, dict[str, Score]]]
DETECTORS = {"veilbot": "v", "presidio": "Psm", "presidio-md": "Pmd"}
"""Detector name -> its column suffix."""
PEERS_ROW = "peers combined"
HUMAN_ROW = "human-written sources combined"
MEASURES = ("recall", "partial", "precision")


def detectors(results: Results) -> list[str]:
    """The detectors scored in ``results``, in column order."""
    present = {d for splits in results.values() for scores in splits.values() for d in scores}
    return [d for d in DETECTORS if d in present]


def _rate(tally: Tally, group: str) -> str:
    return f"{tally.rate(group):.1%}" if tally.total[group] else "-"


def _cells(scores: dict[str, Score], names: list[str], metric: str, group: str) -> list[str]:
    return [_rate(getattr(scores[d], metric), group) for d in names]


def _heads(names: list[str], *metrics: str) -> list[str]:
    return [f"{metric} {DETECTORS[d]}" for metric in metrics for d in names]


def summary_rows(results: Results, names: list[str]) -> list[list[str]]:
    """One row per source and split: counts, then one cell per detector for each measure."""
    rows = []
    for source, splits in results.items():
        for split, scores in splits.items():
            base = scores["veilbot"]
            row = [source, split, str(base.cases), str(base.recall.total["all"])]
            for metric in MEASURES:
                row += _cells(scores, names, metric, "all")
            row += [str(base.over.total["all"]), *_cells(scores, names, "over", "all")]
            rows.append(row + [f"{scores[d].ms_per_case:.1f}" for d in names])
    return rows


def summary_head(names: list[str]) -> list[str]:
    """Header of ``summary_rows``."""
    head = ["source", "split", "texts", "values", *_heads(names, *MEASURES), "keep"]
    return head + _heads(names, "over", "ms")


def _types(splits: dict[str, dict[str, Score]]) -> list[str]:
    """Types with a labelled value or a counted detection: main, scored, then other types."""
    groups = {
        group
        for scores in splits.values()
        for score in scores.values()
        for group in [*score.recall.total, *score.precision.total]
    }
    named = sorted(g[5:] for g in groups if g.startswith("type:"))
    types = [t for t in MAIN_TYPES if t in named]
    types += [t for t in named if t in SCORED_TYPES and t not in types]
    return types + [t for t in named if t not in SCORED_TYPES]


def type_rows(splits: dict[str, dict[str, Score]], names: list[str]) -> list[list[str]]:
    """Per type and split: values, then recall, partial leaks and precision per detector."""
    rows = []
    for name in [*_types(splits), "weak", "other"]:
        group = name if name in ("weak", "other") else f"type:{name}"
        counted = [s.recall.total[group] + s.precision.total[group]
                   for scores in splits.values() for s in scores.values()]  # fmt: skip
        if not any(counted):
            continue
        row = [name]
        for scores in splits.values():
            row.append(str(scores["veilbot"].recall.total[group]))
            for metric in MEASURES:
                row += _cells(scores, names, metric, group)
        rows.append(row)
    return rows


def type_head(splits: list[str], names: list[str]) -> list[str]:
    """Header of ``type_rows``."""
    head = ["type"]
    for split in splits:
        head += [f"{split} n", *_heads(names, *MEASURES)]
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
    names = detectors(results)
    columns = ", ".join(f"{d} ({DETECTORS[d]})" for d in names)
    out = [f"Outside sources: {columns}; precision = span precision", ""]
    out += table(summary_head(names), summary_rows(results, names))
    for source, splits in results.items():
        out += ["", f"{source}: recall, partial leaks and precision by type"]
        out += table(type_head(list(splits), names), type_rows(splits, names))
    return out


def page(results: Results, models: dict[str, str], command: str, commit: str) -> list[str]:
    """A generated Markdown page of the tables: what ran, on which models, at which commit."""
    out = [
        "# Guardrail quality: the figures",
        "",
        f"<!-- Generated by `{command}`; do not edit: rerun it (docs/guardrail.md, Rerun). -->",
        "",
        f"Measured at commit `{commit}`. How the sources are split and scored, and what the",
        "columns mean: [docs/guardrail.md](guardrail.md#quality). Models:",
        "",
        *(f"- {name}: {model}" for name, model in models.items()),
        "",
    ]
    return out + render(results, markdown=True)


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
