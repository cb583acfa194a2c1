"""A workspace's queued turns, dropped at once when it uninstalls the app (or revokes tokens).

An entry waiting in the turn queue (``bot.state.queue``) holds the user's raw text, sealed.
``drop_workspace`` deletes every entry of the workspace's threads, their lists and sealed
payloads together (one Lua step per thread, in whichever shard it is), so nothing of them is
answered later or stays in Redis; a thread's token is released by the next worker that begins
it (its list is empty).
A worker already working one of those entries learns it from ``QueuedEvent.withdrawn`` (the
payload is gone): the turn stops before the model is called and before the answer is stored
or posted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from bot.state import queue_lua
from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DroppedEntry:
    """A queued event dropped unanswered: ids only (its text was sealed, and is deleted).

    Attributes:
        platform: the adapter that queued it.
        event_id: its delivery id, as given to ``TurnQueue.put``.
        thread_id: the thread it belonged to.
    """

    platform: str
    event_id: str
    thread_id: ThreadId


def _glob(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


async def drop_workspace(
    redis: RedisClient, keys: KeySpace, platform: str, workspace: str
) -> list[DroppedEntry]:
    """Delete every queued entry of ``workspace``'s threads; the entries dropped.

    Raises:
        StoreError: Redis failed (the entries dropped so far stay dropped).
    """
    pattern = keys.queue_everywhere(f"thread:{_glob(platform)}:{_glob(workspace)}:*")
    drop = redis.register_script(queue_lua.DROP)
    dropped: list[DroppedEntry] = []
    async with store_errors("queue drop"):
        lists = [k async for k in redis.scan_iter(match=pattern, count=500)]
        for key in lists:
            name = key.decode() if isinstance(key, bytes) else str(key)
            found = keys.queue_key(name)
            if found is None:
                continue
            shard, kind = found
            thread = ThreadId(kind.removeprefix("thread:"))
            hashes = [keys.queue("payloads", shard), keys.queue("attempts", shard)]
            for raw in await drop(keys=[name, *hashes]):
                entry = raw.decode() if isinstance(raw, bytes) else str(raw)
                kind, _, event_id = entry.partition(":")
                dropped.append(DroppedEntry(kind, event_id, thread))
    if dropped:
        logger.info(
            "queue: %d entries of workspace %s:%s dropped", len(dropped), platform, workspace
        )
    return dropped
