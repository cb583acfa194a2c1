"""``veilbot fork SOURCE --first-k K | --last-n N [--into THREAD]``: a thread from another's turns.

Runs beside the service on the stores only (no spaCy, no model): the new thread keeps the
chosen turns of ``SOURCE`` and the vault values they refer to (``bot.core.thread_fork``).
Without ``--into`` the fork is a new console thread (``veilbot console --thread NAME`` goes on
with it). Prints the new thread's id on stdout and what was kept on stderr.
"""

from __future__ import annotations

import argparse
import sys
import uuid

from bot.cli import loop
from bot.config.settings import Settings
from bot.core.fork import ForkSpan
from bot.core.thread_fork import ThreadForks
from bot.core.types import ThreadId, parse_thread_id, thread_id
from bot.stores import build_stores, key_ring
from guardrails.vault.fork import RedisVaultCopier
from guardrails.vault.store import RedisVault


def run_fork(settings: Settings, args: argparse.Namespace) -> int:
    """``veilbot fork``; returns the exit code (``InputRejected`` is the caller's exit 2)."""
    span = ForkSpan(args.first_k, args.last_n)
    source = parse_thread_id(args.source)
    target = parse_thread_id(args.into) if args.into else _new_console_thread()
    return loop.run(_fork(settings, source, target, span), settings.event_loop)


def _new_console_thread() -> ThreadId:
    return thread_id("console", f"fork-{uuid.uuid4().hex[:12]}")


async def _fork(settings: Settings, source: ThreadId, target: ThreadId, span: ForkSpan) -> int:
    async with build_stores(settings) as stores:
        vault = RedisVault(
            stores.redis,
            stores.keys,
            key=key_ring(settings),
            ttl_seconds=settings.history_ttl_seconds,
        )
        forks = ThreadForks(
            history=stores.history,
            locks=stores.locks,
            values=RedisVaultCopier(vault),
            audit=stores.audit,
        )
        platform, workspace, channel = _where(target)
        fork = await forks.fork(
            source,
            target,
            span,
            platform=platform,  # type: ignore[arg-type]
            workspace=workspace,
            channel=channel,
            user_id="cli",
        )
    print(fork.target)
    print(
        f"veilbot: forked {fork.source} ({span.describe()}): {fork.turns} turns, "
        f"{fork.values} vault values kept",
        file=sys.stderr,
    )
    return 0


def _where(tid: ThreadId) -> tuple[str, str, str]:
    """Platform, workspace and channel of a thread id, as its audit rows name them."""
    parts = tid.split(":")
    if parts[0] == "console":
        return "console", "local", parts[1]
    return parts[0], parts[1], parts[2] if len(parts) > 2 else parts[1]
