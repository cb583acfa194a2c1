"""Benchmark: detection cost of a message in each language beside an English one of its length.

Each language's chat messages of ``bench_langid`` joined into one text of ``--size``
characters, detected with that language's rules (as a scope with ``languages`` reads it after
identification) and, for English, with the service's policy; plus the identification itself.
Figures are CPU milliseconds of this thread per 1 000 characters, the best of ``--runs``, and
each language's cost over English's.

    .venv/bin/python -m tests.perf.bench_languages [--runs 5] [--size 1000] [--first-use]

``--first-use``: only what the first message of each language with its own entity model
(``guardrails.detect.models``) costs the process: wall time of that first detection against
the next one, and resident memory before and after.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from presidio_analyzer import AnalyzerEngine  # noqa: E402

from bot.core.scopes import PolicyOverride  # noqa: E402
from guardrails.detect import models  # noqa: E402
from guardrails.detect.detection import detect  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from guardrails.policy import default_policy, with_override  # noqa: E402
from guardrails.text.language import identify  # noqa: E402
from tests.perf.bench_langid import LANGUAGES, MESSAGES  # noqa: E402


def text_of(language: str, size: int) -> str:
    """The language's messages, one per line, repeated to ``size`` characters."""
    lines, length, i = [], 0, 0
    pool = MESSAGES[language]
    while length < size:
        lines.append(pool[i % len(pool)])
        length += len(lines[-1]) + 1
        i += 1
    return "\n".join(lines)[:size]


def best_ms(run: Callable[[], object], runs: int) -> float:
    """The least CPU time of ``runs`` calls of ``run``, in milliseconds."""
    times = []
    for _ in range(runs):
        began = time.thread_time()
        run()
        times.append((time.thread_time() - began) * 1000)
    return min(times)


def rss_mb() -> float:
    """This process's resident memory in MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(x for x in status if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def first_use(analyzer: AnalyzerEngine, size: int) -> None:
    """Print each own-model language's first-use cost in this process."""
    print("| language | model | first message ms | next message ms | RSS before → after MB |")
    print("|---|---|---|---|---|")
    for language in models.MODELS:
        name = models.installed(language)
        if name is None:
            print(f"| {language} | not installed | | | |")
            continue
        name = f"veilbot's {name.rsplit('/', 1)[-1]}" if "/" in name else name  # shipped
        text = text_of(language, size)
        policy = with_override(default_policy(), PolicyOverride(language=language))
        before = rss_mb()
        began = time.perf_counter()
        detect(analyzer, text, "console", policy)
        first = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        detect(analyzer, text, "console", policy)
        again = (time.perf_counter() - began) * 1000
        print(
            f"| {language} | {name} | {first:.0f} | {again:.0f} | {before:.0f} → {rss_mb():.0f} |"
        )


def main() -> None:
    """Print one row per language."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--first-use", action="store_true")
    args = parser.parse_args()
    analyzer = build_analyzer(resolve_model("auto"))
    detect(analyzer, text_of("en", args.size), "console")  # English warm, as a running worker
    if args.first_use:
        first_use(analyzer, args.size)
        return
    others = [lang for lang in LANGUAGES if lang != "en"]
    print(f"{args.size} characters, best of {args.runs}; CPU ms per 1 000 characters")
    print("| language | identify µs (CPU) | detect ms | × English |")
    print("|---|---|---|---|")
    identify("warm the identifier's model up", others)
    english = 0.0
    for language in LANGUAGES:
        text = text_of(language, args.size)
        override = None if language == "en" else PolicyOverride(language=language)
        policy = with_override(default_policy(), override)
        detect(analyzer, text, "console", policy)  # warm: the detector is built once
        ms = best_ms(lambda t=text, p=policy: detect(analyzer, t, "console", p), args.runs)
        per_k = ms * 1000 / len(text)
        english = english or per_k
        micros = best_ms(lambda t=text: identify(t, others), args.runs) * 1000
        print(f"| {language} | {micros:.0f} | {per_k:.1f} | {per_k / english:.2f} |")


if __name__ == "__main__":
    main()
