"""What is particular to each provider: how it signs, authenticates, bills and reports."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.errors import ModelMisconfigured, ModelRejected
from bot.core.types import ChatMessage, ModelRequest, ToolSpec, ToolUse
from bot.model.errors import CredentialsRefused, ModelNotFound
from tests.fakes.anthropic_server import FakeAnthropic, ToolCalls
from tests.fakes.aws import AwsCredentials
from tests.fakes.base import Outage
from tests.fakes.bedrock_server import FakeBedrock
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.vertex_server import FakeVertex
from tests.fixtures.providers import Provider, provider_settings
from tests.integration.test_providers import make_client, request


def bedrock(fake: FakeBedrock, **settings: object) -> Provider:
    return Provider("bedrock", fake, {**provider_settings("bedrock", fake), **settings})


def vertex(fake: FakeVertex, key_file: Path | None, **settings: object) -> Provider:
    return Provider("vertex", fake, {**provider_settings("vertex", fake, key_file), **settings})


def openai_(fake: FakeOpenAI, **settings: object) -> Provider:
    return Provider("openai", fake, {**provider_settings("openai", fake), **settings})


# Bedrock ---------------------------------------------------------------------------------


async def test_bedrock_requests_are_sigv4_signed_for_the_region(fake_bedrock: FakeBedrock):
    model = make_client(bedrock(fake_bedrock))
    await model.complete(request("hi"))
    await model.aclose()
    (sent,) = fake_bedrock.requests
    assert sent.path == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"
    auth = sent.headers["Authorization"]
    assert auth.startswith(f"AWS4-HMAC-SHA256 Credential={fake_bedrock.credentials.access_key}/")
    assert "/us-east-1/bedrock/aws4_request" in auth
    assert "model" not in sent.body
    assert "stream" not in sent.body


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"aws_secret_access_key": "another/secret/key/0123456789abcdefghijklm"}, "Signature"),
        ({"aws_access_key_id": "AKIAUNKNOWNKEY000001"}, "UnrecognizedClient"),
        ({"bedrock_region": "eu-west-1"}, "Signature"),
    ],
)
async def test_bedrock_refuses_a_wrong_key_secret_or_region(
    fake_bedrock: FakeBedrock, settings: dict[str, object], reason: str
):
    model = make_client(bedrock(fake_bedrock, **settings))
    try:
        with pytest.raises(CredentialsRefused, match=reason):
            await model.complete(request("hi"))
        with pytest.raises(CredentialsRefused):
            await model.verify()
    finally:
        await model.aclose()


async def test_bedrock_temporary_credentials_sign_their_session_token(fake_bedrock: FakeBedrock):
    fake_bedrock.credentials = AwsCredentials(session_token="FwoGZXIvYXdzEXAMPLE//token")
    creds = fake_bedrock.credentials
    good = make_client(
        bedrock(
            fake_bedrock, aws_access_key_id=creds.access_key, aws_session_token=creds.session_token
        )
    )
    missing = make_client(bedrock(fake_bedrock))
    try:
        assert (await good.complete(request("hi"))).text == "Noted: hi"
        assert fake_bedrock.requests[0].headers["X-Amz-Security-Token"] == creds.session_token
        with pytest.raises(CredentialsRefused):
            await missing.complete(request("hi"))
    finally:
        await good.aclose()
        await missing.aclose()


async def test_bedrock_api_keys_are_bearer_tokens(fake_bedrock: FakeBedrock):
    fake_bedrock.api_keys = {"ABSKbedrock-test-key"}
    settings = {"aws_access_key_id": None, "aws_secret_access_key": None}
    good = make_client(bedrock(fake_bedrock, bedrock_api_key="ABSKbedrock-test-key", **settings))
    wrong = make_client(bedrock(fake_bedrock, bedrock_api_key="ABSKwrong", **settings))
    try:
        assert (await good.complete(request("hi"))).text == "Noted: hi"
        assert fake_bedrock.requests[0].headers["Authorization"] == "Bearer ABSKbedrock-test-key"
        with pytest.raises(CredentialsRefused):
            await wrong.verify()
    finally:
        await good.aclose()
        await wrong.aclose()


async def test_bedrock_global_profiles_cost_less_than_regional_ones(fake_bedrock: FakeBedrock):
    costs = {}
    for model_id in (
        "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    ):
        fake_bedrock.reset()
        model = make_client(bedrock(fake_bedrock, model=model_id))
        result = await model.complete(request("hi there"))
        await model.aclose()
        costs[model_id.split(".")[0]] = (result.cost_usd, result.cost_note)
    assert costs["us"][0] == pytest.approx(costs["global"][0] * 1.1)
    assert costs["global"][1] == "list price"
    assert costs["us"][1] == "list price, regional endpoint +10%"


# Vertex ----------------------------------------------------------------------------------


async def test_vertex_gets_one_token_from_the_key_file_and_reuses_it(
    fake_vertex: FakeVertex, vertex_key_file: Path
):
    model = make_client(vertex(fake_vertex, vertex_key_file))
    for _ in range(3):
        await model.complete(request("hi"))
    await model.aclose()
    grants = [c for c in fake_vertex.checks if c.path == "/token"]
    assert len(grants) == 1
    tokens = {r.headers["Authorization"] for r in fake_vertex.requests}
    assert len(tokens) == 1
    assert tokens.pop().startswith("Bearer ya29.fake-")
    assert fake_vertex.requests[0].path == (
        "/v1/projects/veilbot-test/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:rawPredict"
    )


async def test_vertex_takes_a_static_access_token(fake_vertex: FakeVertex):
    model = make_client(vertex(fake_vertex, None, vertex_access_token=fake_vertex.static_token))
    assert (await model.complete(request("hi"))).text == "Noted: hi"
    await model.aclose()
    assert fake_vertex.requests[0].headers["Authorization"] == f"Bearer {fake_vertex.static_token}"


async def test_vertex_refuses_a_revoked_key_and_an_expired_token(
    fake_vertex: FakeVertex, tmp_path: Path
):
    revoked = tmp_path / "revoked.json"
    revoked.write_text(json.dumps(fake_vertex.service_account_info(wrong_key=True)))
    for p in (
        vertex(fake_vertex, revoked),
        vertex(fake_vertex, None, vertex_access_token="ya29.old"),
    ):
        model = make_client(p)
        try:
            with pytest.raises(CredentialsRefused):
                await model.verify()
        finally:
            await model.aclose()


async def test_vertex_refuses_a_project_the_account_cannot_use(
    fake_vertex: FakeVertex, vertex_key_file: Path
):
    model = make_client(vertex(fake_vertex, vertex_key_file, vertex_project_id="someone-else"))
    try:
        with pytest.raises(ModelMisconfigured, match="PERMISSION_DENIED"):
            await model.verify()
    finally:
        await model.aclose()


def test_a_credentials_file_of_another_kind_is_refused_by_name(tmp_path: Path):
    from bot.model.vertex import load_credentials

    odd = tmp_path / "federation.json"
    odd.write_text(json.dumps({"type": "external_account", "audience": "x"}))
    with pytest.raises(CredentialsRefused, match="GOOGLE_APPLICATION_CREDENTIALS") as info:
        load_credentials(odd)
    assert "audience" not in str(info.value)


async def test_vertex_global_endpoint_costs_less_than_a_region(
    fake_vertex: FakeVertex, vertex_key_file: Path
):
    notes = {}
    for region in ("global", "us-east5"):
        model = make_client(vertex(fake_vertex, vertex_key_file, vertex_region=region))
        notes[region] = (await model.complete(request("hi"))).cost_note
        await model.aclose()
    assert notes == {"global": "list price", "us-east5": "list price, regional endpoint +10%"}


# OpenAI-compatible -----------------------------------------------------------------------


async def test_openai_without_a_key_sends_no_authorization(fake_openai: FakeOpenAI):
    model = make_client(openai_(fake_openai))
    await model.verify()
    await model.complete(request("hi"))
    await model.aclose()
    assert "Authorization" not in fake_openai.requests[0].headers
    assert "Authorization" not in fake_openai.checks[0].headers
    first, user = fake_openai.requests[0].body["messages"]
    assert first["role"] == "system"
    assert "<PERSON_1>" in first["content"]  # the placeholder instructions
    assert user == {"role": "user", "content": "hi"}


async def test_openai_with_a_key_sends_it_and_a_wrong_one_is_refused(fake_openai: FakeOpenAI):
    fake_openai.api_key = "sk-local-right"
    good = make_client(openai_(fake_openai, openai_api_key="sk-local-right"))
    wrong = make_client(openai_(fake_openai, openai_api_key="sk-local-wrong"))
    try:
        assert (await good.complete(request("hi"))).text == "Noted: hi"
        with pytest.raises(CredentialsRefused):
            await wrong.verify()
    finally:
        await good.aclose()
        await wrong.aclose()


async def test_openai_server_without_usage_gets_an_estimate_that_says_so(fake_openai: FakeOpenAI):
    fake_openai.report_usage = False
    model = make_client(openai_(fake_openai))
    result = await model.complete(request("a question of some length"))
    stream = model.stream(request("a question of some length"))
    _ = [d async for d in stream]
    await model.aclose()
    for r in (result, stream.result):
        assert r.usage.input_tokens > 0
        assert r.usage.output_tokens > 0
        assert r.cost_usd == 0.0
        assert r.cost_note is not None
        assert "tokens estimated" in r.cost_note


async def test_openai_stream_asks_for_usage(fake_openai: FakeOpenAI):
    model = make_client(openai_(fake_openai))
    stream = model.stream(request("hi there"))
    _ = [d async for d in stream]
    await model.aclose()
    assert fake_openai.requests[0].body["stream_options"] == {"include_usage": True}
    assert stream.result.cost_note == "no price known: counted as 0 (self-hosted)"


async def test_openai_check_names_the_models_the_server_has(fake_openai: FakeOpenAI):
    model = make_client(openai_(fake_openai, model="llama3:70b"))
    try:
        with pytest.raises(ModelNotFound, match="llama3.1:8b, qwen2.5:7b-instruct"):
            await model.verify()
    finally:
        await model.aclose()


async def test_openai_configured_price_is_used(fake_openai: FakeOpenAI):
    from bot.model.pricing import Price, Pricing

    model = make_client(openai_(fake_openai), pricing=Pricing("openai", configured=Price(1.0, 2.0)))
    result = await model.complete(request("hi"))
    await model.aclose()
    expected = (result.usage.input_tokens * 1.0 + result.usage.output_tokens * 2.0) / 1e6
    assert result.cost_usd == pytest.approx(expected)
    assert result.cost_note == "configured price"


# The start check: what stops start-up, and what is only a notice ------------------------


async def start_notices(p: Provider) -> list[str]:
    from bot.config.settings import Settings
    from bot.model.build import build_model, check_model

    settings = Settings(**p.settings)
    model = build_model(settings)
    try:
        return await check_model(model, settings)
    finally:
        await model.aclose()


async def test_bedrock_without_permission_to_count_tokens_still_starts(fake_bedrock: FakeBedrock):
    fake_bedrock.fail_as(Outage.FORBIDDEN)  # AccessDenied on CountTokens
    notices = await start_notices(bedrock(fake_bedrock))
    assert notices
    assert "bedrock:CountTokens" in notices[0]


async def test_a_gateway_without_model_lookup_still_starts(fake_anthropic: FakeAnthropic):
    fake_anthropic.model_lookup = False
    p = Provider("anthropic", fake_anthropic, provider_settings("anthropic", fake_anthropic))
    notices = await start_notices(p)
    assert notices
    assert "no model lookup" in notices[0]


async def test_a_server_without_a_model_list_still_starts(fake_openai: FakeOpenAI):
    fake_openai.list_models = False
    notices = await start_notices(openai_(fake_openai))
    assert notices
    assert "does not list its models" in notices[0]


async def test_a_good_start_check_has_nothing_to_say(provider: Provider):
    assert await start_notices(provider) == []
    assert provider.fake.checks


# OpenAI-compatible tools ---------------------------------------------------------------

LOOKUP = ToolSpec(
    "crm__lookup_customer",
    "Find a customer by e-mail.",
    {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
)


async def test_openai_tool_calls_round_trip_at_once_and_streamed(fake_openai: FakeOpenAI):
    """The SDK's strict validation accepts the fake's tool_calls (JSON and fragments by
    index), and results go back as ``tool`` messages naming their calls."""
    asked = (("crm__lookup_customer", {"email": "<EMAIL_ADDRESS_1>", "limit": [1, 2]}),)
    asked += (("crm__lookup_customer", {"email": "<EMAIL_ADDRESS_2>"}),)
    fake_openai.answer(ToolCalls(asked, "Looking."), ToolCalls(asked))
    model = make_client(openai_(fake_openai))
    base = replace(request("Who are <EMAIL_ADDRESS_1> and <EMAIL_ADDRESS_2>?"), tools=(LOOKUP,))
    try:
        at_once = await model.complete(base)
        stream = model.stream(base)
        deltas = [d async for d in stream]
        for result in (at_once, stream.result):
            assert result.stop_reason == "tool_calls"
            assert [(c.name, c.arguments) for c in result.tool_calls] == list(asked)
            assert all(c.id.startswith("call_") for c in result.tool_calls)
        assert at_once.text == "Looking."
        assert deltas == []
        sent = fake_openai.requests[0].body
        assert sent["tools"] == [
            {
                "type": "function",
                "function": {
                    "name": LOOKUP.name,
                    "description": LOOKUP.description,
                    "parameters": LOOKUP.schema,
                },
            }
        ]
        assert "tool_choice" not in sent

        first, second = at_once.tool_calls
        uses = (
            ToolUse(first.id, LOOKUP.name, '{"email": "<EMAIL_ADDRESS_1>"}', "<PERSON_1>"),
            ToolUse(second.id, LOOKUP.name, '{"email": "<EMAIL_ADDRESS_2>"}', "timed out", True),
        )
        final = await model.complete(replace(base, pending=uses, answer_now=True))
    finally:
        await model.aclose()
    assert final.tool_calls == ()
    body = fake_openai.requests[-1].body
    assert body["tool_choice"] == "none"
    call_message, *results = body["messages"][-3:]
    assert call_message["role"] == "assistant"
    assert [c["function"]["arguments"] for c in call_message["tool_calls"]] == [
        u.arguments for u in uses
    ]
    assert results == [
        {"role": "tool", "tool_call_id": first.id, "content": "<PERSON_1>"},
        {"role": "tool", "tool_call_id": second.id, "content": "Error: timed out"},
    ]


async def test_openai_history_tool_calls_are_sent_only_with_tools(fake_openai: FakeOpenAI):
    use = ToolUse("call_1", LOOKUP.name, '{"email": "<EMAIL_ADDRESS_1>"}', "<PERSON_1>")
    history = (
        ChatMessage("user", "Who is <EMAIL_ADDRESS_1>?"),
        ChatMessage("assistant", "It is <PERSON_1>.", (use,)),
        ChatMessage("user", "Thanks"),
    )
    plain = ModelRequest(system="s", messages=history)
    model = make_client(openai_(fake_openai))
    try:
        await model.complete(plain)
        await model.complete(replace(plain, tools=(LOOKUP,)))
    finally:
        await model.aclose()
    without, with_tools = (r.body["messages"] for r in fake_openai.requests)
    assert [m["role"] for m in without] == ["system", "user", "assistant", "user"]
    roles = [m["role"] for m in with_tools]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert with_tools[2]["tool_calls"][0]["id"] == "call_1"
    assert with_tools[3] == {"role": "tool", "tool_call_id": "call_1", "content": "<PERSON_1>"}


async def test_openai_refused_tools_are_dropped_for_the_model_other_refusals_are_not(
    fake_openai: FakeOpenAI,
):
    model = make_client(openai_(fake_openai))
    asking = replace(request("hi"), tools=(LOOKUP,))
    try:
        fake_openai.fail_as(Outage.BAD_REQUEST)  # too long: nothing to do with tools
        with pytest.raises(ModelRejected):
            await model.complete(asking)
        assert model.takes_tools(asking)

        fake_openai.refuse_tools = True
        assert (await model.complete(asking)).text == "Noted: hi"
        assert not model.takes_tools(asking)
        assert model.takes_tools(replace(asking, model="qwen2.5:7b-instruct"))
        await model.complete(asking)
    finally:
        await model.aclose()
    sent = [("tools" in r.body) for r in fake_openai.requests]
    assert sent == [True, True, False, False]  # refused once, then never offered again
