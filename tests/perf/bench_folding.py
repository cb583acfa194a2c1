"""Growth of markup normalization plus evasion folding on adversarial inputs.

Run: ``.venv/bin/python -m tests.perf.bench_folding`` (prints figures; not a pytest test).

For each input shape, the time of ``normalize`` (which decodes link targets) and of ``fold``
(with the hidden-character check) at 20 000 and 40 000 characters, and the ratio between
them: a linear step doubles (about 2x), a quadratic one quadruples. The least disturbed of
a few runs is kept; on a busy machine, run it twice.
The shapes are the worst cases of each folding rule and of link decoding: long runs of
single characters (spacing), digit words, joined digit groups, combining marks, tag
characters, hidden characters, percent escapes and query parameters.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from guardrails.text.folding import fold, mostly_hidden
from guardrails.text.normalize import normalize

SIZES = (20_000, 40_000)
ROUNDS = 5

SHAPES: dict[str, Callable[[int], str]] = {
    "spaced letters": lambda n: ("a " * n)[:n],
    "spaced, no word end": lambda n: ("a " * n)[: n - 2] + "zz",
    "spaced with wide gaps": lambda n: ("a b  c   " * n)[:n],
    "digit words": lambda n: ("one two three " * n)[:n] + "x",
    "digit words, commas": lambda n: ("four, " * n)[:n],
    "joined digits": lambda n: ("1/" * n)[:n],
    "joined groups": lambda n: ("4111/1111/1111/1111 " * n)[:n],
    "combining marks": lambda n: ("4\u0301" * n)[:n],
    "tag characters": lambda n: ("x" + "\U000e0041" * 9) * (n // 10),
    "hidden characters": lambda n: ("a\u200b\u180e\u2800" * n)[:n],
    "percent escapes": lambda n: "https://x.io/" + ("%C3%A9" * n)[:n],
    "query parameters": lambda n: "https://x.io/?" + ("name=a+b&" * n)[:n],
    "query, no equals": lambda n: "https://x.io/?" + ("a" * n),
    "slack link": lambda n: "<https://x.io/?q=" + ("%2B" * n)[:n] + "|label>",
}


def _seconds(step: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return min(times)  # the least disturbed run: the machine may be busy


def _steps(text: str) -> tuple[float, float]:
    """Seconds of ``normalize`` (link decoding included) and of ``fold`` + ``mostly_hidden``."""
    norm = normalize(text, "slack")
    return (
        _seconds(lambda: normalize(text, "slack")),
        _seconds(lambda: (mostly_hidden(text), fold(norm))),
    )


def main() -> None:
    """Print, per shape, the time of each step at each size and the growth ratios."""
    small_size, large_size = SIZES
    print(f"{'shape':<24} {'normalize ms':>14} {'ratio':>6} {'fold ms':>14} {'ratio':>6}")
    worst = 0.0
    for name, make in SHAPES.items():
        (n_small, f_small), (n_large, f_large) = _steps(make(small_size)), _steps(make(large_size))
        worst = max(worst, f_large / f_small)
        print(
            f"{name:<24} {n_small * 1000:6.1f} {n_large * 1000:7.1f} {n_large / n_small:6.2f} "
            f"{f_small * 1000:6.1f} {f_large * 1000:7.1f} {f_large / f_small:6.2f}"
        )
    print(f"worst fold ratio {worst:.2f} (linear: about {large_size / small_size:.0f})")


if __name__ == "__main__":
    main()
