"""Admin chat command parsing and admin checks (no I/O)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.admin.commands import AdminService, chat_filter, parse_admins
from bot.audit.types import FilterRejected, parse_meta_pairs, parse_user_ref
from bot.core.errors import ConfigError

NOW = datetime(2026, 3, 10, tzinfo=UTC)


def test_chat_filter_reads_since_and_one_scope() -> None:
    f = chat_filter(["7d", "channel:C123"], now=NOW)
    assert f.since == NOW - timedelta(days=7)
    assert f.channel == "C123"
    assert chat_filter(["user:slack:T1:U9"]).describe() == {
        "platform": "slack",
        "workspace": "T1",
        "user_id": "U9",
    }
    assert chat_filter(["thread:slack:T1:C1:1.2"]).thread_id == "slack:T1:C1:1.2"
    with pytest.raises(FilterRejected):
        chat_filter(["7d", "8d"])
    with pytest.raises(FilterRejected):
        chat_filter(["channel:<script>"])


def test_admins_by_user_and_discord_role() -> None:
    service = AdminService(
        object(),
        admins=parse_admins("slack:T1:U1, discord:42"),  # type: ignore[arg-type]
        admin_roles={"999"},
    )
    assert service.is_admin("slack:T1:U1")
    assert not service.is_admin("slack:T2:U1")  # same user id, another workspace
    assert service.is_admin("discord:42")
    assert service.is_admin("discord:7", roles=["1", "999"])
    assert not service.is_admin("slack:T1:U2", roles=["999"])  # roles are Discord only
    assert not service.is_admin("not a ref")
    with pytest.raises(ConfigError):
        parse_admins("U1")


def test_meta_pairs_and_user_refs() -> None:
    assert parse_meta_pairs(["source=dm", "tier:=2", "dm:=true"]) == {
        "source": "dm",
        "tier": 2,
        "dm": True,
    }
    with pytest.raises(FilterRejected):
        parse_meta_pairs(["novalue"])
    with pytest.raises(FilterRejected):
        parse_meta_pairs(["x:={bad"])
    assert str(parse_user_ref("slack:T1:U1")) == "slack:T1:U1"
    assert str(parse_user_ref("discord:42")) == "discord:42"
    for bad in ("slack:U1", "discord:G:42", "teams:1", "slack:T 1:U1"):
        with pytest.raises(FilterRejected):
            parse_user_ref(bad)
