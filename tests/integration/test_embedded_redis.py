"""EmbeddedRedis: a real redis-server child process on a unix socket in the data directory."""

from __future__ import annotations

import shutil
import socket
import stat
import time
from pathlib import Path

import pytest

from bot.core.errors import ConfigError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ChatMessage, thread_id
from bot.state import embedded
from bot.state.client import open_redis
from bot.state.embedded import EmbeddedRedis
from bot.state.history import RedisHistoryStore

TID = thread_id("console", "alice")


async def ping(url: str) -> bool:
    client = open_redis(url, timeout=1)
    try:
        return bool(await client.ping())
    finally:
        await client.aclose()


async def test_starts_on_a_private_unix_socket(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path) as server:
        assert server.url == f"unix://{tmp_path / 'redis.sock'}"
        assert not server.reused
        assert await ping(server.url)
        mode = (tmp_path / "redis.sock").stat().st_mode
        assert stat.S_ISSOCK(mode)
        assert stat.S_IMODE(mode) == 0o700
        assert stat.S_IMODE((tmp_path / "redis").stat().st_mode) == 0o700
    assert not (tmp_path / "redis.sock").exists()


async def test_history_survives_a_restart(tmp_path: Path) -> None:
    keys = KeySpace()
    async with EmbeddedRedis(tmp_path) as server:
        client = open_redis(server.url, timeout=2)
        store = RedisHistoryStore(client, keys, ttl_seconds=3600, max_messages=10)
        await store.append(
            TID, [ChatMessage("user", "hi <PERSON_1>"), ChatMessage("assistant", "hello")]
        )
        await client.aclose()
    async with EmbeddedRedis(tmp_path) as server:
        client = open_redis(server.url, timeout=2)
        store = RedisHistoryStore(client, keys, ttl_seconds=3600, max_messages=10)
        assert [m.text for m in await store.load(TID)] == ["hi <PERSON_1>", "hello"]
        await client.aclose()
    assert (tmp_path / "redis" / "dump.rdb").exists()


async def test_second_instance_reuses_the_running_server(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path) as first:
        async with EmbeddedRedis(tmp_path) as second:
            assert second.reused
            assert second.url == first.url
        assert await ping(first.url)  # the reuser did not stop it


async def test_stale_socket_file_does_not_block_start(tmp_path: Path) -> None:
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(tmp_path / "redis.sock"))
    stale.close()  # the file stays, nothing listens: as after a crash
    assert (tmp_path / "redis.sock").exists()
    async with EmbeddedRedis(tmp_path) as server:
        assert not server.reused
        assert await ping(server.url)


async def test_long_data_dir_uses_a_short_private_socket_path(tmp_path: Path) -> None:
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    async with EmbeddedRedis(data_dir) as server:
        path = Path(server.url.removeprefix("unix://"))
        assert len(str(path)) < 100
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert await ping(server.url)
        assert (data_dir / "redis" / "redis.log").exists()
    shutil.rmtree(path.parent)


async def test_no_binary_tells_the_user_what_to_set(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(embedded.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ConfigError, match="VEILBOT_REDIS_URL"):
        async with EmbeddedRedis(tmp_path):
            pass


async def test_a_server_that_dies_at_start_fails_clearly(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(embedded, "find_redis_server", lambda: "/bin/false")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match="redis.log"):
        async with EmbeddedRedis(tmp_path):
            pass
    assert time.monotonic() - started < 5
