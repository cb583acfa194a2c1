"""Claude through the official Anthropic SDK, on Anthropic's API or a cloud.

``ClaudeClient`` implements ``bot.core.ports.ModelClient`` over any of the SDK's Messages
clients: ``AnthropicModelClient`` builds it on ``AsyncAnthropic``; ``bot.model.bedrock`` and
``bot.model.vertex`` on ``AsyncAnthropicBedrock`` and ``AsyncAnthropicVertex``. It converts
every SDK error at this boundary through ``bot.model.errors`` (rate limited, overloaded,
timed out, unreachable, rejected, misconfigured); messages carry the provider, status codes
and error types, never prompt text.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import anthropic
import httpx2
import pydantic
from anthropic.types import Message, RawMessageStreamEvent

from bot.core.errors import ModelError, ModelUnavailable
from bot.core.types import ChatMessage, ModelRequest, ModelResult, ToolCall, ToolUse, Usage
from bot.core.window import max_input_tokens
from bot.model.errors import connection_error, status_error, timeout_error
from bot.model.pricing import Pricing

logger = logging.getLogger(__name__)

_Json = dict[str, Any]
_SDK_LOGGERS = (
    "anthropic",
    "openai",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "botocore",
    "boto3",
    "google.auth",
    "urllib3",
    "mcp",
)


def quiet_sdk_loggers() -> None:
    """Keep SDK loggers at INFO or above: at DEBUG they log request bodies (message text)."""
    for name in _SDK_LOGGERS:
        sdk_logger = logging.getLogger(name)
        if sdk_logger.getEffectiveLevel() < logging.INFO:
            sdk_logger.setLevel(logging.INFO)


def error_kind(exc: anthropic.APIStatusError) -> str | None:
    """The provider's name for an error.

    Anthropic's ``error.type``, Bedrock's ``x-amzn-ErrorType`` header, or Google's
    ``error.status`` (Vertex AI's front end).
    """
    if exc.type:
        return str(exc.type)
    amazon = exc.response.headers.get("x-amzn-errortype")
    if amazon:
        return amazon.split(":", 1)[0]
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        status = body["error"].get("status")
        return status if isinstance(status, str) else None
    return None


def map_error(exc: Exception, provider: str = "anthropic") -> ModelError:
    """Convert an SDK or transport error into veilbot's model errors (no prompt text)."""
    if isinstance(exc, anthropic.APIStatusError):
        return status_error(provider, exc.status_code, error_kind(exc))
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return timeout_error(provider)
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return connection_error(provider, exc)
    return ModelUnavailable(f"model call failed ({provider}, {type(exc).__name__})")


def _request_params(request: ModelRequest) -> tuple[list[_Json], list[_Json]]:
    """The system blocks and messages of a request, with prompt-cache breakpoints.

    The system prompt is one cached block. With history, the message before the newest one
    (the end of the stable prefix) carries a second breakpoint, so each turn reads the
    previous turns from the cache. The request's images (already painted over) go before the
    newest user message's text as base64 image blocks, as the Messages API advises.
    """
    system: list[_Json] = [
        {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
    ]
    tools = bool(request.tools)  # without tools, the API refuses tool blocks: text only then
    if tools and any(m.tools for m in request.messages):
        return system, _with_tool_rounds(request)
    messages: list[_Json] = [{"role": m.role, "content": m.text} for m in request.messages]
    if len(messages) >= 2:
        prefix_end = request.messages[-2]
        messages[-2] = {
            "role": prefix_end.role,
            "content": [
                {"type": "text", "text": prefix_end.text, "cache_control": {"type": "ephemeral"}}
            ],
        }
    if request.images and request.messages and request.messages[-1].role == "user":
        images: list[_Json] = [
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": image.media_type,
                    "data": base64.b64encode(image.data).decode("ascii"),
                },
            }
            for image in request.images
        ]
        text = request.messages[-1].text
        messages[-1] = {"role": "user", "content": [*images, {"type": "text", "text": text}]}
    if tools and request.pending:
        messages += tool_rounds(request.pending)
    return system, messages


def _with_tool_rounds(request: ModelRequest) -> list[_Json]:
    """``_request_params``'s messages when the history holds tool calls.

    The cache breakpoint stays where it is without tools: on the previous answer's text.
    """
    plain = ModelRequest(
        system=request.system,
        messages=tuple(ChatMessage(m.role, m.text) for m in request.messages),
        images=request.images,
    )
    _, flat = _request_params(plain)
    messages: list[_Json] = []
    for message, sent in zip(request.messages, flat, strict=True):
        messages += tool_rounds(message.tools)
        messages.append(sent)
    messages += tool_rounds(request.pending)
    return messages


def tool_rounds(uses: Sequence[ToolUse]) -> list[_Json]:
    """Tool calls as the Messages API has them.

    Per round, the model's ``tool_use`` blocks, then a user message of their ``tool_result``s.
    """
    rounds: dict[int, list[ToolUse]] = {}
    for use in uses:
        rounds.setdefault(use.round, []).append(use)
    messages: list[_Json] = []
    for _, calls in sorted(rounds.items()):
        asked = [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": _arguments(c.arguments)}
            for c in calls
        ]
        results = [
            {"type": "tool_result", "tool_use_id": c.id, "content": c.result, "is_error": c.error}
            for c in calls
        ]
        messages += [{"role": "assistant", "content": asked}, {"role": "user", "content": results}]
    return messages


def _arguments(stored: str) -> _Json:
    try:
        value = json.loads(stored)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool_specs(request: ModelRequest) -> list[_Json]:
    return [
        {"name": t.name, "description": t.description, "input_schema": t.schema}
        for t in request.tools
    ]


def _encoded(kwargs: _Json) -> bytes:
    """The JSON body of a Messages request, each history message encoded once while in use.

    A thread's turn sends its whole kept history again with one new message: the SDK copied
    and encoded all of it on every request (about 0.7 ms at 200 messages, a turn's cost
    growing with its thread's age). Plain messages are encoded by ``_message_json``; only the
    newest two (the cache breakpoint, the new message and its images) are encoded afresh.
    """
    head = {k: v for k, v in kwargs.items() if k not in ("messages", "extra_body")}
    head.update(kwargs.get("extra_body") or {})
    parts = [
        _message_json(m["role"], m["content"])
        if isinstance(m["content"], str) and len(m["content"]) <= _CACHED_CHARS
        else json.dumps(m, ensure_ascii=False)
        for m in kwargs["messages"]
    ]
    fields = json.dumps(head, ensure_ascii=False)[1:-1]
    return f'{{{fields}, "messages": [{", ".join(parts)}]}}'.encode()


_CACHED_CHARS = 4096
"""Messages up to this long are remembered encoded: at most ~9 MB of placeholder text."""


@functools.lru_cache(maxsize=2048)
def _message_json(role: str, text: str) -> str:
    return json.dumps({"role": role, "content": text}, ensure_ascii=False)


def _result(message: Message, fallback_model: str, provider: str, pricing: Pricing) -> ModelResult:
    """``_result_of_body`` of an SDK ``Message`` (the streaming path's final message)."""
    return _result_of_body(message.to_dict(), fallback_model, provider, pricing)


def _result_of_body(
    body: _Json, fallback_model: str, provider: str, pricing: Pricing
) -> ModelResult:
    """``_result`` read from the response body itself, without the SDK's ``Message`` model.

    The SDK builds a tree of pydantic models for every response (``construct``, recursively);
    the turn reads five fields of it.
    """
    blocks = body.get("content") or ()
    texts = [b.get("text") or "" for b in blocks if b.get("type") == "text"]
    calls = tuple(
        ToolCall(str(b.get("id")), str(b.get("name")), b.get("input") or {})
        for b in blocks
        if b.get("type") == "tool_use" and isinstance(b.get("input") or {}, dict)
    )
    raw = body.get("usage") or {}
    usage = Usage(
        input_tokens=raw.get("input_tokens") or 0,
        output_tokens=raw.get("output_tokens") or 0,
        cache_read_tokens=raw.get("cache_read_input_tokens") or 0,
        cache_write_tokens=raw.get("cache_creation_input_tokens") or 0,
    )
    model = body.get("model") or fallback_model
    cost, note = pricing.cost(model, usage)
    return ModelResult(
        text="".join(texts),
        model=model,
        usage=usage,
        cost_usd=cost,
        stop_reason=body.get("stop_reason"),
        provider=provider,
        cost_note=note,
        tool_calls=calls if body.get("stop_reason") == "tool_use" else (),
    )


NO_SDK_SPANS: Final = False
"""The SDK's OpenTelemetry spans, off: veilbot reports through its own metrics and sets up no
tracing, and without a tracer the SDK skips the span (attributes from every request's options)
it would otherwise build for OpenTelemetry's no-op tracer on each call."""


_SdkClient = (
    anthropic.AsyncAnthropic | anthropic.AsyncAnthropicBedrock | anthropic.AsyncAnthropicVertex
)


class ClaudeClient:
    """Claude through one of the SDK's Messages clients; the provider's module builds it.

    Args:
        sdk: ``AsyncAnthropic``, ``AsyncAnthropicBedrock`` or ``AsyncAnthropicVertex``, with
            its credentials, timeout and retries.
        provider: ``anthropic``, ``bedrock`` or ``vertex``: for errors, audit and pricing.
        model: the provider's model id (``claude-sonnet-4-6``, ``us.anthropic.claude-…``).
        max_tokens: answer length limit.
        temperature: sampling temperature; ``None`` leaves it to the API.
        pricing: how calls are priced (the provider's list prices by default).
    """

    _caught: tuple[type[Exception], ...] = (anthropic.AnthropicError, httpx2.HTTPError)
    """What a call may raise; a provider whose credentials come from elsewhere adds theirs."""
    _tools_api = True
    """Whether the model is offered tools: the Messages API's tool use, which Anthropic's API,
    Bedrock and Vertex AI all serve."""
    _encodes_body = False
    """Whether requests go out as JSON this client encodes (``_encoded``); the cloud SDKs
    rewrite the body they are given (the model moves into the address), so they get it whole."""

    def __init__(
        self,
        sdk: _SdkClient,
        *,
        provider: str,
        model: str,
        max_tokens: int,
        temperature: float | None,
        pricing: Pricing | None = None,
    ) -> None:
        self._client = sdk
        # Strict clients (tests) let the SDK validate each answer into its models; the
        # others read the body (same fields, same errors: status errors raise before).
        self._validate = bool(getattr(sdk, "_strict_response_validation", False))
        self._provider = provider
        self._model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._pricing = pricing or Pricing(provider)

    @property
    def model(self) -> str:
        """The configured model id."""
        return self._model

    @property
    def provider(self) -> str:
        """Who serves the model: ``anthropic``, ``bedrock`` or ``vertex``."""
        return self._provider

    def _kwargs(self, request: ModelRequest) -> dict[str, Any]:
        system, messages = _request_params(request)
        kwargs: dict[str, Any] = {
            "model": request.model or self._model,
            "max_tokens": request.max_tokens or self._max_tokens,
            "system": system,
            "messages": messages,
        }
        if request.tools and self._tools_api:
            kwargs["tools"] = _tool_specs(request)
            if request.answer_now:
                kwargs["tool_choice"] = {"type": "none"}
        if self._temperature is not None:
            # anthropic 2.x has no `temperature` keyword; the API still accepts the field.
            kwargs["extra_body"] = {"temperature": self._temperature}
        return kwargs

    def takes_tools(self, request: ModelRequest) -> bool:
        """Whether tools are offered through this client (``ModelClient.takes_tools``)."""
        return self._tools_api

    def max_cost(self, request: ModelRequest) -> float | None:
        """The most ``request`` can cost (``ModelClient.max_cost``)."""
        model = request.model or self._model
        most_out = request.max_tokens or self._max_tokens
        return self._pricing.max_cost(model, max_input_tokens(request), most_out)

    async def complete(self, request: ModelRequest) -> ModelResult:
        """One answer at once.

        Raises:
            ModelUnavailable: rate limited, overloaded, timed out or unreachable after the
                configured retries (one of its subclasses).
            ModelRejected: the request was refused (bad request, too large).
            ModelMisconfigured: bad credentials, no permission, unknown model.
        """
        try:
            answer = await self._answer(self._kwargs(request))
        except self._caught as exc:
            raise self.convert_error(exc) from exc
        model = request.model or self._model
        if isinstance(answer, Message):
            result = _result(answer, model, self._provider, self._pricing)
        else:
            result = _result_of_body(answer, model, self._provider, self._pricing)
        logger.debug("model answered: stop_reason=%s usage=%s", result.stop_reason, result.usage)
        return result

    async def _answer(self, kwargs: _Json) -> Message | _Json:
        """The answer's body, or the SDK's ``Message`` validated from it (strict clients)."""
        if not self._encodes_body:
            raw = await self._client.messages.with_raw_response.create(**kwargs)
            return await raw.parse() if self._validate else raw.http_response.json()
        sent = await self._client.post(
            "/v1/messages", content=_encoded(kwargs), cast_to=httpx2.Response
        )
        body: _Json = sent.json()
        if not self._validate:
            return body
        try:
            return Message.model_validate(body)
        except pydantic.ValidationError as exc:
            raise anthropic.APIResponseValidationError(sent, body) from exc

    async def _events(self, kwargs: _Json) -> Any:
        """The SDK's event stream of a streamed Messages request."""
        if not self._encodes_body:
            return await self._client.messages.create(stream=True, **kwargs)
        return await self._client.post(
            "/v1/messages",
            content=_encoded({**kwargs, "stream": True}),
            cast_to=Message,
            stream=True,
            stream_cls=anthropic.AsyncStream[RawMessageStreamEvent],
        )

    def stream(self, request: ModelRequest) -> AnthropicStream:
        """The answer as text deltas; errors, also mid-stream, map as in ``complete``."""
        return AnthropicStream(self, self._kwargs(request))

    async def verify(self) -> None:
        """Check credentials and model with a free call (here: the Models API).

        Raises:
            ModelError: mapped as for a turn; ``ModelMisconfigured`` means the settings are
                wrong, any other ``ModelError`` that the check could not be made.
        """
        try:
            await self._client.with_options(max_retries=0).models.retrieve(self._model)  # type: ignore[union-attr]
        except anthropic.NotFoundError as exc:
            if exc.type == "not_found_error":
                raise self.convert_error(exc) from exc
            # A gateway in front of the API that does not serve the model lookup.
            raise ModelError("the endpoint has no model lookup (status 404)") from exc
        except self._caught as exc:
            raise self.convert_error(exc) from exc

    def convert_error(self, exc: Exception) -> ModelError:
        """This provider's error for a failed call (see ``bot.model.errors``)."""
        return map_error(exc, self._provider)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    async def __aenter__(self) -> ClaudeClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class AnthropicModelClient(ClaudeClient):
    """Claude through the Anthropic Messages API (``anthropic.AsyncAnthropic``).

    Args:
        api_key: the Anthropic API key.
        model: model id, e.g. ``claude-sonnet-4-6``.
        base_url: API address; ``None`` lets the SDK read ``ANTHROPIC_BASE_URL`` or use its
            default.
        max_tokens: answer length limit.
        temperature: sampling temperature; ``None`` leaves it to the API.
        timeout: seconds per HTTP request.
        max_retries: SDK retries of retryable failures (429, 5xx, connection errors).
        strict_response_validation: reject responses that do not match the SDK's schema
            (tests use it to catch drift in fake servers).
        pricing: how calls are priced (Anthropic's list prices by default).
    """

    _encodes_body = True

    def __init__(
        self,
        api_key: str,
        *,
        model: str,
        base_url: str | None = None,
        max_tokens: int,
        temperature: float | None,
        timeout: float,
        max_retries: int,
        strict_response_validation: bool = False,
        pricing: Pricing | None = None,
    ) -> None:
        sdk = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            _strict_response_validation=strict_response_validation,
            open_telemetry=NO_SDK_SPANS,
            # The SDK's aiohttp transport: under concurrent turns httpx's connection pool
            # polls every kept connection on each request; aiohttp's does not, and parses in C.
            http_client=anthropic.DefaultAioHttpClient(),
        )
        super().__init__(
            sdk,
            provider="anthropic",
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            pricing=pricing,
        )


class AnthropicStream:
    """One streamed Claude answer: iterate once for deltas, then read ``result``."""

    def __init__(self, owner: ClaudeClient, kwargs: dict[str, Any]) -> None:
        self._owner = owner
        self._kwargs = kwargs
        self._result: ModelResult | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        """The SDK's raw events, the answer assembled here from the fields the turn reads.

        The SDK's ``messages.stream()`` helper also rebuilds a snapshot of the whole message
        on every event: for a 300-word answer (about 100 events) 11.5 ms of CPU against
        5.2 ms for the raw events. Error events and broken streams raise as they do there.
        """
        owner = self._owner
        parts: list[str] = []
        body: _Json = {"usage": {}}
        calls: dict[int, _Json] = {}
        try:
            events = await owner._events(self._kwargs)
            async with events:
                async for event in events:
                    if event.type == "content_block_delta":
                        if event.delta.type == "text_delta":
                            parts.append(event.delta.text)
                            yield event.delta.text
                        elif event.delta.type == "input_json_delta" and event.index in calls:
                            calls[event.index]["json"].append(event.delta.partial_json)
                    elif event.type == "content_block_start":
                        block = event.content_block
                        if block.type == "tool_use":
                            calls[event.index] = {"id": block.id, "name": block.name, "json": []}
                    elif event.type == "message_start":
                        body["model"] = event.message.model
                        body["usage"] = event.message.usage.to_dict()
                    elif event.type == "message_delta":
                        body["stop_reason"] = event.delta.stop_reason
                        # the final counts; fields the delta leaves out keep their start value
                        body["usage"].update(event.usage.to_dict(exclude_none=True))
                    elif event.type == "message_stop":
                        body["stopped"] = True
        except owner._caught as exc:
            raise owner.convert_error(exc) from exc
        if not body.get("stopped"):
            raise ModelUnavailable(f"{owner.provider} stream ended before the answer did")
        body["content"] = [{"type": "text", "text": "".join(parts)}]
        body["content"] += [_streamed_call(calls[i]) for i in sorted(calls)]
        model = self._kwargs["model"]
        self._result = _result_of_body(body, model, owner.provider, owner._pricing)

    @property
    def result(self) -> ModelResult:
        """The finished answer.

        Raises:
            RuntimeError: when the stream was not iterated to its end.
        """
        if self._result is None:
            raise RuntimeError("the stream has not finished")
        return self._result


def _streamed_call(call: _Json) -> _Json:
    """A ``tool_use`` block from its streamed pieces (its input arrives as JSON text)."""
    raw = "".join(call["json"]) or "{}"
    try:
        arguments = json.loads(raw)
    except ValueError:
        arguments = None  # not an object: the turn answers the call with an error
    return {"type": "tool_use", "id": call["id"], "name": call["name"], "input": arguments}
