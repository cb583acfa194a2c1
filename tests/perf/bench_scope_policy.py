"""What a scope's guardrail policy costs detection: its first text, and every text after.

One analyzer serves every scope; a scope's changes travel with the request and the detector
compiled for the changed policy is built once (then cached). Prints, for a ``ThreadDetector``
on the installed spaCy model: the p50 time per text with the service's policy, the first text
of a new scope policy (the compile), and the p50 after it.

Run: ``.venv/bin/python -m tests.perf.bench_scope_policy [--texts 200]`` (prints figures; not a
pytest test).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.core.scopes import PolicyOverride  # noqa: E402
from guardrails.detect.workers import ThreadDetector  # noqa: E402
from guardrails.engine import build_analyzer, resolve_model  # noqa: E402
from tests.perf.bench_anonymize import message  # noqa: E402


async def _timed(
    detector: ThreadDetector, texts: list[str], policy: PolicyOverride | None
) -> list[float]:
    times = []
    for text in texts:
        start = time.perf_counter()
        await detector.detect(text, "slack", policy=policy)
        times.append((time.perf_counter() - start) * 1000)
    return times


async def main(count: int) -> None:
    import random

    rng = random.Random(7)
    texts = [message(rng) for _ in range(count)]
    detector = ThreadDetector(build_analyzer(resolve_model("auto")))
    await _timed(detector, texts[:5], None)  # warm up
    base = await _timed(detector, texts, None)
    scope = PolicyOverride(off=frozenset({"LOCATION"}), thresholds=(("PERSON", 0.7),))
    first = await _timed(detector, texts[:1], scope)
    after = await _timed(detector, texts, scope)
    print(f"texts: {count}")
    print(f"service policy   p50 {statistics.median(base):7.2f} ms")
    print(f"scope, 1st text      {first[0]:7.2f} ms  (compiles the scope's detector once)")
    print(f"scope policy     p50 {statistics.median(after):7.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--texts", type=int, default=200)
    asyncio.run(main(parser.parse_args().texts))
