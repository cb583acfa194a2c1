"""Per-channel provider, streaming and follow-ups from a config file, and ``/veilbot settings``.

Through the fake Slack and the fake Anthropic API: one run, three channels, each with its own
settings, each difference visible in what the model receives or in what Slack is sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from adapters.slack.commands import SETTINGS_ADMINS_ONLY
from bot.config.settings import load_settings
from bot.core.types import thread_id
from bot.model.echo import ECHO_PREFIX
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import deleted, edited, mention, message, slash_command
from tests.fixtures.services import redis_dump

CONFIG = """\
max_tokens = 1000

[scopes."slack:T1"]
system_prompt = "Answer in French."

[scopes."slack:T1:C2"]
provider = "echo"
streaming = false

[scopes."slack:T1:C3"]
follow_ups = false
model = "claude-haiku-4-5"
max_tokens = 300
"""


def scoped(tmp_path: Path, text: str = CONFIG) -> dict[str, Any]:
    path = tmp_path / "veilbot.toml"
    path.write_text(text, encoding="utf-8")
    loaded = load_settings(config_file=path, _env_file=None)
    return {"scopes": loaded.scopes, "max_tokens": loaded.max_tokens}


async def ask(h: Harness, text: str, channel: str) -> str:
    payload = mention(text, channel=channel)
    assert await h.send(payload) == 200
    await h.settle()
    return str(payload["event"]["ts"])


async def test_each_channel_gets_its_provider_model_and_length(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    async with slack_harness(make_app, **scoped(tmp_path)) as h:
        general = await ask(h, "what is a vault?", "C1")
        echoed = await ask(h, "what is a placeholder?", "C2")
        await ask(h, "what is a contract?", "C3")
        c2_answer = h.slack.thread("C2", echoed)
        c1_answer = h.slack.thread("C1", general)

    # C2's provider is the offline echo model: the Anthropic API never sees its question
    assert len(fake_anthropic.requests) == 2
    first, third = (r.body for r in fake_anthropic.requests)
    assert "vault" in json.dumps(first["messages"])
    assert "contract" in json.dumps(third["messages"])
    assert "placeholder?" not in fake_anthropic.all_text_sent()
    assert [a.startswith(ECHO_PREFIX) for a in c2_answer] == [True]
    assert c1_answer
    assert not c1_answer[0].startswith(ECHO_PREFIX)
    assert (first["model"], first["max_tokens"]) == (h.app.settings.model_name, 1000)
    assert (third["model"], third["max_tokens"]) == ("claude-haiku-4-5", 300)
    assert "Answer in French." in json.dumps(third["system"])  # the workspace's, inherited


async def test_streaming_off_posts_one_final_message(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    config = CONFIG.replace('provider = "echo"\n', "")
    async with slack_harness(make_app, **scoped(tmp_path, config)) as h:
        fake_anthropic.answer("First part. " * 40, "First part. " * 40)
        await ask(h, "a long answer please", "C1")
        streamed_updates = len(h.slack.calls_to("chat.update"))
        streamed_posts = [c for c in h.slack.calls_to("chat.postMessage") if c["channel"] == "C1"]
        await ask(h, "a long answer please", "C2")
        posts = [c for c in h.slack.calls_to("chat.postMessage") if c["channel"] == "C2"]
        updates = h.slack.calls_to("chat.update")

    assert streamed_updates >= 1  # the harness edits a growing message elsewhere
    assert len(streamed_posts) == 1
    assert len(updates) == streamed_updates  # none for C2
    assert len(posts) == 1
    assert posts[0]["text"].count("First part.") == 40  # the whole answer at once


async def test_follow_ups_off_ignores_thread_replies_without_a_mention(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    async with slack_harness(make_app, **scoped(tmp_path)) as h:
        on = await ask(h, "hello", "C1")
        off = await ask(h, "hello", "C3")
        await h.send(message("and a follow-up?", channel="C1", thread_ts=on))
        await h.send(message("and a follow-up?", channel="C3", thread_ts=off))
        await h.settle()
        await h.send(mention("and with a mention?", channel="C3", thread_ts=off))
        await h.settle()

    asked = [json.dumps(r.body["messages"]) for r in fake_anthropic.requests]
    assert len(asked) == 4  # two openings, C1's follow-up, C3's mention; not C3's follow-up
    assert "follow-up" in asked[2]
    assert "with a mention" in asked[3]
    assert "follow-up" not in asked[3]  # C3's unmentioned reply never reached the history


async def test_settings_command_shows_an_admin_the_channel_s_settings(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    values = scoped(tmp_path) | {"admin_users": "slack:T1:UADMIN"}
    async with slack_harness(make_app, **values) as h:
        url = h.slack.response_url()
        _, body = await h.send_form(slash_command("settings", url, user="UADMIN", channel="C3"))
        shown = json.loads(body)
        _, body = await h.send_form(slash_command("settings", url, user="U111", channel="C3"))
        refused = json.loads(body)

    assert shown["response_type"] == "ephemeral"
    lines = shown["text"].splitlines()
    assert "slack:T1:C3" in lines[0]
    assert "• model: claude-haiku-4-5  (from slack:T1:C3)" in lines
    assert "• max_tokens: 300  (from slack:T1:C3)" in lines
    assert "• follow_ups: off  (from slack:T1:C3)" in lines
    assert "• streaming: on  (from service)" in lines
    assert any(line.startswith("• system: ") and "(from slack:T1)" in line for line in lines)
    assert "xoxb-test" not in shown["text"]  # no secret of the service's
    assert refused == {"text": SETTINGS_ADMINS_ONLY, "response_type": "ephemeral"}
    assert fake_anthropic.requests == []


POLICIES = """\
[scopes."slack:T1:C2".guardrail]
entities_off = ["EMAIL_ADDRESS"]

[scopes."slack:T1:C3".guardrail]
thresholds = { PERSON = 1.0 }

[scopes."slack:T1:C4".guardrail]
entities_on = ["URL"]

[scopes."slack:T1:C5".guardrail]
reveal = { EMAIL_ADDRESS = { shared = "placeholder" } }
"""
NAME, MAIL, LINK = "Maria Gonzalez", "maria.gonzalez@example.com", "https://intranet.example.com/x"


async def test_a_channel_s_guardrail_policy_is_applied_by_the_detection_worker(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    text = f"I'm {NAME}, mail {MAIL}, see {LINK}"
    async with slack_harness(make_app, **scoped(tmp_path, POLICIES)) as h:
        asked = {}
        for channel in ("C1", "C2", "C3", "C4", "C5"):
            ts = await ask(h, text, channel)
            asked[channel] = (fake_anthropic.requests[-1].body, h.slack.thread(channel, ts))

    def sent(channel: str) -> str:
        return fake_anthropic.last_user_text(asked[channel][0])

    # the service's policy: name and mail redacted, the link (URL is off) kept
    assert NAME not in sent("C1")
    assert MAIL not in sent("C1")
    assert LINK in sent("C1")
    # e-mail addresses off in C2: the address reaches the model, the name does not
    assert MAIL in sent("C2")
    assert NAME not in sent("C2")
    # a PERSON threshold no detection reaches in C3: the name is not redacted there
    assert NAME in sent("C3")
    assert MAIL not in sent("C3")
    # URLs on in C4: the link is a placeholder for the model, restored for the person
    assert LINK not in sent("C4")
    assert "<URL_1>" in sent("C4")
    assert any(LINK in answer for answer in asked["C4"][1])
    # the reveal policy of C5: the answer shows the placeholder, not the address
    assert any(MAIL in answer for answer in asked["C1"][1])
    assert asked["C5"][1]
    assert not any(MAIL in answer for answer in asked["C5"][1])
    assert any("EMAIL_ADDRESS_1" in answer for answer in asked["C5"][1])


async def test_a_message_deleted_or_edited_where_a_policy_is_the_channels_own_is_found(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    """In C4 links are personal data: a message is found again by its text redacted under that
    policy, so deleting one removes it and its values, and editing one replaces it (under the
    service's policy the link stays in the text, which matches nothing kept)."""
    other = "https://intranet.example.com/y"
    async with slack_harness(make_app, **scoped(tmp_path, POLICIES)) as h:
        first = mention(f"I'm {NAME}, see {LINK}", channel="C4")
        ts = first["event"]["ts"]
        tid = thread_id("slack", "T1", "C4", ts)
        await h.send(first)
        await h.settle()
        second = message(f"and {other} too", channel="C4", thread_ts=ts)
        await h.send(second)
        await h.settle()
        third = message("thanks", channel="C4", thread_ts=ts)
        await h.send(third)
        await h.settle()
        assert [m.role for m in await h.app.history.load(tid)] == ["user", "assistant"] * 3

        async def values() -> set[str]:
            return {value for _, value in (await h.app.vault.mapping(tid)).values()}

        assert {LINK, other} <= await values()
        await h.send(deleted(first["event"], channel="C4"))
        await h.settle()
        kept = await h.app.history.load(tid)
        assert len(kept) == 4, "the deleted message and its answer are gone"
        assert LINK not in await values()
        await h.send(edited(second["event"], "never mind that link", channel="C4"))
        await h.settle()
        kept = await h.app.history.load(tid)
        assert [m.text for m in kept if m.role == "user"] == ["never mind that link", "thanks"]
        assert other not in await values()


LANGUAGES = """\
[scopes."slack:T1:C2".guardrail]
languages = ["de", "fr"]
"""


async def audit_metadata(h: Harness, channel: str, ts: str) -> dict[str, Any]:
    async with h.app.audit.engine.connect() as conn:
        result = await conn.execute(
            sa.text("SELECT metadata FROM audit_runs WHERE channel = :c AND message_id = :m"),
            {"c": channel, "m": ts},
        )
        rows = [dict(row._mapping) for row in result]
    assert len(rows) == 1
    metadata = rows[0]["metadata"]
    return dict(json.loads(metadata) if isinstance(metadata, str) else metadata)


async def test_a_channel_s_languages_put_each_message_s_language_in_the_audit_record(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    german = "Kannst du bitte die Rechnung an Frau Weber schicken? Viele Grüße"
    french = "Peux-tu envoyer la facture à Madame Dubois avant vendredi ?"
    async with slack_harness(make_app, **scoped(tmp_path, LANGUAGES)) as h:
        english_ts = await ask(h, german, "C1")
        german_ts = await ask(h, german, "C2")
        french_ts = await ask(h, french, "C2")
        plain = await audit_metadata(h, "C1", english_ts)
        de = await audit_metadata(h, "C2", german_ts)
        fr = await audit_metadata(h, "C2", french_ts)
    # C1 reads English only: nothing identifies its messages, the record says nothing
    assert "language" not in plain
    assert de["language"] == "de"
    assert fr["language"] == "fr"
    # the record holds the code only, never the words it was told from
    assert "Rechnung" not in json.dumps(de)
    assert "facture" not in json.dumps(fr)


def _tax_id(body: str) -> str:
    """``body`` (ten digits) with its Steuer-ID check digit (ISO 7064 mod 11,10)."""
    product = 10
    for digit in map(int, body):
        product = ((digit + product) % 10 or 10) * 2 % 11
    return f"{body}{(11 - product) % 10}"


async def test_a_german_scope_s_values_never_reach_the_model_redis_or_the_audit(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path, redis_url: str
) -> None:
    tax_id = _tax_id("8609574271")
    seeded = ["Katharina Brenner", "Weber", tax_id, "14.03.1987"]
    text = (
        "Von: Katharina Brenner\nBetreff: Lohnabrechnung\n\nHallo Herr Weber, meine Steuer-ID "
        f"ist {tax_id}, Geburtsdatum: 14.03.1987.\nViele Grüße\nKatharina Brenner"
    )
    async with slack_harness(make_app, **scoped(tmp_path, LANGUAGES)) as h:
        ts = await ask(h, text, "C2")
        metadata = await audit_metadata(h, "C2", ts)
        async with h.app.audit.engine.connect() as conn:
            rows = (await conn.execute(sa.text("SELECT * FROM audit_runs"))).all()
        stored = redis_dump(redis_url, h.app.settings.redis_prefix)
    sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert leaked(seeded, sent) == []
    assert "Viele Grüße" in sent  # the greeting is the user's, not a name
    assert leaked(seeded, stored) == []
    assert leaked(seeded, "\n".join(str(v) for row in rows for v in row)) == []
    assert metadata["language"] == "de"
