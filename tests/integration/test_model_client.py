"""AnthropicModelClient and EchoModelClient, driven by the real SDK against the fake API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.core.errors import ModelMisconfigured, ModelRejected, ModelUnavailable
from bot.core.types import ChatMessage, ModelRequest, ToolSpec, ToolUse
from bot.model.claude import AnthropicModelClient, quiet_sdk_loggers
from bot.model.echo import ECHO_PREFIX, EchoModelClient
from bot.model.prompt import build_system_prompt
from tests.fakes.anthropic_server import DISCONNECT, FakeAnthropic, ToolCalls
from tests.fakes.base import CUT_SHORT

MODEL = "claude-sonnet-4-6"
FAST_RETRY = {"retry_after_ms": "10"}


def request(*texts: str) -> ModelRequest:
    """Alternating user/assistant messages, starting with a user message."""
    roles = ("user", "assistant")
    messages = tuple(ChatMessage(roles[i % 2], t) for i, t in enumerate(texts))
    return ModelRequest(system=build_system_prompt(), messages=messages)


@pytest.fixture
async def client(fake_anthropic: FakeAnthropic) -> AsyncIterator[AnthropicModelClient]:
    async with make_client(fake_anthropic) as c:
        yield c


def make_client(fake: FakeAnthropic, **overrides: object) -> AnthropicModelClient:
    options: dict[str, object] = {
        "model": MODEL,
        "base_url": fake.url,
        "max_tokens": 321,
        "temperature": 0.2,
        "timeout": 5.0,
        "max_retries": 2,
        "strict_response_validation": True,
    } | overrides
    return AnthropicModelClient("sk-test", **options)  # type: ignore[arg-type]


async def collect(stream: AsyncIterator[str]) -> list[str]:
    return [delta async for delta in stream]


async def test_complete_returns_text_usage_and_cost(client, fake_anthropic):
    fake_anthropic.usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 400,
    }
    result = await client.complete(request("Mail <EMAIL_ADDRESS_1> to <PERSON_1>"))
    assert result.text == "Noted: Mail <EMAIL_ADDRESS_1> to <PERSON_1>"
    assert result.model == MODEL
    assert result.stop_reason == "end_turn"
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens) == (100, 20)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (1000, 400)
    expected = (100 * 3 + 20 * 15 + 1000 * 0.3 + 400 * 3.75) / 1_000_000
    assert result.cost_usd == pytest.approx(expected)


async def test_request_carries_model_settings_and_cache_breakpoints(client, fake_anthropic):
    await client.complete(request("hi <PERSON_1>", "Hello <PERSON_1>", "and <PERSON_2>?"))
    (sent,) = fake_anthropic.requests
    body = sent.body
    assert (body["model"], body["max_tokens"], body["temperature"]) == (MODEL, 321, 0.2)
    assert sent.headers["Authorization"] == "Bearer sk-test"
    assert body["system"] == [
        {"type": "text", "text": build_system_prompt(), "cache_control": {"type": "ephemeral"}}
    ]
    first, prefix_end, newest = body["messages"]
    assert first == {"role": "user", "content": "hi <PERSON_1>"}
    assert prefix_end == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hello <PERSON_1>", "cache_control": {"type": "ephemeral"}}
        ],
    }
    assert newest == {"role": "user", "content": "and <PERSON_2>?"}


def long_history(turns: int) -> tuple[str, ...]:
    """A thread's texts with what JSON must escape, a long pasted message and non-ASCII."""
    texts = [
        f'q{i} "<PERSON_{i}>" \\ back\tslash \x01 Grüße 🙂 \u2028' if i % 2 == 0 else f"a{i}\n"
        for i in range(turns * 2)
    ]
    texts[4] = "log line <IP_ADDRESS_1>\n" * 400  # longer than what is kept encoded
    return (*texts, "and now?")


@pytest.mark.parametrize("streamed", [False, True])
async def test_the_model_receives_the_same_request_as_the_sdk_would_send(fake_anthropic, streamed):
    """The history is encoded once per message and reused by later turns: the body the model
    receives, turn after turn, is the one the SDK's own ``messages.create`` sends."""
    async with make_client(fake_anthropic) as c:
        for turns in (3, 4, 4):  # the next turn, then the same request again
            asked = request(*long_history(turns))
            for ours in (True, False):
                c._encodes_body = ours  # the SDK's own path, to compare
                if streamed:
                    await collect(c.stream(asked))
                else:
                    await c.complete(asked)
    bodies = [r.body for r in fake_anthropic.requests]
    assert len(bodies) == 6
    for ours, sdk in zip(bodies[::2], bodies[1::2], strict=True):
        assert ours == sdk
    assert bodies[0]["messages"][4]["content"] == "log line <IP_ADDRESS_1>\n" * 400
    assert bodies[0]["messages"][0]["content"].startswith('q0 "<PERSON_0>" \\ back\tslash')
    assert bodies[0].get("stream", False) is streamed


async def test_single_message_has_only_the_system_breakpoint(client, fake_anthropic):
    await client.complete(request("hello"))
    assert fake_anthropic.requests[0].body["messages"] == [{"role": "user", "content": "hello"}]


async def test_second_turn_reads_the_cached_prefix(client, fake_anthropic):
    first = await client.complete(request("one", "two", "three"))
    second = await client.complete(request("one", "two", "three"))
    assert first.usage.cache_write_tokens > 0
    assert first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens == first.usage.cache_write_tokens


async def test_temperature_none_is_not_sent(fake_anthropic):
    async with make_client(fake_anthropic, temperature=None) as c:
        await c.complete(request("hi"))
    assert "temperature" not in fake_anthropic.requests[0].body


async def test_stream_yields_deltas_then_result(client, fake_anthropic):
    fake_anthropic.answer("Sure, <PERSON_1> gets the report from <EMAIL_ADDRESS_1> today.")
    stream = client.stream(request("Send it to <PERSON_1>"))
    deltas = await collect(stream)
    assert len(deltas) > 1
    assert "".join(deltas) == "Sure, <PERSON_1> gets the report from <EMAIL_ADDRESS_1> today."
    assert stream.result.text == "".join(deltas)
    assert stream.result.stop_reason == "end_turn"
    assert stream.result.usage.output_tokens > 0
    assert stream.result.usage.cache_write_tokens > 0
    assert stream.result.cost_usd is not None
    assert stream.result.cost_usd > 0
    assert fake_anthropic.requests[0].body["stream"] is True


async def test_stream_result_before_the_end_is_an_error(client):
    with pytest.raises(RuntimeError):
        _ = client.stream(request("hi")).result


async def test_empty_answer_is_empty_text(client, fake_anthropic):
    fake_anthropic.answer("", "")
    assert (await client.complete(request("hi"))).text == ""
    stream = client.stream(request("hi"))
    assert await collect(stream) == []
    assert stream.result.text == ""


async def test_overloaded_twice_then_success(client, fake_anthropic):
    fake_anthropic.fail(529, "overloaded_error", times=2, **FAST_RETRY)
    result = await client.complete(request("hi"))
    assert result.text == "Noted: hi"
    retries = [r.headers["x-stainless-retry-count"] for r in fake_anthropic.requests]
    assert retries == ["0", "1", "2"]


async def test_stream_retries_before_the_first_event(client, fake_anthropic):
    fake_anthropic.fail(529, "overloaded_error", times=2, **FAST_RETRY)
    stream = client.stream(request("hi"))
    assert "".join(await collect(stream)) == "Noted: hi"
    assert len(fake_anthropic.requests) == 3


@pytest.mark.parametrize(
    ("status", "kind"),
    [(429, "rate_limit_error"), (529, "overloaded_error"), (500, "api_error")],
)
async def test_retryable_errors_after_retries_are_unavailable(client, fake_anthropic, status, kind):
    fake_anthropic.fail(status, kind, times=3, **FAST_RETRY)
    with pytest.raises(ModelUnavailable, match=f"status {status} \\({kind}\\)") as info:
        await client.complete(request("secret question"))
    assert "secret" not in str(info.value)
    assert len(fake_anthropic.requests) == 3


@pytest.mark.parametrize(
    ("status", "kind", "error"),
    [
        (400, "invalid_request_error", ModelRejected),
        (413, "request_too_large", ModelRejected),
        (401, "authentication_error", ModelMisconfigured),
        (403, "permission_error", ModelMisconfigured),
        (404, "not_found_error", ModelMisconfigured),
    ],
)
async def test_refusals_are_not_retried(client, fake_anthropic, status, kind, error):
    fake_anthropic.fail(status, kind)
    with pytest.raises(error, match=f"status {status}"):
        await client.complete(request("hi"))
    assert len(fake_anthropic.requests) == 1


async def test_wrong_key_is_misconfigured(fake_anthropic):
    fake_anthropic.api_key = "sk-right"
    async with make_client(fake_anthropic) as c:
        with pytest.raises(ModelMisconfigured, match="status 401"):
            await c.complete(request("hi"))


async def test_should_retry_header_false_stops_retries(client, fake_anthropic):
    fake_anthropic.fail(529, "overloaded_error", times=3, x_should_retry="false")
    with pytest.raises(ModelUnavailable):
        await client.complete(request("hi"))
    assert len(fake_anthropic.requests) == 1


async def test_timeout_is_unavailable(fake_anthropic):
    fake_anthropic.hold()  # no answer until the client gave up
    async with make_client(fake_anthropic, timeout=0.2, max_retries=0) as c:
        with pytest.raises(ModelUnavailable, match="timed out"):
            await c.complete(request("hi"))
    assert len(fake_anthropic.requests) == 1


async def test_stream_timeout_is_unavailable(fake_anthropic):
    fake_anthropic.hold()
    async with make_client(fake_anthropic, timeout=0.2, max_retries=0) as c:
        with pytest.raises(ModelUnavailable, match="timed out"):
            await collect(c.stream(request("hi")))


async def test_connection_refused_is_unavailable():
    fake = FakeAnthropic().start()
    url = fake.url
    fake.stop()
    async with AnthropicModelClient(
        "sk-test",
        model=MODEL,
        base_url=url,
        max_tokens=10,
        temperature=0.0,
        timeout=2.0,
        max_retries=0,
    ) as c:
        with pytest.raises(ModelUnavailable, match="connection"):
            await c.complete(request("hi"))


async def test_mid_stream_error_is_unavailable(client, fake_anthropic):
    fake_anthropic.fail_mid_stream("overloaded_error", after_deltas=1)
    stream = client.stream(request("a long enough question to need several deltas"))
    seen: list[str] = []

    async def consume() -> None:
        async for delta in stream:
            seen.append(delta)

    with pytest.raises(ModelUnavailable, match="overloaded_error"):
        await consume()
    assert len(seen) == 1
    assert len(fake_anthropic.requests) == 1


async def test_connection_lost_mid_stream_is_unavailable(client, fake_anthropic):
    fake_anthropic.fail_mid_stream(DISCONNECT, after_deltas=1)
    with pytest.raises(ModelUnavailable, match="connection"):
        await collect(client.stream(request("a long enough question to need several deltas")))


async def test_a_stream_that_ends_early_without_an_error_is_not_taken_for_the_answer(
    client, fake_anthropic
):
    fake_anthropic.fail_mid_stream(CUT_SHORT, after_deltas=1)
    with pytest.raises(ModelUnavailable, match="stream ended"):
        await collect(client.stream(request("a long enough question to need several deltas")))


async def test_mid_stream_invalid_request_is_rejected(client, fake_anthropic):
    fake_anthropic.fail_mid_stream("invalid_request_error", after_deltas=0)
    with pytest.raises(ModelRejected, match="invalid_request_error"):
        await collect(client.stream(request("hi")))


async def test_base_url_comes_from_the_environment(fake_anthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    async with make_client(fake_anthropic, base_url=None) as c:
        assert (await c.complete(request("hi"))).text == "Noted: hi"


def test_the_fake_serves_sync_callers(fake_anthropic):
    import anthropic

    sdk = anthropic.Anthropic(
        api_key="x", base_url=fake_anthropic.url, _strict_response_validation=True
    )
    with sdk:
        message = sdk.messages.create(
            model=MODEL, max_tokens=5, messages=[{"role": "user", "content": "sync"}]
        )
    assert message.content[0].text == "Noted: sync"  # type: ignore[union-attr]


def test_all_text_sent_covers_system_and_messages(fake_anthropic):
    import anthropic

    with anthropic.Anthropic(api_key="x", base_url=fake_anthropic.url) as sdk:
        sdk.messages.create(
            model=MODEL,
            max_tokens=5,
            system="SYS",
            messages=[{"role": "user", "content": [{"type": "text", "text": "USR"}]}],
        )
    sent = fake_anthropic.all_text_sent()
    assert "SYS" in sent
    assert "USR" in sent


async def test_echo_model_keeps_placeholders():
    echo = EchoModelClient()
    req = request("hi", "hello", "Call <PERSON_1> at <PHONE_NUMBER_1>, ok?")
    result = await echo.complete(req)
    assert echo.model == result.model == "echo"
    assert result.text == ECHO_PREFIX + "Call <PERSON_1> at <PHONE_NUMBER_1>, ok?"
    assert result.cost_usd == 0.0
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0
    stream = echo.stream(req)
    deltas = await collect(stream)
    assert "".join(deltas) == result.text
    assert "<PERSON_1> " in deltas
    assert "<PHONE_NUMBER_1>, " in deltas
    assert stream.result == result
    await echo.aclose()


def test_system_prompt_is_stable_and_explains_placeholders():
    prompt = build_system_prompt()
    assert prompt == build_system_prompt("  ")
    assert "<PERSON_1>" in prompt
    assert "<EMAIL_ADDRESS_2>" in prompt
    assert "<USER_1>" in prompt
    assert build_system_prompt("Be brief.").endswith("\n\nBe brief.")


def test_quiet_sdk_loggers_raises_debug_to_info():
    import logging

    sdk_logger = logging.getLogger("anthropic")
    old = sdk_logger.level
    sdk_logger.setLevel(logging.DEBUG)
    try:
        quiet_sdk_loggers()
        assert sdk_logger.level == logging.INFO
        sdk_logger.setLevel(logging.WARNING)
        quiet_sdk_loggers()
        assert sdk_logger.level == logging.WARNING
    finally:
        sdk_logger.setLevel(old)


LOOKUP = ToolSpec(
    "crm__lookup_customer",
    "Find a customer by e-mail.",
    {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
)


async def test_tool_use_round_trips_at_once_and_streamed(client, fake_anthropic):
    """The SDK's strict validation accepts the fake's tool_use answers (JSON and SSE), and
    the tool's result goes back in the request as the Messages API wants it."""
    asked = (("crm__lookup_customer", {"email": "<EMAIL_ADDRESS_1>", "limit": [1, 2]}),)
    fake_anthropic.answer(ToolCalls(asked, "Looking."), ToolCalls(asked))
    base = replace(request("Who is <EMAIL_ADDRESS_1>?"), tools=(LOOKUP,))

    at_once = await client.complete(base)
    stream = client.stream(base)
    deltas = await collect(stream)

    for result in (at_once, stream.result):
        assert result.stop_reason == "tool_use"
        [call] = result.tool_calls
        assert (call.name, call.arguments) == asked[0]
        assert call.id.startswith("toolu_")
    assert at_once.text == "Looking."
    assert "".join(deltas) == ""
    sent = fake_anthropic.requests[0].body
    assert sent["tools"] == [
        {"name": LOOKUP.name, "description": LOOKUP.description, "input_schema": LOOKUP.schema}
    ]
    assert "tool_choice" not in sent

    use = ToolUse(at_once.tool_calls[0].id, LOOKUP.name, '{"email": "<EMAIL_ADDRESS_1>"}', "ok")
    final = await client.complete(replace(base, pending=(use,), answer_now=True))
    assert final.tool_calls == ()
    body = fake_anthropic.requests[-1].body
    assert body["tool_choice"] == {"type": "none"}
    assert body["messages"][-2]["content"][0]["input"] == {"email": "<EMAIL_ADDRESS_1>"}
    assert body["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": use.id, "content": "ok", "is_error": False}
    ]


async def test_history_tool_calls_are_sent_only_with_tools(client, fake_anthropic):
    use = ToolUse("toolu_1", LOOKUP.name, '{"email": "<EMAIL_ADDRESS_1>"}', "<PERSON_1>")
    history = (
        ChatMessage("user", "Who is <EMAIL_ADDRESS_1>?"),
        ChatMessage("assistant", "It is <PERSON_1>.", (use,)),
        ChatMessage("user", "Thanks"),
    )
    plain = ModelRequest(system="s", messages=history)
    await client.complete(plain)
    await client.complete(replace(plain, tools=(LOOKUP,)))

    without, with_tools = (r.body["messages"] for r in fake_anthropic.requests)
    assert len(without) == 3  # no tools offered: the answer's text alone
    assert [m["role"] for m in with_tools] == ["user", "assistant", "user", "assistant", "user"]
    assert with_tools[1]["content"][0]["type"] == "tool_use"
    assert with_tools[2]["content"][0]["content"] == "<PERSON_1>"
    assert with_tools[3]["content"][0]["cache_control"] == {"type": "ephemeral"}
