"""``GET /metrics`` after guarded turns with seeded personal data: the counts an operator
watches move as the turns did, and the scrape holds no personal data, user, thread or channel.

Real slack-bolt against the fake Slack, real Redis, SQLite (or an unreachable PostgreSQL),
Presidio via ``build_app``, the fake Anthropic server; the scrape is parsed with
``prometheus_client``'s own parser.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.core.conversation import Conversation
from bot.core.types import TurnStatus
from bot.service import build_http, running
from guardrails.presidio import PresidioGuardrail
from tests.e2e.conftest import CrashingAnalyzer, MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import FakeSlack
from tests.fixtures.services import free_port

SEEDED = {
    "person": "Maria Gonzalez",
    "email": "maria.gonzalez@example.org",
    "phone": "+1 415 555 0132",
    "other_person": "Jonathan Whitaker",
    "card": "4111 1111 1111 1111",
}
USER = "U7SEEDED42"
CHANNEL = "C9SEEDED7"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(base: str) -> tuple[str, str]:
    async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as response:
        assert response.status == 200
        return response.headers["Content-Type"], await response.text()


def samples(text: str) -> Samples:
    """Every sample of a scrape by (name, labels)."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def without_values(text: str) -> str:
    """The scrape without its sample values: names, labels and comments only."""
    lines = text.splitlines()
    return "\n".join(line if line.startswith("#") else line.rsplit(" ", 1)[0] for line in lines)


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def total(found: Samples, name: str) -> float:
    return sum(v for (n, _), v in found.items() if n == name)


async def until(check: Callable[[], Any], what: str) -> None:
    for _ in range(2000):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_metrics_count_guarded_turns_and_hold_no_personal_data(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, presidio_analyzer: Any
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(
            slack_bot_token="xoxb-test",
            slack_signing_secret=SIGNING_SECRET,
            slack_api_url=slack.api_url,
            slack_http_port=0,
            slack_streaming="off",
        )
        async with running(app, ["slack"]) as service:
            base = service.http.url
            _, before = await scrape(base)
            assert total(samples(before), "veilbot_turns_total") == 0

            # The model writes the placeholder without its brackets: restored, counted mangled.
            fake_anthropic.answer("Thanks PERSON_1, noted.")
            first = mention(
                f"I'm {SEEDED['person']}, mail {SEEDED['email']} or call {SEEDED['phone']}",
                user=USER,
                channel=CHANNEL,
            )
            second = mention(
                f"Please ask {SEEDED['other_person']} about card {SEEDED['card']}",
                user=USER,
                channel=CHANNEL,
            )
            url = f"{base}{app.settings.slack_http_path}"
            async with aiohttp.ClientSession() as session:
                # the second event twice: Slack's retry of a delivery it thinks was lost
                for event in (first, second, second):
                    body = json.dumps(event)
                    async with session.post(url, data=body, headers=signed_headers(body)) as r:
                        assert r.status == 200

            async def two_turns_and_the_duplicate() -> bool:
                found = samples((await scrape(base))[1])
                turns = value(found, "veilbot_turns_total", platform="slack", status="ok")
                dupes = value(found, "veilbot_duplicate_deliveries_total", platform="slack")
                return turns == 2 and dupes == 1

            await until(two_turns_and_the_duplicate, "two answered turns and one duplicate")

            # A turn whose guardrail cannot run, counted by the same metrics.
            broken = Conversation(
                guardrail=PresidioGuardrail(CrashingAnalyzer(presidio_analyzer), app.vault),
                history=app.history,
                model=app.model,
                audit=app.audit,
                locks=app.locks,
                dedupe=app.dedupe,
                system_prompt="s",
                window_tokens=1000,
                max_input_chars=1000,
                metrics=app.metrics,
            )
            refused = await broken.handle(
                message(f"I'm {SEEDED['person']}, card {SEEDED['card']}", unique_thread())
            )
            assert refused is not None
            assert refused.status is TurnStatus.GUARDRAIL_ERROR

            content_type, text = await scrape(base)

    assert content_type.startswith("text/plain")
    found = samples(text)
    assert value(found, "veilbot_turns_total", platform="slack", status="ok") == 2
    assert value(found, "veilbot_turns_total", platform="console", status="guardrail_error") == 1
    assert value(found, "veilbot_guardrail_failures_total", platform="console") == 1
    assert value(found, "veilbot_duplicate_deliveries_total", platform="slack") == 1
    assert value(found, "veilbot_entities_redacted_total", entity_type="PERSON") >= 2
    assert value(found, "veilbot_entities_redacted_total", entity_type="EMAIL_ADDRESS") == 1
    assert value(found, "veilbot_entities_redacted_total", entity_type="PHONE_NUMBER") == 1
    assert value(found, "veilbot_entities_redacted_total", entity_type="CREDIT_CARD") == 1
    assert value(found, "veilbot_placeholders_mangled_total") == 1
    model = app.model.model
    assert value(found, "veilbot_model_tokens_total", model=model, kind="input") > 0
    assert value(found, "veilbot_model_tokens_total", model=model, kind="output") > 0
    assert value(found, "veilbot_model_cost_usd_total", model=model) > 0
    # every turn past the dedupe took the thread's lock; every stage was timed
    assert value(found, "veilbot_lock_wait_seconds_count") == 3
    assert value(found, "veilbot_lock_timeouts_total") == 0
    assert value(found, "veilbot_turn_stage_seconds_count", stage="total") == 3
    assert value(found, "veilbot_turn_stage_seconds_count", stage="model") == 2
    assert value(found, "veilbot_turn_stage_seconds_count", stage="anonymize") == 2
    assert value(found, "veilbot_audit_spool_records") == 0

    # Nothing personal: no seeded value (nor a part of one), no user, channel or thread, in
    # any name, label or help text (sample values are numbers: 0.0132 is not a phone).
    lowered = without_values(text).lower()
    tokens = {part for v in SEEDED.values() for part in v.lower().split() if len(part) > 3}
    tokens |= {"maria", "gonzalez", "whitaker", "example.org", "4111", "0132"}
    for secret in tokens | {USER.lower(), CHANNEL.lower(), first["event"]["ts"]}:
        assert secret not in lowered, f"{secret!r} is in the scrape"
    assert "console:" not in lowered
    assert "slack:" not in lowered


async def test_metrics_show_the_audit_spool_while_the_database_is_down(
    make_app: MakeApp,
) -> None:
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    app = await make_app(database_url=dead, admin_http_port=0)
    reply = await app.conversation.handle(message("Hi, I'm Maria Gonzalez", unique_thread()))
    assert reply is not None
    assert reply.ok
    async with build_http(app, []) as http:
        _, text = await scrape(http.url)
    found = samples(text)
    assert value(found, "veilbot_audit_spool_records") == 1
    assert value(found, "veilbot_turns_total", platform="console", status="ok") == 1
    assert "maria" not in without_values(text).lower()
