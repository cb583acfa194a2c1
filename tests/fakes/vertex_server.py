"""A fake Vertex AI endpoint for Claude on 127.0.0.1, with its own OAuth token endpoint.

Routes, as ``AsyncAnthropicVertex`` calls them (base URL ``{url}/v1``):

```
POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:rawPredict
POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:streamRawPredict
POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/count-tokens:rawPredict
POST /token        OAuth 2.0 JWT-bearer grant (RFC 7523), a service account's token_uri
```

The Messages body is Anthropic's, without ``model`` (it is in the path) and with
an ``anthropic_version``; answers and streams are Anthropic's (see
``FakeAnthropic``). Every call needs ``Authorization: Bearer`` with a token this fake issued
or the configured static token. The token endpoint verifies the RS256 signature of the
assertion against the test service account's public key, so google-auth's real credential
flow runs, offline. Errors of Google's front end (quota, auth, permission, not found) come
in Google's body (``{"error": {"code", "message", "status"}}``); the model's own errors
(overloaded, invalid request) in Anthropic's.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import time
from typing import Any
from urllib.parse import parse_qs

from aiohttp import web
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.fakes.anthropic_server import KNOWN_MODELS, FakeAnthropic, error_body
from tests.fakes.base import Outage, ScriptedError

VERSIONS = re.compile(r"vertex-2023-10-16|\d{4}-\d{2}-\d{2}")
"""``anthropic_version`` in the body: the platform's original one, or a dated API version."""
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
AUDIENCE = "https://oauth2.googleapis.com/token"  # what Google's endpoint expects, wherever it is
SERVICE_ACCOUNT = "veilbot-test@veilbot-test.iam.gserviceaccount.com"
_MODELS = "/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{call}"


def _b64url(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def google_error(status: int, code: str, message: str) -> dict[str, Any]:
    """Google's error body (``google.rpc.Status`` as JSON)."""
    return {"error": {"code": status, "message": message, "status": code}}


class FakeVertex(FakeAnthropic):
    """Claude on a fake Vertex AI. ``service_account_info()`` is a key file for it.

    Attributes:
        project: the project the fake serves; calls for another get 403 PERMISSION_DENIED.
        static_token: an access token accepted besides the ones ``/token`` issued.
    """

    name = "fake-vertex"
    OUTAGES = {
        Outage.RATE_LIMITED: ScriptedError(429, "RESOURCE_EXHAUSTED", "Quota exceeded"),
        Outage.OVERLOADED: ScriptedError(529, "overloaded_error", "Overloaded"),
        Outage.SERVER_ERROR: ScriptedError(500, "INTERNAL", "Internal error encountered."),
        Outage.TIMEOUT: ScriptedError(504, "DEADLINE_EXCEEDED", "Deadline expired"),
        Outage.BAD_REQUEST: ScriptedError(400, "invalid_request_error", "invalid request"),
        Outage.BAD_KEY: ScriptedError(401, "UNAUTHENTICATED", "Request had invalid credentials."),
        Outage.FORBIDDEN: ScriptedError(403, "PERMISSION_DENIED", "Permission denied"),
        Outage.NOT_FOUND: ScriptedError(404, "NOT_FOUND", "Publisher model not found"),
    }

    def __init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._key_id = secrets.token_hex(8)
        super().__init__()

    def reset(self) -> None:
        """Forget requests and scripts; tokens already issued stay valid (as Google's do)."""
        super().reset()
        self.project = "veilbot-test"
        self.static_token: str | None = "ya29.static-test-token"
        if not hasattr(self, "_issued"):
            self._issued: set[str] = set()

    def service_account_info(self, *, wrong_key: bool = False) -> dict[str, str]:
        """A service-account key file whose ``token_uri`` is this fake (``wrong_key``: signed
        with a key the fake does not know, as after a key was revoked)."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if wrong_key else None
        pem = (key or self._key).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        return {
            "type": "service_account",
            "project_id": self.project,
            "private_key_id": self._key_id,
            "private_key": pem.decode(),
            "client_email": SERVICE_ACCOUNT,
            "client_id": "1234567890",
            "token_uri": f"{self.url}/token",
        }

    @property
    def base_url(self) -> str:
        """The SDK's ``base_url`` for this fake."""
        return f"{self.url}/v1"

    def _routes(self, app: web.Application) -> None:
        app.router.add_post(_MODELS, self._predict)
        app.router.add_post("/token", self._token)

    # the OAuth token endpoint ----------------------------------------------------------
    async def _token(self, request: web.Request) -> web.Response:
        await self._record(request, check=True)
        form = parse_qs((await request.read()).decode())
        grant, assertion = form.get("grant_type", [""])[0], form.get("assertion", [""])[0]
        if grant != JWT_GRANT or not self._valid_assertion(assertion):
            denied = {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
            return web.json_response(denied, status=400)
        token = f"ya29.fake-{secrets.token_urlsafe(16)}"
        with self._lock:
            self._issued.add(token)
        return web.json_response(
            {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}
        )

    def _valid_assertion(self, assertion: str) -> bool:
        try:
            head, payload, signature = assertion.split(".")
            header, claims = json.loads(_b64url(head)), json.loads(_b64url(payload))
            self._key.public_key().verify(
                _b64url(signature),
                f"{head}.{payload}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except Exception:  # noqa: BLE001  (any malformed or badly signed assertion is refused)
            return False
        now = time.time()
        return (
            header.get("alg") == "RS256"
            and claims.get("iss") == SERVICE_ACCOUNT
            and claims.get("aud") == AUDIENCE
            and SCOPE in str(claims.get("scope", "")).split()
            and claims.get("iat", now + 600) <= now + 300
            and claims.get("exp", 0) > now
        )

    # rawPredict / streamRawPredict / count-tokens ----------------------------------------
    async def _predict(self, request: web.Request) -> web.StreamResponse:
        body, _ = await self._record(request, check=request.match_info["call"].startswith("count-"))
        model, _, method = request.match_info["call"].partition(":")
        if (problem := self._check_auth(request)) is not None:
            return problem
        if request.match_info["project"] != self.project:
            return self._error_response(self.OUTAGES[Outage.FORBIDDEN])
        if method not in ("rawPredict", "streamRawPredict"):
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        if not VERSIONS.fullmatch(str(body.get("anthropic_version"))):
            return self._error_response(ScriptedError(400, "invalid_request_error", "version"))
        if model == "count-tokens":
            return self._count_tokens(body)
        if "model" in body or not model.startswith(KNOWN_MODELS):
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        streaming = method == "streamRawPredict"
        if bool(body.get("stream")) != streaming:
            return self._error_response(ScriptedError(400, "invalid_request_error", "stream"))
        return await self._reply(request, body, model, streaming=streaming)

    def _count_tokens(self, body: dict[str, Any]) -> web.Response:
        if not str(body.get("model", "")).startswith(KNOWN_MODELS):
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        text = json.dumps(body.get("messages", []))
        return web.json_response({"input_tokens": max(1, len(text) // 4)})

    def _check_auth(self, request: web.Request) -> web.Response | None:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        with self._lock:
            known = token in self._issued or (token != "" and token == self.static_token)
        return None if known else self._error_response(self.OUTAGES[Outage.BAD_KEY])

    def _error_response(self, error: ScriptedError) -> web.Response:
        if error.type.isupper():  # Google's front end
            body = google_error(error.status, error.type, error.message)
        else:  # the model behind it
            body = error_body(error.type, error.message)
        return web.json_response(body, status=error.status, headers=error.headers)
