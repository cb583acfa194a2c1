"""The audit commands as a new operator first runs them: into pipes, files and typos."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.audit.installations import SqlInstallationRows
from bot.audit.store import SqlAuditStore, sqlite_url
from bot.core.keys import KeySpace
from bot.state.orgs import RedisOrgMembers
from tests.e2e.test_admin_confirm import THREAD, env_for, in_terminal, veilbot
from tests.fixtures.audit_db import run


@pytest.fixture
def env(tmp_path: Path, redis_url: str, redis_prefix: str) -> dict[str, str]:
    return env_for(tmp_path, redis_url, redis_prefix)


async def seed(tmp_path: Path, **values: object) -> str:
    record = run(thread_id=THREAD, **values)
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        await audit.record(record)
    return record.run_id


@pytest.mark.parametrize(
    ("where", "problem"),
    [("missing/out.jsonl", "its directory does not exist"), (".", "it is a directory")],
)
def test_an_export_to_a_path_it_cannot_write_is_one_line_not_a_traceback(
    tmp_path: Path, env: dict[str, str], where: str, problem: str
) -> None:
    done = veilbot(["audit", "export", "-o", str(tmp_path / where)], env)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("veilbot: cannot write the export to ")
    assert problem in done.stderr


async def test_list_in_a_pipe_keeps_whole_run_ids_and_says_when_nothing_matches(
    tmp_path: Path, env: dict[str, str]
) -> None:
    run_id = await seed(tmp_path)
    listed = veilbot(["audit", "list"], env)
    assert listed.returncode == 0, listed.stderr
    header, row = listed.stdout.splitlines()
    assert header.split("\t")[:3] == ["started (UTC)", "run", "thread"]
    assert row.split("\t")[1:3] == [run_id, THREAD]

    none = veilbot(["audit", "list", "--user", "U-nobody"], env)
    assert none.returncode == 0
    assert none.stdout == ""
    assert none.stderr.strip() == "no runs match"


async def test_list_on_a_terminal_shows_run_ids_whole(tmp_path: Path, env: dict[str, str]) -> None:
    run_id = await seed(tmp_path)
    rc, shown = in_terminal(["audit", "list"], env)
    assert rc == 0, shown
    assert run_id in shown


async def test_show_prints_every_field_of_one_run(tmp_path: Path, env: dict[str, str]) -> None:
    run_id = await seed(tmp_path, answer="Done, <PERSON_1>.\x1b[2J\nBye")
    shown = veilbot(["audit", "show", run_id], env)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].split() == ["run_id", run_id]
    assert any(line.split() == ["thread_id", THREAD] for line in lines)
    assert "  Done, <PERSON_1>.\\x1b[2J" in lines  # a terminal escape shown, not obeyed
    assert "\x1b" not in shown.stdout

    as_json = veilbot(["audit", "show", run_id, "--json"], env)
    assert json.loads(as_json.stdout)["answer"] == "Done, <PERSON_1>.\x1b[2J\nBye"

    missing = veilbot(["audit", "show", "0" * 32], env)
    assert (missing.returncode, missing.stderr.strip()) == (1, f"veilbot: no run {'0' * 32}")
    assert veilbot(["audit", "show", "../x"], env).returncode == 2


async def test_forget_dry_run_json_prints_the_plan_as_json(
    tmp_path: Path, env: dict[str, str]
) -> None:
    await seed(tmp_path)
    done = veilbot(["forget", "--thread", THREAD, "--dry-run", "--json"], env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "dry_run": True,
        "threads": [THREAD],
        "runs": 1,
        "keeps_runs": False,
    }


async def test_forget_workspace_erases_that_team_only_and_logs_it(
    tmp_path: Path, env: dict[str, str], redis_client: Any, redis_prefix: str
) -> None:
    keys = KeySpace(prefix=redis_prefix)
    for team in ("TA", "TB"):
        await redis_client.rpush(keys.thread(f"slack:{team}:C1:100.1", "history"), b"x")
        await redis_client.hset(keys.thread(f"slack:{team}:C1:100.1", "vault"), "k", "v")
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        rows = SqlInstallationRows(audit.engine)
        await rows.put("", "TA", False, b"sealed-a")
        await rows.put("", "TB", False, b"sealed-b")

    refused = veilbot(["forget", "--workspace", "TA"], env)
    assert refused.returncode != 0
    assert "--yes" in refused.stderr
    bad = veilbot(["forget", "--workspace", "ta; drop", "--yes"], env)
    assert bad.returncode != 0
    assert "Slack team id" in bad.stderr

    done = veilbot(["audit", "forget", "--workspace", "TA", "--yes", "--json"], env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"workspace": "TA", "redis_keys": 2}
    left = [k.decode() async for k in redis_client.scan_iter(f"{redis_prefix}:*")]
    assert sorted(left) == sorted(
        [keys.thread("slack:TB:C1:100.1", "history"), keys.thread("slack:TB:C1:100.1", "vault")]
    )
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        assert await SqlInstallationRows(audit.engine).teams() == [("", "TB")]
        logged = await audit.recent_actions()
    assert [(a.actor, a.action, a.target) for a in logged] == [
        ("cli", "erase_workspace", "slack:TA")
    ]


async def test_forget_an_org_wide_install_erases_the_workspaces_it_served(
    tmp_path: Path, env: dict[str, str], redis_client: Any, redis_prefix: str
) -> None:
    keys = KeySpace(prefix=redis_prefix)
    for team in ("TC", "TD"):
        await redis_client.rpush(keys.thread(f"slack:{team}:C1:100.1", "history"), b"x")
    await RedisOrgMembers(redis_client, redis_prefix).add("E1", "TC")  # served under E1
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        await SqlInstallationRows(audit.engine).put("E1", "", True, b"sealed-org")

    done = veilbot(["forget", "--workspace", "E1", "--yes", "--json"], env)
    assert done.returncode == 0, done.stderr
    left = [k.decode() async for k in redis_client.scan_iter(f"{redis_prefix}:*")]
    assert left == [keys.thread("slack:TD:C1:100.1", "history")]  # TD is not in the org
    async with SqlAuditStore(sqlite_url(tmp_path / "data")) as audit:
        assert await SqlInstallationRows(audit.engine).teams() == []
        targets = sorted(str(a.target) for a in await audit.recent_actions())
    assert targets == ["slack:E1", "slack:TC"]
