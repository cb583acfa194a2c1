"""The ``[budgets]`` table: read from a config file or the environment, every bad key named
with its line; and the core's view of a turn's budgets and of the month's turn."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config.settings import load_settings
from bot.core.budgets import BudgetRef, Budgets, OverBudget, month_of, next_month, over_budget_reply
from bot.core.errors import ConfigError
from bot.core.types import InboundMessage
from bot.stores import budgets


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("VEILBOT_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no developer's .env


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "veilbot.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_budget_keys_are_named_with_their_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "[budgets]\n"
        "user_usd = -1\n"
        "users_usd = 5\n"
        "notify_percent = 120\n"
        "[budgets.channels]\n"
        '"slack:T1" = 10\n'
        '"slack:T1:C2" = "lots"\n',
    )
    with pytest.raises(ConfigError) as caught:
        load_settings(config_file=path)
    message = str(caught.value)
    for problem in (
        f"{path}:2: budgets.user_usd: Input should be greater than or equal to 0",
        f"{path}:3: budgets.users_usd: unknown setting (did you mean user_usd?)",
        f"{path}:4: budgets.notify_percent: Input should be less than or equal to 100",
        f'{path}:6: budgets.channels."slack:T1"',
        f'{path}:7: budgets.channels."slack:T1:C2": Input should be a valid number',
    ):
        assert problem in message
    assert "lots" not in message


def test_budgets_come_from_the_file_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, '[budgets]\nuser_usd = 10\n[budgets.users]\n"slack:T1:U9" = 50\n')
    from_file = budgets(load_settings(config_file=path))
    assert from_file.ref("user", "slack:T1:U1").limit_usd == 10
    assert from_file.ref("user", "slack:T1:U9").limit_usd == 50
    assert from_file.ref("workspace", "slack:T1").limit_usd is None
    monkeypatch.setenv("VEILBOT_BUDGETS", '{"workspace_usd": 300}')
    from_env = budgets(load_settings(config_file=path))
    assert from_env.ref("workspace", "slack:T1").limit_usd == 300
    assert from_env.ref("user", "slack:T1:U1").limit_usd is None


def inbound(*, private: bool = False, parent: str = "") -> InboundMessage:
    return InboundMessage(
        thread_id="slack:T1:C2:1.2",
        platform="slack",
        workspace="T1",
        channel="C2",
        user_id="U3",
        message_id="1.2",
        text="hi",
        private=private,
        parent_channel=parent,
    )


def test_a_turn_counts_against_its_workspace_channel_and_author_but_a_dm_has_no_channel() -> None:
    b = Budgets(defaults={"channel": 5.0}, named={"user": {"slack:T1:U3": 7.0}})
    assert [(r.kind, r.ident, r.limit_usd) for r in b.of(inbound())] == [
        ("workspace", "slack:T1", None),
        ("channel", "slack:T1:C2", 5.0),
        ("user", "slack:T1:U3", 7.0),
    ]
    assert [r.kind for r in b.of(inbound(private=True))] == ["workspace", "user"]
    assert b.of(inbound(parent="C0"))[1].ident == "slack:T1:C0"  # a thread: its channel's


def test_the_refusal_says_which_budget_and_when_it_resets_across_a_year_end() -> None:
    december = datetime(2026, 12, 31, 23, 59, tzinfo=UTC)
    assert month_of(december) == "2026-12"
    assert next_month(december) == datetime(2027, 1, 1, tzinfo=UTC)
    over = OverBudget(BudgetRef("channel", "slack:T1:C2", 200.0), 200.0, 201.5, "2026-12")
    assert over_budget_reply(over) == (
        "This channel has used this month's veilbot budget of $200.00. It resets on "
        "1 January 2027 (UTC); a veilbot admin can raise it."
    )
