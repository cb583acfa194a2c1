"""Budgets seen through the platforms: the admin notice as a Slack/Discord DM, the refusal in
the thread, and a raise from the admin chat command that lifts it.

Spend is seeded through the ledger's rebuild; turns cost what the fake Anthropic server's
usage figures price to.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.notices import SlackAdminNotifier
from bot.app import App
from bot.config.settings import load_settings
from bot.core.types import InboundMessage, thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_payloads import BOB_ID, GUILD_ID
from tests.fakes.discord_server import BOT_ID, CHANNEL_ID, FakeDiscord
from tests.fakes.slack_payloads import mention, slash_command
from tests.fakes.slack_server import FakeSlack

COSTLY = {
    "input_tokens": 100_000,
    "output_tokens": 0,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
OVER = "You have used this month's veilbot budget of $10.00."


def config(tmp_path: Path, admins: str) -> dict[str, Any]:
    path = tmp_path / "veilbot.toml"
    path.write_text(f'admin_users = "{admins}"\n\n[budgets]\nuser_usd = 10\n', encoding="utf-8")
    settings = load_settings(config_file=path, _env_file=None)
    return {"budgets": settings.budgets, "admin_users": settings.admin_users}


async def statuses(app: App, user: str) -> list[str]:
    await app.audit.flush()
    async with app.audit.engine.connect() as conn:
        result = await conn.execute(
            sa.text("SELECT status FROM audit_runs WHERE user_id = :u ORDER BY started_at"),
            {"u": user},
        )
        return [row[0] for row in result]


async def test_slack_admins_get_one_dm_and_the_user_sees_the_refusal_until_an_admin_raises(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    admins = "slack:T1:UADMIN,slack:T1:UBOSS,slack:T2:UELSEWHERE"
    fake_anthropic.usage = COSTLY  # $0.30 a turn
    async with slack_harness(make_app, **config(tmp_path, admins)) as h:
        me = "slack:T1:U111"
        await h.app.ledger.rebuild({("user", me): 7.9}, {})
        for n in range(2):  # 8.20 then 8.50: the notice once
            payload = mention(f"question {n}")
            assert await h.send(payload) == 200
            await h.settle()
        dms = [c for c in h.slack.calls_to("chat.postMessage") if c["channel"].startswith("D")]
        assert sorted(c["channel"] for c in dms) == ["DUADMIN", "DUBOSS"]  # T1's admins only
        assert all(f"user budget `{me}`" in c["text"] for c in dms)
        assert all("$8.20 of $10.00 (82%)" in c["text"] for c in dms)

        await h.app.ledger.rebuild({("user", me): 10.0}, {})
        asked = len(fake_anthropic.requests)
        payload = mention("my name is Jane Roe")
        assert await h.send(payload) == 200
        await h.settle()
        thread = h.slack.thread("C1", payload["event"]["ts"])
        assert any(t.startswith(OVER) and "a veilbot admin can raise it" in t for t in thread)
        assert len(fake_anthropic.requests) == asked  # nothing reached the model
        assert (await statuses(h.app, "U111"))[-1] == "over_budget"

        command = slash_command(f"budget raise user {me} 20", h.slack.response_url(), user="U111")
        await h.send_form(command)
        await h.until(lambda: bool(h.slack.responses), "the refusal")
        assert h.slack.responses[-1]["text"] == "Sorry, budgets are for veilbot admins only."
        command = slash_command(
            f"budget raise user {me} 20", h.slack.response_url(2), user="UADMIN"
        )
        await h.send_form(command)
        await h.until(lambda: len(h.slack.responses) == 2, "the raise")
        assert "$10.00 of $20.00 (50%), raised this month" in h.slack.responses[-1]["text"]

        payload = mention("and now?")
        assert await h.send(payload) == 200
        await h.settle()
        assert len(fake_anthropic.requests) == asked + 1
        assert (await statuses(h.app, "U111"))[-1] == "ok"


async def test_discord_admins_get_a_dm_and_the_user_sees_the_refusal_until_an_admin_raises(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    admin_id = BOB_ID
    fake_anthropic.usage = COSTLY
    bot = await start_bot(**config(tmp_path, f"discord:{admin_id}"))
    msg = fake_discord.message(f"<@{BOT_ID}> hello", mentions=(BOT_ID,))
    me = f"discord:{GUILD_ID}:{msg['author']['id']}"
    await bot.app.ledger.rebuild({("user", me): 7.9}, {})

    await bot.say(msg, channel=int(msg["id"]))
    await bot.until(lambda: bool(fake_discord.of("POST", "/users/@me/channels")))
    await bot.settle()
    [opened] = fake_discord.of("POST", "/users/@me/channels")
    assert str(opened.body["recipient_id"]) == str(admin_id)
    notice = [p for p in fake_discord.posts() if "budget notice" in p.body.get("content", "")]
    assert len(notice) == 1
    assert f"user budget `{me}`" in notice[0].body["content"]

    await bot.app.ledger.rebuild({("user", me): 10.0}, {})
    asked = len(fake_anthropic.requests)
    refused = fake_discord.message(f"<@{BOT_ID}> my name is Jane Roe", mentions=(BOT_ID,))
    posts = await bot.say(refused, channel=int(refused["id"]))
    assert any(p.body["content"].startswith(OVER) for p in posts)
    assert len(fake_anthropic.requests) == asked
    assert (await statuses(bot.app, msg["author"]["id"]))[-1] == "over_budget"

    raise_ = fake_discord.slash(
        "budget",
        channel=CHANNEL_ID,
        author=admin_id,
        options=[
            {
                "type": 1,
                "name": "raise",
                "options": [
                    {"type": 3, "name": "kind", "value": "user"},
                    {"type": 3, "name": "budget", "value": me},
                    {"type": 3, "name": "usd", "value": "20"},
                ],
            }
        ],
    )
    await fake_discord.dispatch("INTERACTION_CREATE", raise_)
    await bot.until(lambda: bool(fake_discord.of("POST", "/interactions/")))
    answer = fake_discord.of("POST", "/interactions/")[-1].body["data"]["content"]
    assert "$10.00 of $20.00 (50%), raised this month" in answer

    again = fake_discord.message(f"<@{BOT_ID}> and now?", mentions=(BOT_ID,))
    await bot.say(again, channel=int(again["id"]))
    assert len(fake_anthropic.requests) == asked + 1
    assert json.dumps(await statuses(bot.app, msg["author"]["id"])).endswith('"ok"]')


def slack_turn(text: str, ts: str) -> InboundMessage:
    """A Slack mention's turn, as the adapter builds it (the replicas below have no adapter)."""
    return InboundMessage(
        thread_id=thread_id("slack", "T1", "C1", ts),
        platform="slack",
        workspace="T1",
        channel="C1",
        user_id="U111",
        message_id=ts,
        text=text,
    )


async def test_two_replicas_racing_past_80_percent_send_each_slack_admin_one_dm(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    fake_anthropic.usage = COSTLY
    async with FakeSlack() as slack:
        replicas = [await make_app(**config(tmp_path, "slack:T1:UADMIN,slack:T1:UBOSS"))]
        replicas.append(await make_app(**config(tmp_path, "slack:T1:UADMIN,slack:T1:UBOSS")))
        for app in replicas:
            client = AsyncWebClient(token="xoxb-test", base_url=slack.api_url)
            notices = SlackAdminNotifier(client, app.admin.admins)
            app.conversation.budgets.add_notifier("slack", notices)
        await replicas[0].ledger.rebuild({("user", "slack:T1:U111"): 7.9}, {})

        replies = await asyncio.gather(
            *(
                app.conversation.handle(slack_turn(f"question {n}", f"17000000{n}.000100"))
                for n, app in enumerate(replicas * 2)
            )
        )

        assert all(r is not None and r.ok for r in replies)  # 8.20 .. 9.10: under $10
        dms = [c for c in slack.calls_to("chat.postMessage") if c["channel"].startswith("D")]
        assert sorted(c["channel"] for c in dms) == ["DUADMIN", "DUBOSS"]
