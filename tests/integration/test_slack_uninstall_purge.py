"""An uninstalled Slack workspace's audit runs go after the grace period, by the daily task.

Real SQLite and PostgreSQL (the ``audit_store`` fixture): the action log's ``erase_workspace``
entries are the schedule; runs started before the erasure go, a reinstalled workspace's new
runs, other workspaces' runs and runs still inside the grace period stay; each purge is logged.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.audit.actions import AdminAction
from bot.audit.retention import retention_running
from bot.audit.store import SqlAuditStore
from bot.audit.types import RunFilter
from bot.audit.uninstalls import purge_uninstalled
from bot.core.types import AuditRecord
from tests.fixtures.audit_db import run

NOW = datetime.now(UTC)
GRACE = timedelta(days=30)


def slack_run(team: str, days_ago: float) -> AuditRecord:
    started = NOW - timedelta(days=days_ago)
    return run(
        thread_id=f"slack:{team}:C1:{int(days_ago)}.1",
        workspace=team,
        started_at=started,
        finished_at=started + timedelta(seconds=2),
    )


async def erase_at(audit: SqlAuditStore, team: str, days_ago: float) -> None:
    await audit.record_action(
        AdminAction(
            actor="slack:uninstall",
            action="erase_workspace",
            target=f"slack:{team}",
            at=NOW - timedelta(days=days_ago),
        )
    )


async def runs_of(audit: SqlAuditStore, team: str) -> int:
    return await audit.count_runs(RunFilter(platform="slack", workspace=team))


async def test_runs_erased_past_the_grace_period_go_and_the_purge_is_logged(
    audit_store: SqlAuditStore,
) -> None:
    for team, days_ago in (("TGONE", 40), ("TGONE", 5), ("TKEPT", 40), ("TNEW", 10)):
        await audit_store.record(slack_run(team, days_ago))
    await erase_at(audit_store, "TGONE", 31)  # reinstalled since: its 5-day-old run stays
    await erase_at(audit_store, "TNEW", 2)  # still inside the grace period

    assert await purge_uninstalled(audit_store, GRACE) == 1
    assert (await runs_of(audit_store, "TGONE"), await runs_of(audit_store, "TKEPT")) == (1, 1)
    assert await runs_of(audit_store, "TNEW") == 1
    [logged] = [a for a in await audit_store.recent_actions() if a.action == "purge_workspace"]
    assert (logged.actor, logged.target) == ("retention", "slack:TGONE")
    assert logged.outcome["runs_deleted"] == 1

    assert await purge_uninstalled(audit_store, GRACE) == 0  # nothing left: nothing logged
    purges = [a for a in await audit_store.recent_actions() if a.action == "purge_workspace"]
    assert len(purges) == 1


async def test_the_daily_task_purges_uninstalls_even_with_audit_retention_off(
    audit_store: SqlAuditStore,
) -> None:
    await audit_store.record(slack_run("TGONE", 40))
    await erase_at(audit_store, "TGONE", 31)
    async with retention_running(audit_store, 0, uninstall_grace_days=30) as task:
        assert task is not None
        for _ in range(250):
            if await runs_of(audit_store, "TGONE") == 0:
                break
            await asyncio.sleep(0.02)
    assert await runs_of(audit_store, "TGONE") == 0


async def test_a_discord_server_that_removed_the_bot_has_its_runs_purged_after_the_grace(
    audit_store: SqlAuditStore,
) -> None:
    guild = "1180000000000000042"
    started = NOW - timedelta(days=40)
    await audit_store.record(
        run(
            thread_id=f"discord:{guild}:1180000000000000043",
            platform="discord",
            workspace=guild,
            channel="1180000000000000043",
            started_at=started,
            finished_at=started + timedelta(seconds=2),
        )
    )
    await audit_store.record(slack_run(guild, 40))  # a Slack workspace of the same id stays
    await audit_store.record_action(
        AdminAction(
            actor="discord:guild_remove",
            action="erase_workspace",
            target=f"discord:{guild}",
            at=NOW - timedelta(days=31),
        )
    )

    assert await purge_uninstalled(audit_store, GRACE) == 1
    assert await audit_store.count_runs(RunFilter(platform="discord", workspace=guild)) == 0
    assert await runs_of(audit_store, guild) == 1
    [logged] = [a for a in await audit_store.recent_actions() if a.action == "purge_workspace"]
    assert logged.target == f"discord:{guild}"
