"""The regression set: veilbot's own generated corpora and threads (``tests/data``).

The team wrote these, so they show whether a change breaks what worked, not how detection
does on data it was not tuned on. Corpus messages become ``Case`` objects so they get the same
row as the outside sources (both detectors); veilbot's outputs also feed the corpus metrics
docs/guardrail.md reports (leak rate by platform and hard-case tag, ``tests.perf.eval_metrics``).
Threads run through the real guardrail on a real Redis (``VEILBOT_TEST_REDIS_URL``, else a
private ``redis-server``): restore fidelity and same value -> same placeholder.
"""

from __future__ import annotations

import os
import random
import sys
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

from tests.perf.eval_detectors import Output
from tests.perf.eval_metrics import CorpusScore
from tests.perf.eval_threads import ThreadScore, score_thread
from tests.perf.sources.cases import Case, Keep, Label, Origin

DATA = Path(__file__).resolve().parents[1] / "data"
CORPORA = (("held-out", "_holdout"), ("dev", ""))
"""Held-out first: its pools and seed were never used while tuning, so it is the headline."""


def rows(name: str) -> list[dict[str, Any]]:
    """The lines of a JSONL file in ``tests/data``."""
    import json

    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def as_cases(title: str, messages: list[dict[str, Any]]) -> list[Case]:
    """Corpus messages as cases of the source ``regression:<title>`` (labels complete)."""
    cases = []
    for message in messages:
        labels = tuple(Label(p["type"], p["start"], p["end"], p["value"]) for p in message["pii"])
        keeps = tuple(Keep(k["kind"], k["start"], k["end"], k["value"]) for k in message["keep"])
        cases.append(
            Case(
                source=f"regression:{title}",
                id=f"regression:{title}:{message['id']}",
                origin=Origin("veilbot", "working tree", "tests/data", message["id"]),
                text=message["text"],
                labels=labels,
                keeps=keeps,
                platform=message["platform"],
                tags=tuple(message["hard"]),
            )
        )
    return cases


class CorpusObserver:
    """Feeds veilbot's outputs into the corpus metrics of docs/guardrail.md."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self._by_id = {m["id"]: m for m in messages}
        self.score = CorpusScore()

    def __call__(self, case: Case, output: Output) -> None:
        """Score one message."""
        message = self._by_id[case.origin.test]
        covered = [(f.start, f.end) for f in output.found]
        self.score.add_message(message, output.text, covered)


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
    from bot.config.settings import load_settings
    from bot.core.keys import KeySpace
    from bot.core.types import ThreadId
    from guardrails.vault.store import RedisVault

    settings = load_settings()
    client = aioredis.Redis.from_url(url)
    vault = RedisVault(
        client, KeySpace(f"vbeval-{uuid.uuid4().hex[:8]}"), key=os.urandom(32), ttl_seconds=600
    )
    score, rng = ThreadScore(), random.Random(7)
    async with AsyncExitStack() as stack:
        guardrail, _, _ = await _guardrail(settings, vault, stack, background=False)
        for thread in threads:
            if thread["platform"] == "slack":
                tid = ThreadId(f"slack:TEVAL:C{thread['id']}:1700000000.000100")
            else:
                tid = ThreadId(f"discord:GEVAL:{thread['id']}")
            await score_thread(guardrail, vault, tid, thread, rng, score)
    await client.aclose()
    return score
