"""Benchmark: detection cost per 1 000 characters by the shape of the text, beside stock Presidio.

Seven shapes (chat with a value every ~90 characters, one token with no spaces, digits and
dashes, hyphen-joined words, dot-joined words, URLs, code) at 1 000, 10 000 and 40 000
characters. For each, veilbot's ``detect`` (normalization, every rule, NER, precision, repeats)
and stock Presidio's ``analyze`` (default recognizers on the full pipeline of the small English
model, ``--stock-model``; the entity types veilbot covers) on the same text, measured in turns
in one process. Figures are CPU milliseconds of this thread per 1 000 characters, the best of
``--runs``: a busy machine moves them little. Linear detection costs the same per 1 000
characters at every size; the last column is veilbot's cost per character at 40 000 over its
cost at 1 000.

    .venv/bin/python -m tests.perf.bench_shapes [--runs 3] [--sizes 1000,10000,40000]
        [--shapes 'chat,dot-joined words']
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from guardrails.detect.detection import detect  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from tests.perf.bench_turn import STOCK_ENTITIES, stock_analyzer  # noqa: E402
from tests.perf.eval_detectors import SMALL_MODEL  # noqa: E402

_WORDS = "the deploy failed again on staging after the build went green for once".split()
_VALUES = [
    "Maria Gonzalez", "jane.doe@acme.com", "+1 415 555 0123", "4111 1111 1111 1111",
    "DE89 3704 0044 0532 0130 00", "Denver", "192.168.10.24", "John Smith",
]  # fmt: skip


def _fill(size: int, piece: Callable[[random.Random], str]) -> str:
    rng, parts, length = random.Random(25), [], 0
    while length < size:
        parts.append(piece(rng))
        length += len(parts[-1])
    return "".join(parts)[:size]


def _chat(rng: random.Random) -> str:
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 14)))
    return f"{words} {rng.choice(_VALUES)}. "


SHAPES: dict[str, Callable[[int], str]] = {
    "chat": lambda n: _fill(n, _chat),
    "one token": lambda n: _fill(n, lambda r: r.choice("abcdefghijklmnopqrstuvwxyz0123456789")),
    "digits and dashes": lambda n: _fill(n, lambda r: f"{r.randint(10, 99)}-"),
    "hyphen-joined words": lambda n: _fill(n, lambda r: f"{r.choice(_WORDS)}-"),
    "dot-joined words": lambda n: _fill(n, lambda r: f"{r.choice(_WORDS)}."),
    "URLs": lambda n: _fill(
        n,
        lambda r: (
            f"https://{r.choice(_WORDS)}.example.com/{r.choice(_WORDS)}?id={r.randint(1, 999)} "
        ),
    ),
    "code": lambda n: _fill(
        n,
        lambda r: (
            f"    if {r.choice(_WORDS)}_{r.randint(1, 9)} > 0: return self.{r.choice(_WORDS)}(x)\n"
        ),
    ),
}


def cpu_ms(fn: Callable[[str], object], text: str) -> float:
    """CPU milliseconds of this thread for one call."""
    began = time.thread_time()
    fn(text)
    return (time.thread_time() - began) * 1000


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000,40000")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shape names")
    parser.add_argument("--stock-model", default=SMALL_MODEL, help="stock Presidio's spaCy model")
    args = parser.parse_args()
    shapes = {name: SHAPES[name] for name in args.shapes.split(",")}
    sizes = [int(s) for s in args.sizes.split(",")]
    model = resolve_model("auto")
    ours, stock = build_analyzer(model), stock_analyzer(args.stock_model)

    def veilbot(text: str) -> object:
        return detect(ours, text, "console")

    def presidio(text: str) -> object:
        return stock.analyze(text=text, language="en", entities=STOCK_ENTITIES)  # type: ignore[attr-defined]

    veilbot("Hi, I'm Jane Doe")
    presidio("Hi, I'm Jane Doe")
    print(f"veilbot on {model}, stock Presidio on {args.stock_model}; CPU ms per 1 000 chars,")
    print(f"best of {args.runs}")
    print(f"{'shape':22}" + "".join(f"{n:>9} veil / stock  " for n in sizes) + "  growth")
    for name, make in shapes.items():
        row, first, last = f"{name:22}", 0.0, 0.0
        for size in sizes:
            text = make(size)
            mine, theirs = float("inf"), float("inf")
            for _ in range(args.runs):
                mine = min(mine, cpu_ms(veilbot, text))
                theirs = min(theirs, cpu_ms(presidio, text))
            per_k = 1000 / size
            row += f"{mine * per_k:>9.1f} / {theirs * per_k:<8.1f}"
            first = first or mine * per_k
            last = mine * per_k
        print(f"{row}  x{last / first:.2f}", flush=True)


if __name__ == "__main__":
    main()
