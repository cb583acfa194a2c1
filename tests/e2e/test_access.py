"""Who may use the bot: allow and deny lists from a config file, through the fake platforms.

A refused person gets one private line (Slack: an ephemeral message in the thread; Discord: a
direct message, and no thread is opened), the model is never called, and the audit keeps a
``refused`` turn with ids only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bot.audit.types import RunFilter
from bot.config.settings import load_settings
from bot.core.text import REFUSED_REPLY
from tests.e2e.conftest import MakeApp
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_payloads import AUDITOR_ROLE_ID, GUILD_ID
from tests.fakes.discord_server import BOT_ID, CHANNEL_ID, FakeDiscord
from tests.fakes.slack_payloads import mention

SECRET = "Jane Roe jane.roe@example.com"

SLACK_RULES = """\
# who may use the bot
[access]
allow_channels = ["C1", "slack:T1:C9"]
allow_slack_groups = ["S100"]
deny_users = ["slack:T1:U666"]
"""


def access_from(tmp_path: Path, text: str) -> dict[str, Any]:
    """The ``access`` setting as read from a config file on disk."""
    path = tmp_path / "veilbot.toml"
    path.write_text(text, encoding="utf-8")
    return {"access": load_settings(config_file=path, _env_file=None).access}


async def audit_of(h_app: Any, message_id: str) -> list[dict[str, Any]]:
    await h_app.audit.flush()
    async with h_app.audit.engine.connect() as conn:
        result = await conn.execute(
            sa.text("SELECT * FROM audit_runs WHERE message_id = :m"), {"m": message_id}
        )
        return [dict(row._mapping) for row in result]


async def ask(h: Harness, user: str, channel: str) -> tuple[str, dict[str, Any]]:
    payload = mention(f"my name is {SECRET}", user=user, channel=channel)
    assert await h.send(payload) == 200
    await h.settle()
    return payload["event"]["ts"], payload


async def test_slack_allows_the_named_group_in_the_named_channels_and_refuses_the_rest(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    async with slack_harness(make_app, **access_from(tmp_path, SLACK_RULES)) as h:
        h.slack.usergroups["S100"] = ["U111", "U666"]
        ts, _ = await ask(h, "U111", "C1")  # in the group, in an allowed channel
        assert len(h.slack.thread("C1", ts)) == 1
        assert len(fake_anthropic.requests) == 1

        refused = [
            await ask(h, "U222", "C1"),  # not in the group
            await ask(h, "U666", "C9"),  # in the group, but denied by name
            await ask(h, "U111", "C2"),  # a channel not allowed
        ]
        assert len(fake_anthropic.requests) == 1  # the model saw none of them
        ephemeral = h.slack.calls_to("chat.postEphemeral")
        assert [(e["user"], e["channel"]) for e in ephemeral] == [
            ("U222", "C1"),
            ("U666", "C9"),
            ("U111", "C2"),
        ]
        assert all(e["text"] == REFUSED_REPLY for e in ephemeral)
        assert [e["thread_ts"] for e in ephemeral] == [ts for ts, _ in refused]
        for (ts, _), channel in zip(refused, ["C1", "C9", "C2"], strict=True):
            assert h.slack.thread(channel, ts) == []  # nothing posted for the channel
            [row] = await audit_of(h.app, ts)
            assert row["status"] == "refused"
            assert row["prompt"] in ("", None)
            assert SECRET.split()[0] not in str(row)
        assert len(h.slack.calls_to("usergroups.list")) == 1  # read once, then cached
        page = await h.app.audit.list_runs(RunFilter(status="refused", workspace="T1"))
        assert {r.message_id for r in page.runs} >= {ts for ts, _ in refused}


async def test_slack_refuses_when_the_named_groups_cannot_be_read(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    async with slack_harness(make_app, **access_from(tmp_path, SLACK_RULES)) as h:
        h.slack.fail("usergroups.list", 200, error="missing_scope")
        ts, _ = await ask(h, "U111", "C1")  # groups unknown: refused, not let through
        assert h.slack.thread("C1", ts) == []
        assert [e["user"] for e in h.slack.calls_to("chat.postEphemeral")] == ["U111"]
        assert not fake_anthropic.requests
        [row] = await audit_of(h.app, ts)
        assert row["status"] == "refused"
        meta = row["metadata"]
        assert (json.loads(meta) if isinstance(meta, str) else meta)["refused"] == "groups_unknown"


DISCORD_RULES = f"""\
[access]
deny_discord_roles = ["{AUDITOR_ROLE_ID}"]
allow_channels = ["discord:{GUILD_ID}:{CHANNEL_ID}"]
"""


@pytest.mark.parametrize("queued", [True, False], ids=["queued", "in-process"])
async def test_discord_refuses_a_denied_role_privately_and_opens_no_thread(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    queued: bool,
) -> None:
    bot = await start_bot(queue_enabled=queued, **access_from(tmp_path, DISCORD_RULES))
    msg = fake_discord.message(f"<@{BOT_ID}> my name is {SECRET}", mentions=(BOT_ID,))
    msg["member"]["roles"] = [str(AUDITOR_ROLE_ID)]
    await fake_discord.dispatch("MESSAGE_CREATE", msg)
    await bot.until(lambda: bool(fake_discord.of("POST", "/users/@me/channels")))
    [opened] = fake_discord.of("POST", "/users/@me/channels")
    await bot.until(lambda: len(fake_discord.posts()) == 1)
    await bot.settle()
    [told] = fake_discord.posts()
    assert told.body["content"] == REFUSED_REPLY
    assert str(opened.body["recipient_id"]) == msg["author"]["id"]  # a DM to the asker
    assert told.path != f"/channels/{CHANNEL_ID}/messages"  # not in the channel
    assert not fake_discord.of("POST", "/threads")
    assert not fake_anthropic.requests
    [row] = await audit_of(bot.app, msg["id"])
    assert (row["status"], row["user_id"]) == ("refused", msg["author"]["id"])

    # The same person without the role is answered, in a thread of the allowed channel.
    ok = fake_discord.message(f"<@{BOT_ID}> what is a vault?", mentions=(BOT_ID,))
    posts = await bot.say(ok, channel=int(ok["id"]))
    assert len(posts) == 1
    assert len(fake_anthropic.requests) == 1
