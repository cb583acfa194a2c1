"""Every provider's client, driven by its real SDK against its fake: the same contract.

Anthropic's API, Claude on Bedrock and on Vertex AI, and an OpenAI-compatible server each
answer at once and streamed, report usage and cost, retry what is worth retrying, and map
every failure onto the same errors, so users get the same answers whoever serves the model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from bot.core.attachments import ImagePart
from bot.core.errors import (
    ModelError,
    ModelMisconfigured,
    ModelOverloaded,
    ModelRateLimited,
    ModelRejected,
    ModelTimeout,
    ModelUnavailable,
    ModelUnreachable,
)
from bot.core.ports import ModelClient
from bot.core.types import ChatMessage, ModelRequest
from bot.model.bedrock import BedrockModelClient
from bot.model.claude import AnthropicModelClient
from bot.model.errors import CredentialsRefused, ModelNotFound
from bot.model.openai_compat import OpenAIModelClient
from bot.model.prompt import build_system_prompt
from bot.model.vertex import VertexModelClient
from tests.fakes.base import DISCONNECT, Outage
from tests.fixtures.providers import Provider, provider_settings
from tests.fixtures.services import free_port

FAST_RETRY = {"retry_after_ms": "10"}


def make_client(p: Provider, **overrides: Any) -> Any:
    """The provider's client on its fake, with strict response validation (catches drift)."""
    s = {**p.settings, **overrides.pop("settings", {})}
    common: dict[str, Any] = {
        "model": s["model"],
        "max_tokens": 321,
        "temperature": 0.2,
        "timeout": 5.0,
        "max_retries": 2,
        "strict_response_validation": True,
        **overrides,
    }
    if p.name == "bedrock":
        return BedrockModelClient(
            region=s["bedrock_region"],
            access_key=s.get("aws_access_key_id"),
            secret_key=s.get("aws_secret_access_key"),
            session_token=s.get("aws_session_token"),
            api_key=s.get("bedrock_api_key"),
            base_url=s["bedrock_base_url"],
            **common,
        )
    if p.name == "vertex":
        return VertexModelClient(
            project_id=s["vertex_project_id"],
            region=s["vertex_region"],
            credentials_file=s.get("vertex_credentials_file"),
            access_token=s.get("vertex_access_token"),
            base_url=s["vertex_base_url"],
            **common,
        )
    if p.name == "openai":
        return OpenAIModelClient(
            base_url=s["openai_base_url"], api_key=s.get("openai_api_key"), **common
        )
    return AnthropicModelClient(s["anthropic_api_key"], base_url=s["anthropic_base_url"], **common)


@pytest.fixture
async def client(provider: Provider) -> AsyncIterator[ModelClient]:
    model = make_client(provider)
    try:
        yield model
    finally:
        await model.aclose()


def request(*texts: str) -> ModelRequest:
    """Alternating user/assistant messages, starting with a user message."""
    roles = ("user", "assistant")
    messages = tuple(ChatMessage(roles[i % 2], t) for i, t in enumerate(texts))
    return ModelRequest(system=build_system_prompt(), messages=messages)


async def collect(stream: AsyncIterator[str]) -> list[str]:
    return [delta async for delta in stream]


async def test_complete_answers_with_usage_cost_and_provider(client, provider):
    result = await client.complete(request("Mail <EMAIL_ADDRESS_1> to <PERSON_1>"))
    assert result.text == "Noted: Mail <EMAIL_ADDRESS_1> to <PERSON_1>"
    assert result.provider == provider.name
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0
    assert result.cost_usd is not None
    if provider.name == "openai":  # self-hosted: no price, and the record says so
        assert (result.cost_usd, result.cost_note) == (
            0.0,
            "no price known: counted as 0 (self-hosted)",
        )
    else:
        assert result.cost_usd > 0
    assert "<PERSON_1>" in provider.fake.all_text_sent()
    assert build_system_prompt() in provider.fake.all_text_sent()


async def test_the_most_a_call_can_cost_is_never_below_what_it_costs(client, provider):
    """A turn holds ``max_cost`` of its budgets before the call (``bot.core.budgets``)."""
    asked = request("Mail <EMAIL_ADDRESS_1> to <PERSON_1>")
    result = await client.complete(asked)
    most = client.max_cost(asked)
    assert most is not None
    assert most >= (result.cost_usd or 0.0)
    if provider.name != "openai":  # priced: at least the answer's length limit of output
        assert most > 0


async def test_stream_yields_deltas_then_the_same_result(client, provider):
    provider.fake.answer("Sure, <PERSON_1> gets the report from <EMAIL_ADDRESS_1> today.")
    stream = client.stream(request("Send it to <PERSON_1>"))
    deltas = await collect(stream)
    assert len(deltas) > 1
    assert "".join(deltas) == "Sure, <PERSON_1> gets the report from <EMAIL_ADDRESS_1> today."
    assert stream.result.text == "".join(deltas)
    assert stream.result.usage.output_tokens > 0
    assert stream.result.provider == provider.name


async def test_a_repeated_prefix_is_read_from_the_cache(client, provider):
    first = await client.complete(request("one", "two", "three"))
    second = await client.complete(request("one", "two", "three"))
    assert first.usage.cache_read_tokens == 0
    assert second.usage.cache_read_tokens > 0


@pytest.mark.parametrize(
    ("outage", "error"),
    [
        (Outage.RATE_LIMITED, ModelRateLimited),
        (Outage.OVERLOADED, ModelOverloaded),
        (Outage.TIMEOUT, ModelTimeout),
        (Outage.SERVER_ERROR, ModelUnavailable),
    ],
)
async def test_outages_are_retried_then_named_the_same_everywhere(client, provider, outage, error):
    provider.fake.fail_as(outage, times=3, **FAST_RETRY)
    with pytest.raises(error) as info:
        await client.complete(request("secret question"))
    assert type(info.value) is error
    assert "secret" not in str(info.value)
    assert provider.name in str(info.value)
    assert len(provider.fake.requests) == 3  # the first try and two retries


async def test_an_outage_that_passes_is_invisible(client, provider):
    provider.fake.fail_as(Outage.OVERLOADED, times=2, **FAST_RETRY)
    assert (await client.complete(request("hi"))).text == "Noted: hi"
    stream = client.stream(request("hi"))
    provider.fake.fail_as(Outage.RATE_LIMITED, times=1, **FAST_RETRY)
    assert "".join(await collect(stream)) == "Noted: hi"
    assert len(provider.fake.requests) == 5


@pytest.mark.parametrize(
    ("outage", "error"),
    [
        (Outage.BAD_REQUEST, ModelRejected),
        (Outage.BAD_KEY, CredentialsRefused),
        (Outage.FORBIDDEN, ModelMisconfigured),
        (Outage.NOT_FOUND, ModelNotFound),
    ],
)
async def test_refusals_are_not_retried(client, provider, outage, error):
    provider.fake.fail_as(outage, times=3)
    with pytest.raises(error) as info:
        await client.complete(request("hi"))
    assert type(info.value) is error
    assert len(provider.fake.requests) == 1


async def test_a_slow_model_times_out(provider):
    provider.fake.hold()  # no answer until the client gave up
    model = make_client(provider, timeout=0.2, max_retries=0)
    try:
        with pytest.raises(ModelTimeout, match="timed out"):
            await model.complete(request("hi"))
        with pytest.raises(ModelTimeout):
            await collect(model.stream(request("hi")))
    finally:
        await model.aclose()


async def test_a_server_that_is_not_there_is_unreachable(provider):
    url = f"http://127.0.0.1:{free_port()}"
    moved = {
        "anthropic": {"anthropic_base_url": url},
        "bedrock": {"bedrock_base_url": url},
        "vertex": {"vertex_base_url": f"{url}/v1", "vertex_access_token": "ya29.x"},
        "openai": {"openai_base_url": f"{url}/v1"},
    }[provider.name]
    model = make_client(provider, settings=moved, max_retries=0)
    try:
        with pytest.raises(ModelUnreachable, match="connection"):
            await model.complete(request("hi"))
    finally:
        await model.aclose()


@pytest.mark.parametrize(
    ("outage", "error"),
    [
        (Outage.OVERLOADED, ModelOverloaded),
        (Outage.RATE_LIMITED, ModelRateLimited),
        (Outage.SERVER_ERROR, ModelUnavailable),
        (Outage.BAD_REQUEST, ModelRejected),
    ],
)
async def test_an_error_in_the_middle_of_a_stream(client, provider, outage, error):
    provider.fake.fail_mid_stream_as(outage, after_deltas=1)
    seen: list[str] = []

    async def consume() -> None:
        async for delta in client.stream(request("a question long enough for several deltas")):
            seen.append(delta)

    with pytest.raises(error) as info:
        await consume()
    assert type(info.value) is error
    assert len(seen) == 1
    assert len(provider.fake.requests) == 1


async def test_a_connection_lost_mid_stream_is_unreachable(client, provider):
    provider.fake.fail_mid_stream(DISCONNECT, after_deltas=1)
    with pytest.raises((ModelUnreachable, ModelTimeout)):
        await collect(client.stream(request("a question long enough for several deltas")))


async def test_the_start_check_passes_with_good_settings(client, provider):
    await client.verify()
    assert provider.fake.checks
    assert provider.fake.requests == []  # the check is not a model call


async def test_the_start_check_names_an_unknown_model(provider):
    model = make_client(
        provider, model="claude-nonexistent-9" if provider.name != "openai" else "x"
    )
    try:
        with pytest.raises(ModelNotFound):
            await model.verify()
    finally:
        await model.aclose()


async def test_errors_carry_no_prompt_text(client, provider):
    provider.fake.fail_as(Outage.BAD_REQUEST)
    with pytest.raises(ModelError) as info:
        await client.complete(request("Maria Gonzalez maria@example.com"))
    assert "Maria" not in str(info.value)
    assert "maria@" not in repr(info.value)


async def test_images_go_with_the_newest_user_message_only(provider):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(64))  # the client sends bytes as given
    asked = replace(
        request("earlier", "an answer", "what does it say?"), images=(ImagePart("image/png", png),)
    )
    takes_images = {"images": True} if provider.name == "openai" else {}
    model = make_client(provider, **takes_images)
    try:
        result = await model.complete(asked)
        streamed = await collect(model.stream(asked))
    finally:
        await model.aclose()
    assert result.text
    assert streamed
    assert provider.fake.images_sent() == [("image/png", png)] * 2
    for sent in provider.fake.requests:
        first, _, _ = (m["content"] for m in sent.body["messages"] if m["role"] != "system")
        assert "image" not in str(first), "history goes as text"
        assert provider.fake.last_user_text(sent.body) == "what does it say?"


async def test_an_openai_server_not_said_to_take_images_gets_the_text_only(fake_openai):
    provider = Provider("openai", fake_openai, provider_settings("openai", fake_openai, None), {})
    asked = replace(request("what does it say?"), images=(ImagePart("image/png", b"png"),))
    model = make_client(provider)
    try:
        await model.complete(asked)
    finally:
        await model.aclose()
    assert fake_openai.images_sent() == []
    (sent,) = fake_openai.requests
    assert sent.body["messages"][-1]["content"] == "what does it say?"
