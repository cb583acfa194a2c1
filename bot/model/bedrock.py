"""Claude on Amazon Bedrock, through the SDK's ``AsyncAnthropicBedrock`` (``veilbot[bedrock]``).

Credentials, first found wins: a Bedrock API key (a bearer token); static keys (access key
and secret, with a session token for temporary ones); a named profile; else the AWS default
chain as boto3 resolves it (environment, shared files, SSO, web identity on EKS, the
instance or task role). Every request is signed with Signature Version 4 for the service
``bedrock`` in the configured region.

Requests go to ``/model/{model}/invoke`` (``/invoke-with-response-stream`` when streaming,
framed as an AWS event stream); the model is a foundation model id or an inference profile
(``global.anthropic.…``, ``us.anthropic.…``, or its ARN). The start-up check counts the
tokens of a one-word message, which costs nothing.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

import anthropic
import httpx2

from bot.core.errors import ModelError, ModelMisconfigured
from bot.model.claude import NO_SDK_SPANS, ClaudeClient
from bot.model.errors import CredentialsRefused
from bot.model.pricing import Pricing

BEDROCK_VERSION = "bedrock-2023-05-31"


def _count_tokens_body(model_body: dict[str, Any]) -> bytes:
    """CountTokens' request: an InvokeModel body, base64-encoded, inside ``input``."""
    encoded = base64.b64encode(json.dumps(model_body).encode()).decode()
    return json.dumps({"input": {"invokeModel": {"body": encoded}}}).encode()


class BedrockModelClient(ClaudeClient):
    """Claude on Amazon Bedrock.

    Args:
        region: the AWS region of the runtime endpoint, e.g. ``us-east-1``.
        model: a Bedrock model id or inference profile, e.g.
            ``global.anthropic.claude-sonnet-4-5-20250929-v1:0``.
        api_key: a Bedrock API key; excludes the AWS credentials below.
        access_key: ``AWS_ACCESS_KEY_ID``-style key id (with ``secret_key``).
        secret_key: the secret of ``access_key``.
        session_token: the session token of temporary credentials.
        profile: a named profile of the shared AWS config files.
        base_url: the endpoint (``https://bedrock-runtime.{region}.amazonaws.com`` by default).
        max_tokens: answer length limit.
        temperature: sampling temperature; ``None`` leaves it to the API.
        timeout: seconds per HTTP request.
        max_retries: SDK retries of retryable failures (429, 5xx, connection errors).
        pricing: how calls are priced (the list prices, regional premium included).
        strict_response_validation: reject responses that do not match the SDK's schema.
    """

    def __init__(
        self,
        *,
        region: str,
        model: str,
        api_key: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        session_token: str | None = None,
        profile: str | None = None,
        base_url: str | None = None,
        max_tokens: int,
        temperature: float | None,
        timeout: float,
        max_retries: int,
        pricing: Pricing | None = None,
        strict_response_validation: bool = False,
    ) -> None:
        import botocore.exceptions

        sdk = anthropic.AsyncAnthropicBedrock(
            aws_region=region,
            api_key=api_key,
            aws_access_key=access_key,
            aws_secret_key=secret_key,
            aws_session_token=session_token,
            aws_profile=profile,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            _strict_response_validation=strict_response_validation,
            open_telemetry=NO_SDK_SPANS,
        )
        super().__init__(
            sdk,
            provider="bedrock",
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            pricing=pricing or Pricing("bedrock"),
        )
        # boto3 raises these while signing, before any request is sent.
        self._signing_errors = (botocore.exceptions.BotoCoreError, RuntimeError)
        self._caught = (*ClaudeClient._caught, *self._signing_errors)

    def convert_error(self, exc: Exception) -> ModelError:
        """Signing failures too: no credentials could be found, or a profile is broken."""
        if isinstance(exc, self._signing_errors) and not isinstance(exc, anthropic.AnthropicError):
            return CredentialsRefused(
                f"model call failed (bedrock): cannot sign the request ({type(exc).__name__})"
            )
        return super().convert_error(exc)

    async def verify(self) -> None:
        """Count the tokens of a one-word message (free).

        This checks the credentials, the region and the model.

        Raises:
            CredentialsRefused: the key is unknown or the signature is wrong.
            ModelNotFound: no such model or inference profile in the region.
            ModelError: the check could not be made (also: no permission to count tokens,
                which says nothing about invoking the model).
        """
        body = {
            "anthropic_version": BEDROCK_VERSION,
            "max_tokens": 1,
            "messages": [{"role": "user", "content": "ping"}],
        }
        path = f"/model/{quote(self.model, safe=':')}/count-tokens"
        client = self._client.with_options(max_retries=0)
        try:
            await client.post(
                path,
                cast_to=httpx2.Response,
                content=_count_tokens_body(body),
                options={"headers": {"Content-Type": "application/json"}},
            )
        except self._caught as exc:
            error = self.convert_error(exc)
            if type(error) is ModelMisconfigured:  # AccessDenied: maybe only CountTokens
                raise ModelError(
                    "the credentials may not count tokens (bedrock:CountTokens): not checked"
                ) from exc
            raise error from exc
