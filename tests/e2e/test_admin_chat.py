"""Admin chat exports end to end: ``/veilbot audit export`` on Slack, ``/audit export`` on
Discord, through the real SDKs against the fake platforms, on the real core (Redis, SQLite,
Presidio via ``build_app``).

Personal data is seeded through a real turn first; the admin's file must hold that thread's
runs in placeholder form only. Anyone else is refused privately and gets no file.
"""

from __future__ import annotations

import gzip
import json
import logging
from typing import Any

import pytest

from tests.e2e.conftest import MakeApp
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import slack_harness
from tests.fakes.discord_server import (
    ALICE_ID,
    AUDITOR_ROLE_ID,
    BOB_ID,
    BOT_ID,
    CHANNEL_ID,
    GUILD_ID,
    FakeDiscord,
)
from tests.fakes.slack_payloads import mention, slash_command

SEEDED = ["Maria Gonzalez", "maria.gonzalez@example.com", "415 555 0123", "4155550123"]
PII = "Hi, I'm Maria Gonzalez: write to maria.gonzalez@example.com or call +1 415 555 0123."


def export_lines(data: bytes) -> list[dict[str, Any]]:
    """The JSON lines of a gzip export, after checking no seeded value is anywhere in it."""
    text = gzip.decompress(data).decode()
    assert not [v for v in SEEDED if v.casefold() in text.casefold()]
    return [json.loads(line) for line in text.splitlines()]


def assert_thread_export(data: bytes, tid: str) -> None:
    meta, *rows = export_lines(data)
    assert meta["_meta"]["contains_personal_data"] is False
    assert rows
    assert {r["thread_id"] for r in rows} == {tid}
    assert "<PERSON_1>" in rows[0]["prompt"]
    assert "<EMAIL_ADDRESS_1>" in rows[0]["prompt"]


async def test_slack_admin_gets_the_export_in_a_dm_and_others_are_refused(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_harness(make_app, admin_users="slack:T1:UADMIN") as h:
        seed = mention(PII)
        ts = seed["event"]["ts"]
        await h.send(seed)
        await h.until(lambda: any("Maria" in t for t in h.slack.thread("C1", ts)), "answer")
        await h.settle()
        tid = f"slack:T1:C1:{ts}"

        caplog.set_level(logging.INFO)
        status, _ = await h.send_form(
            slash_command(f"audit export thread:{tid}", h.slack.response_url(1), user="UNOBODY")
        )
        assert status == 200
        await h.until(lambda: bool(h.slack.responses), "refusal")
        assert "admins only" in h.slack.responses[0]["text"]
        assert h.slack.responses[0]["response_type"] == "ephemeral"
        assert not h.slack.uploads
        assert not h.slack.calls_to("conversations.open")
        assert "requester=slack:T1:UNOBODY" in caplog.text

        status, _ = await h.send_form(
            slash_command(f"audit export 7d thread:{tid}", h.slack.response_url(2), user="UADMIN")
        )
        assert status == 200
        await h.until(lambda: len(h.slack.responses) == 2, "admin answer")
        (upload,) = h.slack.shared_files()
        assert h.slack.calls_to("conversations.open")[0]["users"] == "UADMIN"
        assert upload.channel == "DUADMIN"
        assert upload.filename.endswith(".jsonl.gz")
        assert "1 run(s)" in (upload.initial_comment or "")
        assert_thread_export(upload.data, tid)
        assert "direct messages" in h.slack.responses[1]["text"]
        assert not [v for v in SEEDED if v in caplog.text]


async def test_slack_audit_without_export_shows_usage_and_runs_nothing(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app, admin_users="slack:T1:UADMIN") as h:
        status, body = await h.send_form(
            slash_command("audit", h.slack.response_url(), user="UADMIN")
        )
        assert status == 200
        assert "audit export" in json.loads(body)["text"]
        assert not h.slack.uploads


def export_options(**values: str) -> list[dict[str, Any]]:
    """The options of ``/audit export`` as Discord sends them (a subcommand with strings)."""
    options = [{"type": 3, "name": k, "value": v} for k, v in values.items()]
    return [{"type": 1, "name": "export", "options": options}]


async def seed_discord(bot: Any, fake: FakeDiscord) -> str:
    """One real turn with personal data in a new thread; returns the thread id."""
    data = fake.message(f"<@{BOT_ID}> {PII}", mentions=(BOT_ID,))
    await fake.dispatch("MESSAGE_CREATE", data)
    thread = int(data["id"])  # the fake names the thread after the message
    await bot.until(lambda: bool(fake.posts(thread)))
    return f"discord:{GUILD_ID}:{thread}"


async def run_export(bot: Any, fake: FakeDiscord, **kw: Any) -> dict[str, Any]:
    before = len(fake.followups())
    await fake.dispatch("INTERACTION_CREATE", fake.slash("audit", channel=CHANNEL_ID, **kw))
    await bot.until(lambda: len(fake.followups()) > before)
    return {"defer": fake.of("POST", "/interactions/")[-1], "reply": fake.followups()[-1]}


async def test_discord_admin_gets_an_ephemeral_file_and_others_are_refused(
    start_bot: StartBot, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await start_bot(admin_users=f"discord:{ALICE_ID}")
    tid = await seed_discord(bot, fake_discord)
    caplog.set_level(logging.INFO)

    refused = await run_export(bot, fake_discord, author=BOB_ID, options=export_options(thread=tid))
    assert refused["defer"].body["data"]["flags"] & 64
    assert refused["reply"].body["flags"] & 64
    assert "admins only" in refused["reply"].body["content"]
    assert not refused["reply"].files
    assert f"requester=discord:{BOB_ID}" in caplog.text

    allowed = await run_export(
        bot, fake_discord, author=ALICE_ID, options=export_options(since="7d", thread=tid)
    )
    assert allowed["reply"].body["flags"] & 64
    ((filename, data),) = allowed["reply"].files
    assert filename.endswith(".jsonl.gz")
    assert_thread_export(data, tid)
    assert not [v for v in SEEDED if v in caplog.text]


async def test_discord_admin_role_members_may_export(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(admin_discord_roles=str(AUDITOR_ROLE_ID))
    tid = await seed_discord(bot, fake_discord)
    result = await run_export(
        bot,
        fake_discord,
        author=BOB_ID,
        roles=(AUDITOR_ROLE_ID,),
        options=export_options(thread=tid),
    )
    ((_, data),) = result["reply"].files
    assert_thread_export(data, tid)
