"""Audit runs of erased workspaces, deleted once their grace period has passed.

A Slack uninstall (or ``veilbot forget --workspace``) erases a workspace's tokens, queued
turns, histories and vaults at once (``bot.stores.erase_workspace``), and so does removing the
bot from a Discord server (``bot.stores.erase_platform_workspace``); each records
``erase_workspace`` in the action log, with its time; each dropped turn gets a ``dropped``
run dated before it.
The workspace's audit runs (placeholder text only) stay for
``VEILBOT_SLACK_UNINSTALL_GRACE_DAYS``, so an admin can still export them; the daily retention
task then deletes the runs that started before the erasure (a workspace installed again keeps
its new runs) and records ``purge_workspace`` with the count. The action log is the schedule:
nothing else remembers an uninstall, and a purge missed while the service was down happens at
the next start.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.audit.actions import ActionKind, AdminAction
from bot.audit.types import RunFilter

log = logging.getLogger(__name__)

_PLATFORMS = frozenset({"slack", "discord"})


class UninstallStore(Protocol):
    """What the purge reads and writes (``SqlAuditStore``)."""

    async def latest_by_target(self, action: ActionKind, before: datetime) -> dict[str, datetime]:
        """Each target's newest ``action`` before ``before``."""
        ...

    async def delete_runs(self, run_filter: RunFilter) -> int:
        """Delete the matching runs."""
        ...

    async def record_action(self, action: AdminAction) -> None:
        """Append one action."""
        ...


async def purge_uninstalled(
    audit: UninstallStore, grace: timedelta, *, now: datetime | None = None
) -> int:
    """Delete the runs of workspaces erased more than ``grace`` ago; how many went."""
    erased = await audit.latest_by_target("erase_workspace", (now or datetime.now(UTC)) - grace)
    total = 0
    for target, at in sorted(erased.items()):
        platform, _, workspace = target.partition(":")
        if platform not in _PLATFORMS or not workspace:
            continue
        deleted = await audit.delete_runs(
            RunFilter(platform=platform, workspace=workspace, until=at)
        )
        if deleted:
            await audit.record_action(
                AdminAction(
                    actor="retention",
                    action="purge_workspace",
                    target=target,
                    outcome={"runs_deleted": deleted, "erased_at": at.isoformat()},
                )
            )
            log.info("uninstalled workspace purged target=%s runs=%d", target, deleted)
        total += deleted
    return total
