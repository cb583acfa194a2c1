"""The guarded turn with each model provider, through the real composition root.

Real Redis, SQLite, Presidio; the model is each provider's fake, driven by its real SDK.
Whoever serves the model, it never sees a seeded personal value, the people in the thread
get theirs back (at once and streamed), and an outage gives the answer Anthropic's would.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.core.errors import ConfigError
from bot.core.types import Reply, TurnStatus
from tests.e2e.conftest import MakeProviderApp, audit_rows, message, unique_thread
from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.base import Outage
from tests.fixtures.providers import Provider, provider_settings
from tests.fixtures.services import free_port, redis_dump


def meta(row: dict[str, Any]) -> dict[str, Any]:
    """An audit row's metadata (SQLite hands JSON columns back as text)."""
    value = row["metadata"]
    return json.loads(value) if isinstance(value, str) else dict(value)


class Collect:
    """A reply sink that keeps the deltas the user saw."""

    def __init__(self) -> None:
        self.deltas: list[str] = []

    async def delta(self, text: str) -> None:
        self.deltas.append(text)


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_no_provider_ever_receives_personal_data_and_users_get_it_back(
    make_provider_app: MakeProviderApp, provider: Provider, redis_url: str, streamed: bool
) -> None:
    app = await make_provider_app(provider.settings)
    thread = unique_thread()
    replies: list[Reply | None] = []
    for text in TURNS:
        sink = Collect() if streamed else None
        reply = await app.conversation.handle(message(text, thread, private=True), sink)
        replies.append(reply)
        if sink is not None:
            assert reply is not None
            assert "".join(sink.deltas) == reply.text

    assert all(r is not None and r.status is TurnStatus.OK for r in replies)
    fake = provider.fake
    assert len(fake.requests) == 3
    assert "<PERSON_" in fake.all_text_sent()
    assert leaked(SEEDED, fake.all_text_sent()) == []
    assert leaked(SEEDED, fake.everything_received()) == []
    assert leaked(SEEDED, redis_dump(redis_url, app.settings.redis_prefix)) == []
    rows = await audit_rows(app, thread)
    assert leaked(SEEDED, "\n".join(str(v) for row in rows for v in row.values())) == []
    assert [meta(r)["provider"] for r in rows] == [provider.name] * 3
    assert all(r["model"] == provider.model and r["cost_usd"] is not None for r in rows)
    assert leaked(SEEDED, "\n".join(r.text for r in replies if r)) == SEEDED


OUTAGES = [Outage.RATE_LIMITED, Outage.OVERLOADED, Outage.SERVER_ERROR, Outage.BAD_REQUEST]


@pytest.mark.parametrize("outage", OUTAGES)
async def test_an_outage_gives_the_same_answer_as_with_anthropic(
    make_provider_app: MakeProviderApp,
    provider: Provider,
    fake_anthropic: FakeAnthropic,
    outage: Outage,
) -> None:
    answers = []
    for p in (provider_settings("anthropic", fake_anthropic), provider.settings):
        app = await make_provider_app(p, model_max_retries=1)
        fakes = [fake_anthropic, provider.fake]
        for fake in fakes:
            fake.fail_as(outage, times=2, retry_after_ms="5")
        reply = await app.conversation.handle(message("Hello, I'm Maria Gonzalez", unique_thread()))
        for fake in fakes:
            fake.reset()
        assert reply is not None
        answers.append((reply.status, reply.text))
    assert answers[0][0] is TurnStatus.MODEL_ERROR
    assert answers[1] == answers[0]


async def test_a_timeout_gives_the_same_answer_as_with_anthropic(
    make_provider_app: MakeProviderApp, provider: Provider, fake_anthropic: FakeAnthropic
) -> None:
    answers = []
    baseline = provider_settings("anthropic", fake_anthropic)
    for p, fake in ((baseline, fake_anthropic), (provider.settings, provider.fake)):
        app = await make_provider_app(p, model_timeout_seconds=0.3)
        fake.delay = 1.5
        reply = await app.conversation.handle(message("hello", unique_thread()))
        fake.delay = 0.0
        assert reply is not None
        answers.append((reply.status, reply.text))
    assert answers[0][0] is TurnStatus.MODEL_ERROR
    assert answers[1] == answers[0]


WRONG = {
    "anthropic": ({"anthropic_api_key": "sk-wrong"}, "ANTHROPIC_API_KEY"),
    "bedrock": ({"aws_secret_access_key": "not/the/secret"}, "AWS_SECRET_ACCESS_KEY"),
    "vertex": (
        {"vertex_credentials_file": None, "vertex_access_token": "ya29.expired"},
        "VEILBOT_VERTEX_ACCESS_TOKEN",
    ),
    "openai": ({"openai_api_key": "sk-wrong"}, "VEILBOT_OPENAI_API_KEY"),
}


async def test_wrong_credentials_stop_start_up_naming_the_variable(
    make_provider_app: MakeProviderApp, provider: Provider
) -> None:
    if provider.name in ("anthropic", "openai"):
        provider.fake.api_key = "sk-right"  # type: ignore[attr-defined]
    wrong, variable = WRONG[provider.name]
    with pytest.raises(ConfigError, match=variable) as info:
        await make_provider_app(provider.settings, **wrong)
    assert not [v for v in wrong.values() if v and str(v) in str(info.value)]  # not echoed
    assert provider.fake.requests == []  # nothing was asked of the model


async def test_an_unknown_model_stops_start_up_naming_it(
    make_provider_app: MakeProviderApp, provider: Provider
) -> None:
    with pytest.raises(ConfigError, match="VEILBOT_MODEL"):
        await make_provider_app(provider.settings, model="claude-nothing-1")


async def test_a_provider_down_at_start_is_a_notice_not_a_failure(
    make_provider_app: MakeProviderApp, provider: Provider
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    moved = {
        "anthropic": {"anthropic_base_url": url},
        "bedrock": {"bedrock_base_url": url},
        "vertex": {"vertex_base_url": f"{url}/v1"},
        "openai": {"openai_base_url": f"{url}/v1"},
    }[provider.name]
    app = await make_provider_app(provider.settings, **moved)
    assert any(f"Could not check the {provider.name} model" in n for n in app.notices)
    reply = await app.conversation.handle(message("hello", unique_thread()))
    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR


async def test_mangled_placeholders_from_a_small_model_are_restored_and_counted(
    make_provider_app: MakeProviderApp, fake_openai: Any
) -> None:
    app = await make_provider_app(provider_settings("openai", fake_openai))
    thread = unique_thread()
    fake_openai.answer("Sure PERSON_1, I'll mail [EMAIL_ADDRESS_1] and < person_1 >.")
    reply = await app.conversation.handle(
        message("I'm Maria Gonzalez, write to maria@example.com", thread, private=True)
    )
    assert reply is not None
    assert reply.text == "Sure Maria Gonzalez, I'll mail maria@example.com and Maria Gonzalez."
    (row,) = await audit_rows(app, thread)
    assert row["mangled_placeholders"] == 3
    assert row["cost_usd"] == 0.0
    assert meta(row)["pricing"] == "no price known: counted as 0 (self-hosted)"
