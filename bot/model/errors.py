"""Provider failures onto veilbot's model errors: one table for every provider.

Each client converts its SDK's errors here, so a user hears the same answer whether Claude
came through Anthropic, Bedrock or Vertex, or a self-hosted model failed:

```
error kind or HTTP status                                           -> error
rate_limit_error, ThrottlingException, RESOURCE_EXHAUSTED, 429      -> ModelRateLimited
overloaded_error, ServiceUnavailableException, UNAVAILABLE, 529/503 -> ModelOverloaded
timeout_error, ModelTimeoutException, DEADLINE_EXCEEDED, 408/504    -> ModelTimeout
any other 5xx, 409, api_error, InternalServerException, ...         -> ModelUnavailable
401, and 403 for an unknown or badly signed key                    -> CredentialsRefused
404 (unknown model, project or region)                              -> ModelNotFound
403 otherwise (no permission, model access not granted)             -> ModelMisconfigured
any other 4xx                                                        -> ModelRejected
```

A kind is the provider's own error name: Anthropic's ``error.type``, Bedrock's
``x-amzn-ErrorType`` or event-stream exception type, Google's ``error.status``, OpenAI's
``error.code``/``error.type``. A known kind wins over the status, except the generic ones
(``invalid_request_error``, ``api_error``, ...) that some servers send with any status.
Mid-stream errors carry a kind and no failing status.
Messages name the provider, the status and the kind, never prompt text.
"""

from __future__ import annotations

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


class CredentialsRefused(ModelMisconfigured):
    """The provider did not accept the credentials (missing, unknown, expired, bad signature)."""


class ModelNotFound(ModelMisconfigured):
    """The provider does not know the model (or the project, region or deployment)."""


_KINDS: dict[str, type[ModelError]] = {
    # Anthropic (and Claude on Vertex and Bedrock, mid-stream)
    "rate_limit_error": ModelRateLimited,
    "overloaded_error": ModelOverloaded,
    "timeout_error": ModelTimeout,
    "api_error": ModelUnavailable,
    "invalid_request_error": ModelRejected,
    "request_too_large": ModelRejected,
    "authentication_error": CredentialsRefused,
    "permission_error": ModelMisconfigured,
    "not_found_error": ModelNotFound,
    # Amazon Bedrock (HTTP x-amzn-ErrorType and event-stream exception types)
    "throttlingexception": ModelRateLimited,
    "servicequotaexceededexception": ModelRateLimited,
    "modelnotreadyexception": ModelOverloaded,
    "serviceunavailableexception": ModelOverloaded,
    "modeltimeoutexception": ModelTimeout,
    "internalserverexception": ModelUnavailable,
    "modelstreamerrorexception": ModelUnavailable,
    "modelerrorexception": ModelUnavailable,
    "validationexception": ModelRejected,
    "unrecognizedclientexception": CredentialsRefused,
    "invalidsignatureexception": CredentialsRefused,
    "expiredtokenexception": CredentialsRefused,
    "incompletesignatureexception": CredentialsRefused,
    "missingauthenticationtokenexception": CredentialsRefused,
    "accessdeniedexception": ModelMisconfigured,
    "resourcenotfoundexception": ModelNotFound,
    # Google (Vertex AI front end)
    "resource_exhausted": ModelRateLimited,
    "unavailable": ModelOverloaded,
    "deadline_exceeded": ModelTimeout,
    "internal": ModelUnavailable,
    "unauthenticated": CredentialsRefused,
    "permission_denied": ModelMisconfigured,
    "not_found": ModelNotFound,
    "invalid_argument": ModelRejected,
    "failed_precondition": ModelRejected,
    # OpenAI and the servers that copy its error bodies (vLLM, Ollama, llama.cpp)
    "rate_limit_exceeded": ModelRateLimited,
    "insufficient_quota": ModelRateLimited,
    "server_error": ModelUnavailable,
    "invalid_api_key": CredentialsRefused,
    "model_not_found": ModelNotFound,
    "context_length_exceeded": ModelRejected,
    "unavailable_error": ModelOverloaded,
}


def _by_status(status: int) -> type[ModelError]:
    if status == 429:
        return ModelRateLimited
    if status in (503, 529):
        return ModelOverloaded
    if status in (408, 504):
        return ModelTimeout
    if status >= 500 or status == 409:
        return ModelUnavailable
    if status == 401:
        return CredentialsRefused
    if status == 404:
        return ModelNotFound
    if status == 403:
        return ModelMisconfigured
    return ModelRejected


_GENERIC = {"invalid_request_error", "api_error", "server_error", "internal", "invalid_argument"}
"""Kinds that some providers send with any status (OpenAI: a 401 is an
``invalid_request_error``): with a failing status, the status says more."""


def error_class(status: int | None, kind: str | None) -> type[ModelError]:
    """The error class for a provider's status code and error kind."""
    name = (kind or "").strip().lower()
    failing = status is not None and status >= 400
    known = _KINDS.get(name)
    if known is not None and not (failing and name in _GENERIC):
        return known
    if status is None or status < 400:  # an error event in an otherwise good stream
        return ModelUnavailable
    return _by_status(status)


def status_error(provider: str, status: int | None, kind: str | None) -> ModelError:
    """The veilbot error for a failed call (no prompt text in the message).

    Args:
        provider: ``anthropic``, ``bedrock``, ``vertex`` or ``openai``.
        status: the HTTP status; ``None`` or below 400 for an error inside a stream.
        kind: the provider's error name, when it gave one.
    """
    error = error_class(status, kind)
    where = f"status {status}" if status is not None and status >= 400 else "mid-stream"
    return error(f"model call failed ({provider}): {where} ({kind or 'unknown'})")


def timeout_error(provider: str) -> ModelTimeout:
    """No answer within the configured timeout."""
    return ModelTimeout(f"model call timed out ({provider})")


def connection_error(provider: str, exc: BaseException) -> ModelUnreachable:
    """The endpoint could not be reached, or the connection dropped."""
    return ModelUnreachable(f"model connection failed ({provider}, {type(exc).__name__})")
