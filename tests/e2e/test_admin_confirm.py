"""Admin commands that destroy or dump data: ``forget`` asks first, ``export`` reports.

Real subprocesses on a real SQLite audit log and Redis; a pseudo-terminal stands in for the
person at the keyboard where one is needed.
"""

from __future__ import annotations

import contextlib
import os
import pty
import subprocess
import sys
from pathlib import Path

from bot.audit.store import SqlAuditStore, sqlite_url
from bot.audit.types import RunFilter
from tests.fixtures.audit_db import run

ROOT = Path(__file__).resolve().parents[2]
THREAD = "slack:T1:C1:100.1"


def env_for(tmp_path: Path, redis_url: str, redis_prefix: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    return {
        **clean,
        "VEILBOT_DATA_DIR": str(tmp_path / "data"),
        "VEILBOT_REDIS_URL": redis_url,
        "VEILBOT_REDIS_PREFIX": redis_prefix,
    }


def veilbot(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m bot *args`` with stdin not a terminal (killed on timeout)."""
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def in_terminal(args: list[str], env: dict[str, str], typed: str = "") -> tuple[int, str]:
    """``python -m bot *args`` on a pseudo-terminal, ``typed`` at the keyboard."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "bot", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=ROOT,
    )
    os.close(follower)
    output = b""
    try:
        os.write(leader, typed.encode())
        with contextlib.suppress(OSError):  # EIO once the child has exited
            while chunk := os.read(leader, 4096):
                output += chunk
        return proc.wait(60), output.decode("utf-8", "replace")
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def seed(tmp_path: Path) -> None:
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        await audit.record(run(thread_id=THREAD))
        await audit.record(run(thread_id=THREAD, minutes=1))


async def runs_left(tmp_path: Path) -> int:
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        return await audit.count_runs(RunFilter(thread_id=THREAD))


async def test_forget_shows_what_it_erases_and_asks_first(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    await seed(tmp_path)
    env = env_for(tmp_path, redis_url, redis_prefix)

    dry = veilbot(["forget", "--thread", THREAD, "--dry-run"], env)
    assert dry.returncode == 0, dry.stderr
    assert "would forget: 1 thread(s)" in dry.stdout
    assert "2 audit run(s) deleted" in dry.stdout
    assert THREAD in dry.stdout

    unasked = veilbot(["forget", "--thread", THREAD], env)  # a script without --yes
    assert unasked.returncode == 2
    assert "--yes" in unasked.stderr
    assert await runs_left(tmp_path) == 2

    rc, shown = in_terminal(["forget", "--thread", THREAD], env, typed="n\n")
    assert rc == 1
    assert "2 audit run(s) deleted" in shown
    assert "erase? [y/N]" in shown
    assert await runs_left(tmp_path) == 2

    rc, shown = in_terminal(["forget", "--thread", THREAD], env, typed="y\n")
    assert rc == 0, shown
    assert "forgotten: 1 thread(s)" in shown
    assert await runs_left(tmp_path) == 0


async def test_forget_yes_erases_without_asking(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    await seed(tmp_path)
    done = veilbot(
        ["forget", "--thread", THREAD, "--yes"], env_for(tmp_path, redis_url, redis_prefix)
    )
    assert done.returncode == 0, done.stderr
    assert await runs_left(tmp_path) == 0


async def test_a_gzip_export_is_not_written_to_a_terminal_and_an_export_reports_its_size(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> None:
    await seed(tmp_path)
    env = env_for(tmp_path, redis_url, redis_prefix)
    rc, shown = in_terminal(["audit", "export", "--gzip"], env)
    assert rc == 2
    assert "terminal" in shown
    assert "\x1f\x8b" not in shown  # no gzip magic on the screen

    target = tmp_path / "out.csv.gz"
    done = veilbot(["audit", "export", "--gzip", "--format", "csv", "-o", str(target)], env)
    assert done.returncode == 0, done.stderr
    size = target.stat().st_size
    assert f"exported 2 run(s), {size} bytes, to {target}" in done.stderr
