"""Per-language evaluation: people and places in human-labelled news, in their own language.

CoNLL-2002 (Tjong Kim Sang 2002: Spanish EFE newswire and Dutch De Morgen articles, PER, LOC,
ORG and MISC labelled by people), its test part ``testb`` only (1 517 Spanish and 5 195 Dutch
sentences; veilbot's entity model never trained on any part of it). Each sentence is the
tokens joined by spaces; its PER and LOC spans are the values (PERSON, LOCATION), ORG and MISC
spans are names that are no personal data.

Three detectors, each on every sentence:

- ``veilbot``: as a scope with ``languages = [<the language>]`` reads it: the sentence's
  language identified (``guardrails.text.language``), then that language's rules;
- ``veilbot-en``: as a scope without ``languages`` (every message English);
- ``presidio``: stock Presidio on the small English model (``eval_detectors.StockPresidio``);
  no official Spanish or Dutch spaCy model installs from the package index here.

Recall: the share of values whose every letter and digit some detection of any type covers.
Precision: of the PERSON and LOCATION detections, the share that overlap a value (either
type); one over an ORG or MISC name or over nothing is a false alarm.

    .venv/bin/python -m tests.perf.eval_languages --file es=PATH/esp.testb \\
        --file nl=PATH/ned.testb [--limit N]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.core.scopes import PolicyOverride  # noqa: E402
from guardrails.detect.detection import detect  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from guardrails.policy import default_policy, with_override  # noqa: E402
from guardrails.text.language import identify  # noqa: E402
from tests.perf.eval_detectors import SMALL_MODEL, StockPresidio  # noqa: E402

VALUES = {"PER": "PERSON", "LOC": "LOCATION"}
NAME_TYPES = frozenset({"PERSON", "LOCATION"})


@dataclass(frozen=True)
class Sentence:
    """A sentence's text, its values ``(type, start, end)`` and its other names' spans."""

    text: str
    values: tuple[tuple[str, int, int], ...]
    others: tuple[tuple[int, int], ...]


def read(path: Path) -> Iterator[Sentence]:
    """The sentences of a CoNLL-2002 file (``token POS tag`` or ``token tag`` a line)."""
    raw = path.read_bytes()
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        lines = raw.decode("latin-1").splitlines()
    tokens: list[tuple[str, str]] = []
    for line in [*lines, ""]:
        parts = line.split()
        if parts and parts[0] != "-DOCSTART-":
            tokens.append((parts[0], parts[-1]))
        elif tokens:
            yield _sentence(tokens)
            tokens = []


def _sentence(tokens: list[tuple[str, str]]) -> Sentence:
    text, spans, position = [], [], 0
    current: list[object] | None = None
    for token, tag in tokens:
        start = position
        text.append(token)
        position += len(token) + 1
        kind = tag[2:] if tag != "O" else ""
        if tag.startswith("I-") and current is not None and current[0] == kind:
            current[2] = start + len(token)
            continue
        if current is not None:
            spans.append(tuple(current))
        current = [kind, start, start + len(token)] if kind else None
    if current is not None:
        spans.append(tuple(current))
    values = tuple((VALUES[k], a, b) for k, a, b in spans if k in VALUES)  # type: ignore[index]
    others = tuple((a, b) for k, a, b in spans if k not in VALUES)
    return Sentence(" ".join(text), values, others)  # type: ignore[arg-type]


Found = list[tuple[str, int, int]]


def score(sentences: list[Sentence], run: Callable[[str], Found]) -> tuple[float, float, int]:
    """Recall, precision (see the module docstring) and the values' count."""
    found_values = values = true = alarms = 0
    for sentence in sentences:
        found = run(sentence.text)
        covered = {i for _, a, b in found for i in range(a, b)}
        for _, start, end in sentence.values:
            values += 1
            needed = {i for i in range(start, end) if sentence.text[i].isalnum()}
            found_values += needed <= covered
        for kind, start, end in found:
            if kind not in NAME_TYPES:
                continue
            if any(start < b and a < end for _, a, b in sentence.values):
                true += 1
            else:
                alarms += 1
    return found_values / max(1, values), true / max(1, true + alarms), values


def main() -> None:
    """Print a row per language and detector."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--file", action="append", default=[], help="LANG=PATH")
    parser.add_argument("--limit", type=int, default=0, help="first N sentences only")
    args = parser.parse_args()
    analyzer = build_analyzer(resolve_model("auto"))
    presidio = StockPresidio(SMALL_MODEL)
    english = default_policy()

    def veilbot(language: str) -> Callable[[str], Found]:
        def run(text: str) -> Found:
            code = identify(text, (language,))
            policy = with_override(english, PolicyOverride(language=code))
            return [(d.type, d.start, d.end) for d in detect(analyzer, text, "console", policy)]

        return run

    def veilbot_en(text: str) -> Found:
        return [(d.type, d.start, d.end) for d in detect(analyzer, text, "console", english)]

    def stock(text: str) -> Found:
        return [(f.type, f.start, f.end) for f in presidio.run(text, "console").found]

    print("| language | detector | values | recall | precision | seconds |")
    print("|---|---|---|---|---|---|")
    for item in args.file:
        language, _, path = item.partition("=")
        sentences = list(read(Path(path)))
        sentences = sentences[: args.limit] if args.limit else sentences
        for name, run in (("veilbot", veilbot(language)), ("veilbot-en", veilbot_en),
                          ("presidio", stock)):  # fmt: skip
            began = time.perf_counter()
            recall, precision, count = score(sentences, run)
            took = time.perf_counter() - began
            print(
                f"| {language} | {name} | {count} | {recall:.1%} | {precision:.1%} | {took:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
