"""Monthly budgets from a config file, kept in real Redis and shared by two service instances.

Costs come from the fake Anthropic server's usage figures, priced as in production; spend is
seeded through the ledger's rebuild (what a restart does from the audit log). Two apps on
one Redis prefix stand for two replicas.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.config.reload import Reloader
from bot.config.settings import load_settings
from bot.core.types import TurnStatus
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]

BUDGETS = """\
admin_users = "console:U-admin"

[budgets]
user_usd = 10       # every person: $10 a month
workspace_usd = 1000
"""
ME = "console:local:U-tester"
COSTLY = {
    "input_tokens": 100_000,
    "output_tokens": 0,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
MID_NOVEMBER = datetime(2026, 11, 15, 12, 0, tzinfo=UTC)


class AdminInbox:
    """An ``AdminNotifier`` that keeps what it was asked to send (the console has no DMs)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    async def notify_admins(self, workspace: str, text: str) -> int:
        self.sent.append((workspace, text))
        return 1


def budgets_from(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "veilbot.toml"
    path.write_text(BUDGETS, encoding="utf-8")
    settings = load_settings(config_file=path, _env_file=None)
    return {"budgets": settings.budgets, "admin_users": settings.admin_users}


async def two_replicas(make_app: MakeApp, tmp_path: Path) -> tuple[App, App, AdminInbox]:
    first = await make_app(**budgets_from(tmp_path))
    second = await make_app(**budgets_from(tmp_path))
    inbox = AdminInbox()
    for app in (first, second):
        app.ledger.clock = lambda: MID_NOVEMBER
        app.conversation.budgets.add_notifier("console", inbox)
    return first, second, inbox


async def seed(app: App, usd: float) -> None:
    await app.ledger.rebuild({("user", ME): usd}, {})


async def test_crossing_80_percent_tells_the_admins_once_even_when_two_replicas_race(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first, second, inbox = await two_replicas(make_app, tmp_path)
    fake_anthropic.usage = COSTLY  # $0.30 a turn on the default model
    await seed(first, 7.9)

    replies = await asyncio.gather(
        first.conversation.handle(message("hello", unique_thread())),
        second.conversation.handle(message("hello again", unique_thread())),
    )
    assert [r.status for r in replies if r is not None] == [TurnStatus.OK] * 2
    one_more = await first.conversation.handle(message("and once more", unique_thread()))
    assert one_more is not None
    assert one_more.ok

    assert len(inbox.sent) == 1
    workspace, text = inbox.sent[0]
    assert workspace == "local"
    assert f"user budget `{ME}`" in text
    assert "of $10.00" in text
    assert "2026-11" in text
    states = {s.budget.ident: s for s in await second.admin_budgets().show()}
    assert states[ME].spent_usd == pytest.approx(8.8)


async def test_a_spent_budget_refuses_the_turn_before_the_model_and_audits_it(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first, second, _ = await two_replicas(make_app, tmp_path)
    await seed(first, 10.0)
    thread = unique_thread()

    reply = await second.conversation.handle(message("my name is Jane Roe", thread))

    assert reply is not None
    assert reply.status is TurnStatus.OVER_BUDGET
    assert reply.text == (
        "You have used this month's veilbot budget of $10.00. It resets on 1 December 2026 "
        "(UTC); a veilbot admin can raise it."
    )
    assert fake_anthropic.requests == []
    await second.audit.flush()
    rows = await audit_rows(second, thread)
    assert [r["status"] for r in rows] == ["over_budget"]
    assert rows[0]["prompt"] in ("", None)
    assert "Jane" not in str(rows[0])
    # someone else in the workspace still has budget left
    other = replace(message("hello", unique_thread()), user_id="U-other")
    answered = await first.conversation.handle(other)
    assert answered is not None
    assert answered.ok


async def test_the_month_turning_lifts_the_refusal(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first, _, _ = await two_replicas(make_app, tmp_path)
    await seed(first, 10.0)
    refused = await first.conversation.handle(message("hi", unique_thread()))
    assert refused is not None
    assert refused.status is TurnStatus.OVER_BUDGET

    first.ledger.clock = lambda: datetime(2026, 12, 1, 0, 0, 1, tzinfo=UTC)
    answered = await first.conversation.handle(message("hi", unique_thread()))

    assert answered is not None
    assert answered.ok
    assert len(fake_anthropic.requests) == 1


async def test_an_admin_raise_from_chat_lifts_the_refusal_on_every_replica(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    first, second, _ = await two_replicas(make_app, tmp_path)
    await seed(first, 10.0)

    refused = await first.admin.budget("console:U-tester", ["raise", "user", ME, "50"])
    assert not refused.allowed
    assert refused.text == "Sorry, budgets are for veilbot admins only."
    bad = await first.admin.budget("console:U-admin", ["raise", "user", ME, "lots"])
    assert not bad.allowed
    assert "number of US dollars" in bad.text
    raised = await first.admin.budget("console:U-admin", ["raise", "user", ME, "20"])
    assert raised.allowed
    assert f"user {ME}: $10.00 of $20.00 (50%), raised this month" in raised.text

    answered = await second.conversation.handle(message("hi", unique_thread()))
    assert answered is not None
    assert answered.ok
    actions = await first.audit.recent_actions()
    assert [(a.action, a.target, a.outcome["usd"]) for a in actions[:1]] == [
        ("budget_limit", ME, 20.0)
    ]


def run_cli(args: list[str], app: App) -> subprocess.CompletedProcess[str]:
    """``veilbot ARGS`` as an operator runs it, on the app's Redis and audit database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VEILBOT_", "ANTHROPIC_"))}
    s = app.settings
    env |= {
        "VEILBOT_DATA_DIR": str(s.data_dir),
        "VEILBOT_REDIS_URL": str(s.redis_url),
        "VEILBOT_REDIS_PREFIX": s.redis_prefix,
        "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
        "VEILBOT_BUDGETS": s.budgets.model_dump_json(),
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=90,
        check=False,
    )


async def test_a_raise_from_the_cli_lifts_the_refusal_and_show_lists_the_spend(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    app = await make_app(**budgets_from(tmp_path))
    await seed(app, 10.0)
    refused = await app.conversation.handle(message("hi", unique_thread()))
    assert refused is not None
    assert refused.status is TurnStatus.OVER_BUDGET

    bad = await asyncio.to_thread(run_cli, ["budget", "raise", "user", "nobody", "20"], app)
    assert bad.returncode == 2
    assert "a user budget's id looks like slack:TEAM:USER" in bad.stderr
    done = await asyncio.to_thread(run_cli, ["budget", "raise", "user", ME, "25"], app)
    assert done.returncode == 0, done.stderr
    assert f"user {ME}: $10.00 of $25.00 (40%), raised this month" in done.stdout

    answered = await app.conversation.handle(message("hi", unique_thread()))
    assert answered is not None
    assert answered.ok
    shown = await asyncio.to_thread(run_cli, ["budget", "show", "--json"], app)
    assert shown.returncode == 0, shown.stderr
    rows = {(r["kind"], r["id"]): r for r in json.loads(shown.stdout)}
    mine = rows[("user", ME)]
    assert mine["limit_usd"] == 25.0
    assert mine["raised"] is True
    assert mine["spent_usd"] > 10.0  # the answered turn was charged
    assert rows[("workspace", "console:local")]["limit_usd"] == 1000.0


async def test_a_raise_survives_a_config_reload_and_a_reset_returns_to_the_file(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    values = budgets_from(tmp_path)
    app = await make_app(**values, config=tmp_path / "veilbot.toml")
    await seed(app, 10.0)
    raised = await app.admin.budget("console:U-admin", ["raise", "user", ME, "20"])
    assert raised.allowed

    (tmp_path / "veilbot.toml").write_text(BUDGETS.replace("user_usd = 10", "user_usd = 5"))
    assert await Reloader(app).reload()
    answered = await app.conversation.handle(message("hi", unique_thread()))
    assert answered is not None
    assert answered.ok  # the raise ($20) wins over the reloaded file ($5)

    reset = await app.admin.budget("console:U-admin", ["reset", "user", ME])
    assert reset.allowed
    assert "of $5.00" in reset.text
    refused = await app.conversation.handle(message("hi", unique_thread()))
    assert refused is not None
    assert refused.status is TurnStatus.OVER_BUDGET
    assert "budget of $5.00" in refused.text


async def test_lost_sums_are_rebuilt_from_the_audit_log_at_start_with_the_months_raises(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path, redis_prefix: str
) -> None:
    fake_anthropic.usage = COSTLY
    first = await make_app(**budgets_from(tmp_path))
    for text in ("my name is Jane Roe", "and I live in Lyon"):
        reply = await first.conversation.handle(message(text, unique_thread()))
        assert reply is not None
        assert reply.ok
    raised = await first.admin.budget("console:U-admin", ["raise", "user", ME, "12"])
    assert raised.allowed
    await first.audit.flush()
    kept = [k async for k in first.redis.scan_iter(match=f"{redis_prefix}:*")]
    budget_keys = [k for k in kept if b":spend:" in k or b":limit:" in k or b"budgets:" in k]
    assert budget_keys
    for key in budget_keys:  # ids and numbers only
        value = await first.redis.get(key) if await first.redis.type(key) == b"string" else b""
        assert b"Jane" not in key + (value or b"")
    await first.redis.delete(*budget_keys)  # Redis lost them (this test's keys only)

    second = await make_app(**budgets_from(tmp_path))  # a start rebuilds the month

    states = {s.budget.ident: s for s in await second.admin_budgets().show()}
    assert states[ME].spent_usd == pytest.approx(0.6)
    assert (states[ME].limit_usd, states[ME].raised) == (12.0, True)
    assert states["console:local"].spent_usd == pytest.approx(0.6)
