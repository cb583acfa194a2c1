"""``open_redis`` against a real Redis: what opening a connection costs the event loop."""

from __future__ import annotations

import asyncio
import importlib.metadata
from typing import Any

import pytest

from bot.state.client import open_redis


async def test_new_connections_do_not_look_up_package_metadata(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unless told its version, redis-py reads it from the package metadata for every new
    connection: a scan of ``sys.path`` on the event loop, and a burst opens dozens at once."""
    looked_up: list[str] = []
    real = importlib.metadata.version

    def version(name: str) -> Any:
        looked_up.append(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    client = open_redis(redis_url, timeout=5)
    try:
        # each BLPOP holds its connection until the server's timeout: 20 connections at once
        empty = f"{redis_prefix}:never-pushed"
        got = await asyncio.gather(*(client.blpop([empty], timeout=0.2) for _ in range(20)))
        assert got == [None] * 20
        assert await client.ping() is True
    finally:
        await client.aclose()
    assert looked_up == []
