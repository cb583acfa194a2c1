"""Benchmark: a long answer shown in Slack's update mode (post, then edit) against the fake Slack.

Streams answers of 16 000 and 50 000 characters into ``LiveReply`` in 20-character deltas with
no edit interval (the worst case: every delta may edit) and prints the time and the number of
characters converted to mrkdwn. Run on demand, not part of the suite:

    python -m tests.perf.bench_slack_update [--sizes 16000 50000] [--delta 20]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable, Collection
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import replies
from adapters.slack.replies import LiveReply, Target
from tests.fakes.slack_server import FakeSlack

LIMIT = 3800


def long_answer(size: int) -> str:
    """Markdown of ``size`` characters: headed paragraphs, a list and a code block now and then."""
    parts: list[str] = []
    length, i = 0, 0
    while length < size:
        if i % 7 == 3:
            part = "```\n" + "\n".join(f"x = {i} + {k}  # <tag>" for k in range(8)) + "\n```"
        elif i % 5 == 2:
            part = "\n".join(f"- item **{k}** of list {i}" for k in range(5))
        else:
            part = f"## Part {i}\n\n" + "This sentence says one more thing in plain words. " * 5
        parts.append(part)
        length += len(part) + 2
        i += 1
    return "\n\n".join(parts)[:size]


class Converted:
    """Counts the characters ``LiveReply`` hands to ``to_mrkdwn`` (wraps it, same results)."""

    def __init__(self) -> None:
        self.chars = 0
        self._real: Callable[[str, Collection[str]], str] = replies.to_mrkdwn

    def __call__(self, markdown: str, asked: Collection[str] = ()) -> str:
        self.chars += len(markdown)
        return self._real(markdown, asked)


async def stream_answer(text: str, *, delta: int = 20) -> tuple[list[str], Converted, float]:
    """Stream ``text`` into an update-mode ``LiveReply``; (thread texts, counter, seconds)."""
    counter = Converted()
    original: Any = replies.to_mrkdwn
    replies.to_mrkdwn = counter  # type: ignore[assignment]
    try:
        async with FakeSlack() as slack:
            client = AsyncWebClient(token="xoxb-bench", base_url=slack.api_url)  # noqa: S106
            target = Target(channel="C1", thread_ts="1700000000.000100", team="T1", user="U1")
            live = LiveReply(client, target, mode="update", limit=LIMIT, interval=0.0)
            start = time.perf_counter()
            for at in range(0, len(text), delta):
                await live.delta(text[at : at + delta])
            await live.finish(text, streamed=True)
            elapsed = time.perf_counter() - start
            posted = slack.thread("C1", target.thread_ts)
    finally:
        replies.to_mrkdwn = original
    return posted, counter, elapsed


async def bench(sizes: list[int], delta: int) -> None:
    """Print time and characters converted per answer size."""
    for size in sizes:
        posted, counter, elapsed = await stream_answer(long_answer(size), delta=delta)
        print(
            f"{size:>7} chars in {delta}-char deltas: {elapsed:6.2f} s, "
            f"{counter.chars:>10} chars converted, {len(posted)} messages"
        )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_000, 50_000])
    parser.add_argument("--delta", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(bench(args.sizes, args.delta))


if __name__ == "__main__":
    main()
