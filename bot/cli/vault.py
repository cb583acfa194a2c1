"""``veilbot vault rotate``: seal everything again with the current vault key.

Runs beside the service (replicas keep answering) on the stores only, no spaCy: every
thread's vault (a ``SCAN`` walk, ``guardrails.vault.rotation``), the queued events
(``bot.state.resealing``) and the Slack installations in the audit database. Progress goes to
stderr. Interrupted, it is run again: what it finished stays finished and is passed over.
When nothing is left that only a previous key opens, the previous keys are forgotten in Redis
and ``VEILBOT_VAULT_PREVIOUS_KEYS`` can be emptied (docs/operations.md).
"""

from __future__ import annotations

import argparse
import sys

from adapters.slack.oauth.installations import SealedInstallationStore
from bot.audit.installations import SqlInstallationRows
from bot.cli import loop
from bot.config.settings import Settings
from bot.state.resealing import reseal_queue
from bot.stores import build_stores, key_ring
from guardrails.vault.keys import PREVIOUS_SETTING, derive_install_key, derive_queue_key
from guardrails.vault.rotation import (
    VaultProgress,
    VaultRotation,
    check_keys,
    forget_previous_keys,
)
from guardrails.vault.sealing import AesGcmSealer
from guardrails.vault.store import RedisVault

REPORT_EVERY = 1000
"""Threads between two progress lines."""


def run_vault(settings: Settings, args: argparse.Namespace) -> int:
    """``veilbot vault rotate``; returns the exit code (1: values no configured key opens)."""
    return loop.run(_rotate(settings, args.page), settings.event_loop)


def _say(line: str) -> None:
    print(f"veilbot: {line}", file=sys.stderr, flush=True)


def _progress(done: VaultProgress) -> None:
    _say(
        f"vault: {done.threads} threads walked, {done.rekeyed} sealed again "
        f"({done.values} values, {done.lookups} lookups)"
    )


async def _rotate(settings: Settings, page: int) -> int:
    ring = key_ring(settings)
    ids = [i.hex() for i in ring.ids]
    _say(f"sealing with key {ids[0]}; previous keys: {', '.join(ids[1:]) or 'none'}")
    async with build_stores(settings) as stores:
        vault = RedisVault(
            stores.redis, stores.keys, key=ring, ttl_seconds=settings.history_ttl_seconds
        )
        await check_keys(vault, stores.keys)
        walked = await VaultRotation(vault, stores.keys, page=page).run(
            _progress, every=REPORT_EVERY
        )
        queued, queue_unread = await reseal_queue(
            stores.redis, stores.keys, AesGcmSealer(ring.derived(derive_queue_key))
        )
        _say(f"queue: {queued} queued events sealed again")
        installs = SealedInstallationStore(
            SqlInstallationRows(stores.audit.engine),
            AesGcmSealer(ring.derived(derive_install_key)),
        )
        installed, install_unread = await installs.reseal()
        _say(f"slack installations: {installed} sealed again")
        unread = walked.unreadable + queue_unread + install_unread
        if unread:
            _say(
                f"{unread} sealed values open with no configured key ({walked.unreadable} in "
                f"vaults, {queue_unread} queued, {install_unread} installations): they stay "
                "as they are; keep the previous keys until you know why"
            )
            return 1
        await forget_previous_keys(vault, stores.keys)
    if walked.left:
        _say(
            f"{walked.left} lookups could not be carried over: those values get a new "
            "placeholder when they come up again in their thread"
        )
    _say(f"done: everything is sealed with key {ids[0]}; {PREVIOUS_SETTING} can be emptied")
    return 0
