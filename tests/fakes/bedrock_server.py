"""A fake Amazon Bedrock runtime for Claude on 127.0.0.1, checking SigV4 signatures.

Routes, as ``AsyncAnthropicBedrock`` calls them:

```
POST /model/{modelId}/invoke                        the Messages body; the message as JSON
POST /model/{modelId}/invoke-with-response-stream   the same; the events, event-stream framed
POST /model/{modelId}/count-tokens                  {"input": {"invokeModel": {"body": b64}}}
```

Every request must carry a valid Signature Version 4 for service ``bedrock`` in the fake's
region, made with its static test credentials (``tests.fakes.aws.verify_sigv4``), or a
Bedrock API key as a bearer token. The body is Anthropic's, without ``model`` and ``stream``
and with an ``anthropic_version``. A stream is ``application/vnd.amazon.
eventstream``: each Anthropic event base64-encoded in a ``chunk`` event, failures as
``exception`` messages (``throttlingException`` ...). HTTP errors are ``{"message": ...}`` with
the error name in ``x-amzn-ErrorType``, as AWS sends them.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from aiohttp import web

from tests.fakes.anthropic_server import KNOWN_MODELS, FakeAnthropic
from tests.fakes.aws import AwsCredentials, SignatureRejected, event_message, verify_sigv4
from tests.fakes.base import Body, Outage, ScriptedError, StreamFailure

VERSIONS = re.compile(r"bedrock-2023-05-31|\d{4}-\d{2}-\d{2}")
"""``anthropic_version`` in the body: the platform's original one, or a dated API version."""
_CODE_SUFFIX = ":http://internal.amazon.com/coral/com.amazon.bedrock/"


def bedrock_model(model: str) -> str:
    """The Claude family a Bedrock id names (``us.anthropic.claude-x-v1:0`` -> ``claude-x``)."""
    name = model.rsplit("/", 1)[-1]
    name = name.split(".", 1)[1] if name.split(".", 1)[0] in ("us", "eu", "global") else name
    return name.removeprefix("anthropic.")


class FakeBedrock(FakeAnthropic):
    """Claude on a fake Bedrock runtime.

    Attributes:
        credentials: the only AWS credentials whose signatures are accepted.
        region: the region requests must be signed for.
        api_keys: Bedrock API keys accepted as ``Authorization: Bearer``.
    """

    name = "fake-bedrock"
    OUTAGES = {
        Outage.RATE_LIMITED: ScriptedError(429, "ThrottlingException", "Too many requests"),
        Outage.OVERLOADED: ScriptedError(503, "ServiceUnavailableException", "Unavailable"),
        Outage.SERVER_ERROR: ScriptedError(500, "InternalServerException", "Internal error"),
        Outage.TIMEOUT: ScriptedError(408, "ModelTimeoutException", "Model timed out"),
        Outage.BAD_REQUEST: ScriptedError(400, "ValidationException", "Malformed input request"),
        Outage.BAD_KEY: ScriptedError(403, "UnrecognizedClientException", "Invalid token"),
        Outage.FORBIDDEN: ScriptedError(403, "AccessDeniedException", "No access to the model"),
        Outage.NOT_FOUND: ScriptedError(404, "ResourceNotFoundException", "Model not found"),
    }
    STREAM_OUTAGES = {
        Outage.OVERLOADED: "serviceUnavailableException",
        Outage.RATE_LIMITED: "throttlingException",
        Outage.SERVER_ERROR: "modelStreamErrorException",
        Outage.BAD_REQUEST: "validationException",
    }

    def reset(self) -> None:
        """Forget requests, scripts and settings; the default test credentials again."""
        super().reset()
        self.credentials = AwsCredentials()
        self.region = "us-east-1"
        self.api_keys: set[str] = set()

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/model/{model}/{call}", self._call)

    async def _call(self, request: web.Request) -> web.StreamResponse:
        call = request.match_info["call"]
        body, _ = await self._record(request, check=call == "count-tokens")
        if (problem := self._check_signature(request, await request.read())) is not None:
            return problem
        model = request.match_info["model"]
        if not bedrock_model(model).startswith(KNOWN_MODELS):
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        if call == "count-tokens":
            scripted = self._next_error(streaming=False)
            if isinstance(scripted, ScriptedError):
                return self._error_response(scripted)
            return self._count_tokens(body)
        if call not in ("invoke", "invoke-with-response-stream"):
            return self._error_response(ScriptedError(404, "UnknownOperationException", call))
        version = str(body.get("anthropic_version"))
        if not VERSIONS.fullmatch(version) or {"model", "stream"} & set(body):
            return self._error_response(self.OUTAGES[Outage.BAD_REQUEST])
        streaming = call == "invoke-with-response-stream"
        return await self._reply(request, body, model, streaming=streaming)

    def _count_tokens(self, body: Body) -> web.Response:
        try:
            invoke = json.loads(base64.b64decode(body["input"]["invokeModel"]["body"]))
        except (KeyError, TypeError, ValueError):
            return self._error_response(self.OUTAGES[Outage.BAD_REQUEST])
        text = json.dumps(invoke.get("messages", []))
        return web.json_response({"inputTokens": max(1, len(text) // 4)})

    def _check_signature(self, request: web.Request, body: bytes) -> web.Response | None:
        bearer = request.headers.get("Authorization", "")
        if bearer.startswith("Bearer "):
            if bearer.removeprefix("Bearer ") in self.api_keys:
                return None
            return self._error_response(self.OUTAGES[Outage.BAD_KEY])
        try:
            verify_sigv4(
                method=request.method,
                raw_path=request.raw_path.split("?", 1)[0],
                query=request.query_string,
                headers=request.headers,
                body=body,
                credentials=self.credentials,
                region=self.region,
                service="bedrock",
            )
        except SignatureRejected as exc:
            return self._error_response(ScriptedError(403, exc.code, str(exc)))
        return None

    def all_text_sent(self) -> str:
        """Every text the model calls carried, and the count-tokens bodies decoded."""
        parts = [super().all_text_sent()]
        for check in self.checks:
            invoke = check.body.get("input", {}).get("invokeModel", {})
            if "body" in invoke:
                parts.append(base64.b64decode(invoke["body"]).decode())
        return "\n".join(parts)

    def _response_headers(self, usage: dict[str, int]) -> dict[str, str]:
        return {
            "x-amzn-RequestId": self._request_id(),
            "X-Amzn-Bedrock-Input-Token-Count": str(usage["input_tokens"]),
            "X-Amzn-Bedrock-Output-Token-Count": str(usage["output_tokens"]),
            "X-Amzn-Bedrock-Invocation-Latency": "1",
        }

    def _error_response(self, error: ScriptedError) -> web.Response:
        headers = {
            "x-amzn-RequestId": self._request_id(),
            "x-amzn-ErrorType": error.type + _CODE_SUFFIX,
            **error.headers,
        }
        return web.json_response({"message": error.message}, status=error.status, headers=headers)

    # the event stream ----------------------------------------------------------------------
    async def _open_stream(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "application/vnd.amazon.eventstream",
                "x-amzn-RequestId": self._request_id(),
                "X-Amzn-Bedrock-Content-Type": "application/json",
            }
        )
        await response.prepare(request)
        return response

    async def _send(self, response: web.StreamResponse, event: Body) -> None:
        if event["type"] == "message_stop":
            event = {**event, "amazon-bedrock-invocationMetrics": self._metrics()}
        chunk = {"bytes": base64.b64encode(json.dumps(event).encode()).decode()}
        headers = {
            ":event-type": "chunk",
            ":content-type": "application/json",
            ":message-type": "event",
        }
        await response.write(event_message(headers, json.dumps(chunk).encode()))

    async def _send_error(self, response: web.StreamResponse, failure: StreamFailure) -> None:
        headers = {
            ":exception-type": failure.type,
            ":content-type": "application/json",
            ":message-type": "exception",
        }
        payload: dict[str, Any] = {"message": failure.message}
        await response.write(event_message(headers, json.dumps(payload).encode()))

    @staticmethod
    def _metrics() -> dict[str, int]:
        return {"inputTokenCount": 0, "outputTokenCount": 0, "invocationLatency": 1}
