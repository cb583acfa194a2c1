"""Claude through the official Anthropic SDK.

``AnthropicModelClient`` implements ``bot.core.ports.ModelClient``. It converts every SDK error
at this boundary into ``ModelUnavailable`` (worth retrying later) or ``ModelRejected`` (the
request itself was refused); messages carry status codes and error types, never prompt text.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message

from bot.core.errors import ModelError, ModelRejected, ModelUnavailable
from bot.core.types import ModelRequest, ModelResult, Usage
from bot.model.pricing import cost_usd

logger = logging.getLogger(__name__)

_Json = dict[str, Any]
_UNAVAILABLE_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
_RETRYABLE_4XX = {408, 409, 429}
_SDK_LOGGERS = ("anthropic", "httpx", "httpx2", "httpcore", "httpcore2")


def quiet_sdk_loggers() -> None:
    """Keep SDK loggers at INFO or above: at DEBUG they log request bodies (message text)."""
    for name in _SDK_LOGGERS:
        sdk_logger = logging.getLogger(name)
        if sdk_logger.getEffectiveLevel() < logging.INFO:
            sdk_logger.setLevel(logging.INFO)


def map_error(exc: Exception) -> ModelError:
    """Convert an SDK or transport error into veilbot's model errors (no prompt text)."""
    if isinstance(exc, anthropic.APIStatusError):
        status, kind = exc.status_code, exc.type or "unknown"
        retryable = status >= 500 or status in _RETRYABLE_4XX
        if status < 400:  # an `error` event in the middle of a stream
            retryable = kind in _UNAVAILABLE_TYPES
        error = ModelUnavailable if retryable else ModelRejected
        return error(f"model call failed: status {status} ({kind})")
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return ModelUnavailable("model call timed out")
    if isinstance(exc, anthropic.APIConnectionError | httpx2.TransportError):
        return ModelUnavailable(f"model connection failed ({type(exc).__name__})")
    return ModelUnavailable(f"model call failed ({type(exc).__name__})")


def _request_params(request: ModelRequest) -> tuple[list[_Json], list[_Json]]:
    """The system blocks and messages of a request, with prompt-cache breakpoints.

    The system prompt is one cached block. With history, the message before the newest one
    (the end of the stable prefix) carries a second breakpoint, so each turn reads the
    previous turns from the cache.
    """
    system: list[_Json] = [
        {"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}
    ]
    messages: list[_Json] = [{"role": m.role, "content": m.text} for m in request.messages]
    if len(messages) >= 2:
        prefix_end = request.messages[-2]
        messages[-2] = {
            "role": prefix_end.role,
            "content": [
                {"type": "text", "text": prefix_end.text, "cache_control": {"type": "ephemeral"}}
            ],
        }
    return system, messages


def _result(message: Message, fallback_model: str) -> ModelResult:
    texts = [block.text for block in message.content if block.type == "text"]
    raw = message.usage
    usage = Usage(
        input_tokens=raw.input_tokens or 0,
        output_tokens=raw.output_tokens or 0,
        cache_read_tokens=raw.cache_read_input_tokens or 0,
        cache_write_tokens=raw.cache_creation_input_tokens or 0,
    )
    model = message.model or fallback_model
    return ModelResult(
        text="".join(texts),
        model=model,
        usage=usage,
        cost_usd=cost_usd(model, usage),
        stop_reason=message.stop_reason,
    )


class AnthropicModelClient:
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
    """

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
    ) -> None:
        self._model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            _strict_response_validation=strict_response_validation,
        )

    @property
    def model(self) -> str:
        """The configured model id."""
        return self._model

    def _kwargs(self, request: ModelRequest) -> dict[str, Any]:
        system, messages = _request_params(request)
        kwargs: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "system": system,
            "messages": messages,
        }
        if self._temperature is not None:
            # anthropic 2.x has no `temperature` keyword; the API still accepts the field.
            kwargs["extra_body"] = {"temperature": self._temperature}
        return kwargs

    async def complete(self, request: ModelRequest) -> ModelResult:
        """One answer at once.

        Raises:
            ModelUnavailable: overloaded, rate limited, timed out or unreachable after the
                configured retries.
            ModelRejected: the request was refused (bad request, auth, permission, not found).
        """
        try:
            message = await self._client.messages.create(**self._kwargs(request))
        except (anthropic.AnthropicError, httpx2.HTTPError) as exc:
            raise map_error(exc) from exc
        result = _result(message, self._model)
        logger.debug("model answered: stop_reason=%s usage=%s", result.stop_reason, result.usage)
        return result

    def stream(self, request: ModelRequest) -> AnthropicStream:
        """The answer as text deltas; errors, also mid-stream, map as in ``complete``."""
        return AnthropicStream(self._client, self._kwargs(request), self._model)

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    async def __aenter__(self) -> AnthropicModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class AnthropicStream:
    """One streamed Anthropic answer: iterate once for deltas, then read ``result``."""

    def __init__(self, client: anthropic.AsyncAnthropic, kwargs: dict[str, Any], model: str):
        self._client = client
        self._kwargs = kwargs
        self._model = model
        self._result: ModelResult | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        try:
            async with self._client.messages.stream(**self._kwargs) as stream:
                async for text in stream.text_stream:
                    yield text
                message = await stream.get_final_message()
        except (anthropic.AnthropicError, httpx2.HTTPError) as exc:
            raise map_error(exc) from exc
        self._result = _result(message, self._model)

    @property
    def result(self) -> ModelResult:
        """The finished answer.

        Raises:
            RuntimeError: when the stream was not iterated to its end.
        """
        if self._result is None:
            raise RuntimeError("the stream has not finished")
        return self._result
