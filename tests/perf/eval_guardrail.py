"""Measure the guardrail on the labelled corpus; run on demand, prints (not collected by pytest).

```
.venv/bin/python -m tests.perf.eval_guardrail [--markdown]
```

Two corpora, each with its threads: the held-out one (``corpus_holdout.jsonl``, fresh value
pools and seed, never used for tuning; the headline) and the dev one (``corpus.jsonl``). Corpus
through ``veilbot redact``'s code path: leak rate, partial
leaks and over-redaction (definitions in ``tests.perf.eval_metrics``), overall, per type, per
platform and per hard-case tag. Threads (``threads*.jsonl``) through the real
guardrail on a real Redis (``VEILBOT_TEST_REDIS_URL``, else a private ``redis-server``): restore
fidelity of mangled replies and same value -> same placeholder across turns. Prints figures
only, never corpus values.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.app import build_redactor  # noqa: E402
from bot.core.keys import KeySpace  # noqa: E402
from bot.core.types import ThreadId  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from tests.perf.eval_metrics import CorpusScore, Tally  # noqa: E402
from tests.perf.eval_threads import ThreadScore, score_thread  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"
TARGETS = {"leak": 0.02, "over": 0.10, "fidelity": 0.99, "stability": 0.98}
ZERO_LEAK_TYPES = ("EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "CRYPTO")


def _rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def score_corpus(messages: list[dict[str, Any]]) -> tuple[CorpusScore, float]:
    """Redact every message as ``veilbot redact`` does and score it; also ms per message."""
    redactor = build_redactor(load_settings())
    redactor.redact("warm up with Jane Doe, jane@example.com", "slack")
    score = CorpusScore()
    started = time.perf_counter()
    for message in messages:
        redacted = redactor.redact(message["text"], message["platform"])
        covered = [(e.start, e.end) for e in redacted.entities]
        score.add_message(message, redacted.text, covered)
    return score, (time.perf_counter() - started) * 1000 / max(1, len(messages))


@contextmanager
def redis_url() -> Iterator[str]:
    """``VEILBOT_TEST_REDIS_URL``, or a private redis-server for the duration."""
    if url := os.environ.get("VEILBOT_TEST_REDIS_URL"):
        yield url
        return
    from tests.fixtures.services import RedisServer, find_redis_server

    binary = find_redis_server()
    if binary is None:
        sys.exit("no redis-server found: set VEILBOT_TEST_REDIS_URL")
    server = RedisServer(binary)
    server.start()
    try:
        yield server.url
    finally:
        server.cleanup()


async def score_threads(threads: list[dict[str, Any]], url: str) -> ThreadScore:
    """Every thread through the real guardrail and vault (private restorer: all restored)."""
    import redis.asyncio as aioredis

    from bot.app import _guardrail
    from guardrails.vault import RedisVault

    settings = load_settings()
    client = aioredis.Redis.from_url(url)
    vault = RedisVault(
        client, KeySpace(f"vbeval-{uuid.uuid4().hex[:8]}"), key=os.urandom(32), ttl_seconds=600
    )
    score, rng = ThreadScore(), random.Random(7)
    async with AsyncExitStack() as stack:
        guardrail = await _guardrail(settings, vault, stack)
        for thread in threads:
            tid = _thread_id(thread)
            await score_thread(guardrail, vault, tid, thread, rng, score)
    await client.aclose()
    return score


def _thread_id(thread: dict[str, Any]) -> ThreadId:
    if thread["platform"] == "slack":
        return ThreadId(f"slack:TEVAL:C{thread['id']}:1700000000.000100")
    return ThreadId(f"discord:GEVAL:{thread['id']}")


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
    """The README table."""
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


CORPORA = (("held-out", "_holdout"), ("dev", ""))
"""Held-out first: its pools and seed were never used while tuning, so it is the headline."""


def main() -> None:
    """Run both evaluations on the held-out and the dev corpus and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="also print the README tables")
    args = parser.parse_args()
    for title, suffix in CORPORA:
        messages = _rows(f"corpus{suffix}.jsonl")
        corpus, ms = score_corpus(messages)
        with redis_url() as url:
            threads = asyncio.run(score_threads(_rows(f"threads{suffix}.jsonl"), url))
        print(f"== {title} corpus ==")  # noqa: T201
        print("\n".join(report(corpus, threads, ms, len(messages))))  # noqa: T201
        if args.markdown:
            print("\n" + "\n".join(markdown(corpus, threads)) + "\n")  # noqa: T201


if __name__ == "__main__":
    main()
