"""Any OpenAI-compatible ``/v1/chat/completions`` server, through the ``openai`` SDK.

For models kept inside the company's network: Ollama, vLLM, llama.cpp's server, LM Studio,
or a gateway in front of them (``veilbot[openai]``). The system prompt travels as the
first, ``system``, message. A key is optional: without one no ``Authorization`` header is
sent. Usage comes from the server (``prompt_tokens_details.cached_tokens`` as cache reads);
a server that reports none gets an estimate, and the audit record says so. Self-hosted
models have no list price: ``Pricing`` counts them as 0 unless the operator sets a price.

Tools go as Chat Completions function tools (``tools``, ``tool_choice`` ``none`` when the turn
must answer); the model's ``tool_calls`` come back with their arguments as JSON text, and each
result goes back as a ``tool`` message naming its ``tool_call_id``. A model the server refuses
tools for (HTTP 400 naming tools, as Ollama says of a model without tool support) is asked
again without them, and is offered none from then on (until a restart).
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

import httpx2
import openai
from openai.types import CompletionUsage
from openai.types.chat.chat_completion_chunk import ChoiceDeltaToolCall

from bot.core.attachments import ImagePart
from bot.core.errors import ModelError, ModelUnavailable
from bot.core.types import ChatMessage, ModelRequest, ModelResult, ToolCall, ToolUse, Usage
from bot.core.window import estimate_tokens, max_input_tokens, message_tokens
from bot.model.errors import (
    ModelNotFound,
    connection_error,
    status_error,
    timeout_error,
)
from bot.model.pricing import Pricing

logger = logging.getLogger(__name__)

PROVIDER = "openai"
ESTIMATED = "tokens estimated (the server reported none)"


def _kind(exc: openai.APIError) -> str | None:
    code = exc.code
    return code if code and not code.isdigit() else exc.type


def map_error(exc: Exception) -> ModelError:
    """Convert an ``openai`` SDK or transport error into veilbot's model errors."""
    if isinstance(exc, openai.APIStatusError):
        return status_error(PROVIDER, exc.status_code, _kind(exc))
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        return timeout_error(PROVIDER)
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        return connection_error(PROVIDER, exc)
    if isinstance(exc, openai.APIError):  # an error chunk in the middle of a stream
        code = exc.code
        return status_error(PROVIDER, int(code) if code and code.isdigit() else None, _kind(exc))
    return ModelUnavailable(f"model call failed ({PROVIDER}, {type(exc).__name__})")


def _usage(raw: CompletionUsage | None) -> Usage | None:
    if raw is None:
        return None
    details = raw.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details else 0
    return Usage(
        input_tokens=max(raw.prompt_tokens - cached, 0),
        output_tokens=raw.completion_tokens,
        cache_read_tokens=cached,
    )


def _data_url(image: ImagePart) -> str:
    """An image as the ``data:`` URL OpenAI-compatible servers read in ``image_url``."""
    return f"data:{image.media_type};base64,{base64.b64encode(image.data).decode('ascii')}"


def _message(message: ChatMessage) -> dict[str, Any]:
    return {"role": message.role, "content": message.text}


def tool_rounds(uses: Sequence[ToolUse]) -> list[dict[str, Any]]:
    """Tool calls as Chat Completions has them.

    Per round, an assistant message with the round's ``tool_calls``, then one ``tool``
    message per call with its result (an error result says so in its text: the format has
    no error flag).
    """
    rounds: dict[int, list[ToolUse]] = {}
    for use in uses:
        rounds.setdefault(use.round, []).append(use)
    messages: list[dict[str, Any]] = []
    for _, calls in sorted(rounds.items()):
        asked = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": asked})
        messages += [
            {
                "role": "tool",
                "tool_call_id": c.id,
                "content": f"Error: {c.result}" if c.error else c.result,
            }
            for c in calls
        ]
    return messages


def _tool_call(call_id: str | None, name: str | None, arguments: str | None) -> ToolCall:
    """A call the model asked for; arguments that are not a JSON object read as none."""
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = {}
    return ToolCall(str(call_id or ""), str(name or ""), parsed if isinstance(parsed, dict) else {})


def _rejects_tools(exc: Exception) -> bool:
    """Whether a failed call is the server refusing tools for the model (not another 400)."""
    return isinstance(exc, openai.BadRequestError) and "tool" in str(exc.message).lower()


def _estimate(request: ModelRequest, text: str) -> Usage:
    prompt = estimate_tokens(request.system) + sum(message_tokens(m) for m in request.messages)
    return Usage(input_tokens=prompt, output_tokens=estimate_tokens(text))


class OpenAIModelClient:
    """A model behind an OpenAI-compatible chat completions endpoint.

    Args:
        base_url: the server's API root, e.g. ``http://ollama:11434/v1``.
        model: the model name the server knows, e.g. ``llama3.1:8b``.
        api_key: a bearer key, when the server wants one.
        max_tokens: answer length limit (sent as ``max_tokens``, which these servers read).
        temperature: sampling temperature; ``None`` leaves it to the server.
        timeout: seconds per HTTP request.
        max_retries: SDK retries of retryable failures (429, 5xx, connection errors).
        pricing: how calls are priced (0 for a self-hosted model without a configured price).
        strict_response_validation: reject responses that do not match the SDK's schema.
        images: whether the model takes images (a vision model): a request's redacted images
            go as ``image_url`` data URLs on the newest user message; else they are left out
            (their redacted OCR text is in the message already).
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        max_tokens: int,
        temperature: float | None,
        timeout: float,
        max_retries: int,
        pricing: Pricing | None = None,
        strict_response_validation: bool = False,
        images: bool = False,
    ) -> None:
        self._images = images
        self._model = model
        self._no_tools: set[str] = set()
        """Models the server refused tools for: offered none from then on."""
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._pricing = pricing or Pricing(PROVIDER)
        # No key: send no Authorization header at all (the SDK wants that said per request).
        self._headers: dict[str, Any] = {} if api_key else {"Authorization": openai.Omit()}
        self._client = openai.AsyncOpenAI(
            api_key=api_key or "",
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            _strict_response_validation=strict_response_validation,
            _enforce_credentials=bool(api_key),
        )

    @property
    def model(self) -> str:
        """The configured model name."""
        return self._model

    @property
    def provider(self) -> str:
        """Always ``openai`` (the wire format, whoever serves it)."""
        return PROVIDER

    def _kwargs(self, request: ModelRequest) -> dict[str, Any]:
        model = request.model or self._model
        tools = bool(request.tools) and model not in self._no_tools
        sent = [_message(m) for m in request.messages]
        last = request.messages[-1] if request.messages else None
        if self._images and request.images and last is not None and last.role == "user":
            parts: list[dict[str, Any]] = [{"type": "text", "text": last.text}]
            parts += [
                {"type": "image_url", "image_url": {"url": _data_url(i)}} for i in request.images
            ]
            sent[-1] = {"role": "user", "content": parts}
        messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
        for message, body in zip(request.messages, sent, strict=True):
            if tools:  # without tools, a server refuses tool messages: the text only then
                messages += tool_rounds(message.tools)
            messages.append(body)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "max_tokens": request.max_tokens or self._max_tokens,
            "extra_headers": self._headers,
        }
        if tools:
            messages += tool_rounds(request.pending)
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.schema,
                    },
                }
                for t in request.tools
            ]
            if request.answer_now:
                kwargs["tool_choice"] = "none"
        if self._temperature is not None:
            kwargs["temperature"] = self._temperature
        return kwargs

    def without_tools(self, request: ModelRequest, exc: Exception) -> dict[str, Any] | None:
        """The request's arguments without tools when ``exc`` is the server refusing them.

        The model is offered no tools from then on; ``None``: ``exc`` is another failure.
        """
        model = request.model or self._model
        if not request.tools or model in self._no_tools or not _rejects_tools(exc):
            return None
        self._no_tools.add(model)
        logger.warning("the server refused tools for model %s: it is offered none", model)
        return self._kwargs(replace(request, tools=(), pending=(), answer_now=False))

    def result(
        self,
        request: ModelRequest,
        text: str,
        raw: CompletionUsage | None,
        stop: str | None,
        calls: tuple[ToolCall, ...] = (),
    ) -> ModelResult:
        """The finished answer with usage (estimated if the server gave none) and cost."""
        usage = _usage(raw)
        notes = []
        if usage is None:
            usage = _estimate(request, text)
            notes.append(ESTIMATED)
        model = request.model or self._model
        cost, pricing = self._pricing.cost(model, usage)
        return ModelResult(
            text=text,
            model=model,
            usage=usage,
            cost_usd=cost,
            stop_reason=stop,
            provider=PROVIDER,
            cost_note="; ".join([pricing, *notes]),
            tool_calls=calls if request.tools and not request.answer_now else (),
        )

    def takes_tools(self, request: ModelRequest) -> bool:
        """Whether tools are offered (``ModelClient.takes_tools``): not once refused for it."""
        return (request.model or self._model) not in self._no_tools

    def max_cost(self, request: ModelRequest) -> float | None:
        """The most ``request`` can cost (``ModelClient.max_cost``): 0 when self-hosted."""
        model = request.model or self._model
        most_out = request.max_tokens or self._max_tokens
        return self._pricing.max_cost(model, max_input_tokens(request), most_out)

    async def complete(self, request: ModelRequest) -> ModelResult:
        """One answer at once.

        Raises:
            ModelUnavailable: rate limited, overloaded, timed out or unreachable after the
                configured retries (one of its subclasses).
            ModelRejected: the request was refused (bad request, context too long).
            ModelMisconfigured: bad key, no permission, unknown model.
        """
        kwargs = self._kwargs(request)
        try:
            try:
                answer = await self._client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if (plain := self.without_tools(request, exc)) is None:
                    raise
                request = replace(request, tools=())
                answer = await self._client.chat.completions.create(**plain)
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise map_error(exc) from exc
        choice = answer.choices[0] if answer.choices else None
        text = (choice.message.content or "") if choice else ""
        calls = tuple(
            _tool_call(c.id, c.function.name, c.function.arguments)
            for c in (choice.message.tool_calls or () if choice else ())
            if c.type == "function"
        )
        stop = choice.finish_reason if choice else None
        return self.result(request, text, answer.usage, stop, calls)

    def stream(self, request: ModelRequest) -> OpenAIStream:
        """The answer as text deltas; errors, also mid-stream, map as in ``complete``."""
        kwargs = {**self._kwargs(request), "stream": True}
        kwargs["stream_options"] = {"include_usage": True}
        return OpenAIStream(self, request, kwargs)

    async def verify(self) -> None:
        """List the served models (free): checks the address, the key and the model name.

        Raises:
            ModelNotFound: the server answers but does not serve the model.
            ModelError: as for a turn; ``ModelMisconfigured`` means the settings are wrong.
        """
        try:
            once = self._client.with_options(max_retries=0, _enforce_credentials=False)
            page = await once.models.list(extra_headers=self._headers)
        except openai.NotFoundError as exc:
            raise ModelError("the server does not list its models (status 404)") from exc
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise map_error(exc) from exc
        served = [m.id for m in page.data]
        if served and self._model not in served:
            shown = ", ".join(served[:10]) + (", …" if len(served) > 10 else "")
            raise ModelNotFound(f"the server does not serve {self._model!r} (it serves: {shown})")

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()


class OpenAIStream:
    """One streamed chat completion: iterate once for deltas, then read ``result``."""

    def __init__(self, owner: OpenAIModelClient, request: ModelRequest, kwargs: dict[str, Any]):
        self._owner = owner
        self._request = request
        self._kwargs = kwargs
        self._result: ModelResult | None = None

    def __aiter__(self) -> AsyncIterator[str]:
        return self._deltas()

    async def _deltas(self) -> AsyncIterator[str]:
        owner, parts = self._owner, []
        usage: CompletionUsage | None = None
        stop: str | None = None
        calls: dict[int, dict[str, Any]] = {}
        try:
            try:
                chunks = await owner._client.chat.completions.create(**self._kwargs)
            except openai.BadRequestError as exc:
                if (plain := owner.without_tools(self._request, exc)) is None:
                    raise
                self._request = replace(self._request, tools=())
                kwargs = {**plain, "stream": True, "stream_options": {"include_usage": True}}
                chunks = await owner._client.chat.completions.create(**kwargs)
            async for chunk in chunks:
                usage = chunk.usage or usage
                for choice in chunk.choices[:1]:
                    stop = choice.finish_reason or stop
                    if choice.delta.content:
                        parts.append(choice.delta.content)
                        yield choice.delta.content
                    for piece in choice.delta.tool_calls or ():
                        _assemble(calls.setdefault(piece.index, {"json": []}), piece)
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise map_error(exc) from exc
        asked = tuple(
            _tool_call(c.get("id"), c.get("name"), "".join(c["json"]))
            for _, c in sorted(calls.items())
        )
        self._result = owner.result(self._request, "".join(parts), usage, stop, asked)

    @property
    def result(self) -> ModelResult:
        """The finished answer.

        Raises:
            RuntimeError: when the stream was not iterated to its end.
        """
        if self._result is None:
            raise RuntimeError("the stream has not finished")
        return self._result


def _assemble(call: dict[str, Any], piece: ChoiceDeltaToolCall) -> None:
    """Add a streamed fragment of a tool call: its id and name come once, arguments in parts."""
    if piece.id:
        call["id"] = piece.id
    if piece.function is not None:
        if piece.function.name:
            call["name"] = call.get("name", "") + piece.function.name
        if piece.function.arguments:
            call["json"].append(piece.function.arguments)
