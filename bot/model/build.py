"""The composition root's model half: builds the ``ModelClient`` that ``Settings`` choose.

It lives with the clients it builds but belongs to the root: it alone of ``bot.model`` reads
``Settings`` and picks a concrete client (``bot.app`` calls it, also for the providers scopes name).

``VEILBOT_MODEL_PROVIDER`` picks one client (nothing else does):

```
anthropic  ClaudeClient on AsyncAnthropic          bot.model.claude   (installed with veilbot)
bedrock    ClaudeClient on AsyncAnthropicBedrock   bot.model.bedrock  veilbot[bedrock]
vertex     ClaudeClient on AsyncAnthropicVertex    bot.model.vertex   veilbot[vertex]
openai     OpenAIModelClient (any /v1 server)      bot.model.openai_compat  veilbot[openai]
echo       EchoModelClient (offline)               bot.model.echo
auto       anthropic with an Anthropic key, else echo
```

Credentials fail at start, with the variables to set: missing or half-set ones when the
client is built (``build_model``), wrong ones when a free call is refused (``check_model``:
a model lookup, a token count, the list of served models). A check that cannot be made
(provider unreachable, busy) is a notice, not a failure: the service starts, and turns
tell users the model is busy until it answers.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from typing import Protocol, TypedDict

from pydantic import SecretStr

from bot.config.settings import Settings, require
from bot.core.errors import ConfigError, ModelError, ModelMisconfigured
from bot.core.ports import ModelClient
from bot.model.echo import EchoModelClient
from bot.model.errors import CredentialsRefused, ModelNotFound
from bot.model.pricing import Price, Pricing

log = logging.getLogger(__name__)

CREDENTIALS = {
    "anthropic": "ANTHROPIC_API_KEY (or VEILBOT_ANTHROPIC_API_KEY)",
    "bedrock": "VEILBOT_BEDROCK_API_KEY, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
    "(with AWS_SESSION_TOKEN for temporary keys), or AWS_PROFILE",
    "vertex": "VEILBOT_VERTEX_CREDENTIALS_FILE, VEILBOT_VERTEX_ACCESS_TOKEN, or Application "
    "Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, the metadata server)",
    "openai": "VEILBOT_OPENAI_API_KEY",
}
"""The variables that carry each provider's credentials, for error messages."""
WHERE = {
    "anthropic": "VEILBOT_MODEL",
    "bedrock": "VEILBOT_MODEL and VEILBOT_BEDROCK_REGION",
    "vertex": "VEILBOT_MODEL, VEILBOT_VERTEX_REGION and VEILBOT_VERTEX_PROJECT_ID",
    "openai": "VEILBOT_MODEL and VEILBOT_OPENAI_BASE_URL",
}
"""The variables that say where the model is, for 'not found' errors."""
_EXTRAS = {"bedrock": "boto3", "vertex": "google.auth", "openai": "openai"}
_CHECK_SECONDS = 15.0


class Verifiable(Protocol):
    """A client that can check its settings with a free call."""

    async def verify(self) -> None:
        """Raise ``ModelError`` when the check fails."""
        ...


def _price(settings: Settings) -> Price | None:
    given = {
        "VEILBOT_MODEL_PRICE_INPUT": settings.model_price_input,
        "VEILBOT_MODEL_PRICE_OUTPUT": settings.model_price_output,
    }
    missing = [name for name, value in given.items() if value is None]
    if len(missing) == 1:
        raise ConfigError(f"{missing[0]} is not set (a configured price needs both)")
    if missing:
        return None
    return Price(settings.model_price_input or 0.0, settings.model_price_output or 0.0)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing
        return False


def _needs_extra(provider: str) -> None:
    if not _installed(_EXTRAS[provider]):
        raise ConfigError(
            f"VEILBOT_MODEL_PROVIDER={provider} needs the {provider} extra: "
            f"pip install 'veilbot[{provider}]'"
        )


def build_model(settings: Settings) -> ModelClient:
    """The model client ``VEILBOT_MODEL_PROVIDER`` chooses, with its settings checked.

    Raises:
        ConfigError: a credential or setting the provider needs is missing or half-set; the
            message names the variables (never their values).
    """
    provider = settings.provider
    price = _price(settings)
    if provider == "echo":
        return EchoModelClient()
    if provider != "anthropic":
        _needs_extra(provider)
    builder = {
        "anthropic": _anthropic,
        "bedrock": _bedrock,
        "vertex": _vertex,
        "openai": _openai,
    }[provider]
    try:
        return builder(settings, price)
    except ModelMisconfigured as exc:
        raise ConfigError(f"{provider}: {exc}; check {CREDENTIALS[provider]}") from None


class _Common(TypedDict):
    max_tokens: int
    temperature: float | None
    timeout: float
    max_retries: int


def _common(settings: Settings) -> _Common:
    return {
        "max_tokens": settings.max_tokens,
        "temperature": settings.temperature,
        "timeout": settings.model_timeout_seconds,
        "max_retries": settings.model_max_retries,
    }


def _anthropic(settings: Settings, price: Price | None) -> ModelClient:
    from bot.model.claude import AnthropicModelClient

    key = settings.anthropic_api_key
    if key is None:
        raise ConfigError(f"VEILBOT_MODEL_PROVIDER=anthropic needs {CREDENTIALS['anthropic']}")
    return AnthropicModelClient(
        key.get_secret_value(),
        model=settings.model_name or "",
        base_url=settings.anthropic_base_url,
        pricing=Pricing("anthropic", configured=price),
        **_common(settings),
    )


def _bedrock(settings: Settings, price: Price | None) -> ModelClient:
    from bot.model.bedrock import BedrockModelClient

    region = require(settings.bedrock_region, "VEILBOT_BEDROCK_REGION (or AWS_REGION)")
    key_id, secret = settings.aws_access_key_id, settings.aws_secret_access_key
    if (key_id is None) != (secret is None):
        missing = "AWS_SECRET_ACCESS_KEY" if secret is None else "AWS_ACCESS_KEY_ID"
        raise ConfigError(f"{missing} is not set (static AWS credentials need both keys)")
    if settings.bedrock_api_key is not None and (key_id or settings.aws_profile):
        raise ConfigError(
            "set either VEILBOT_BEDROCK_API_KEY or AWS credentials (AWS_ACCESS_KEY_ID, "
            "AWS_PROFILE), not both"
        )
    return BedrockModelClient(
        region=region,
        model=settings.model_name or "",
        api_key=_secret(settings.bedrock_api_key),
        access_key=key_id,
        secret_key=_secret(secret),
        session_token=_secret(settings.aws_session_token),
        profile=settings.aws_profile,
        base_url=settings.bedrock_base_url,
        pricing=Pricing("bedrock", configured=price),
        **_common(settings),
    )


def _vertex(settings: Settings, price: Price | None) -> ModelClient:
    from bot.model.vertex import VertexModelClient

    project = require(settings.vertex_project_id, "VEILBOT_VERTEX_PROJECT_ID")
    key_file = settings.vertex_credentials_file
    if key_file is not None and not key_file.is_file():
        raise ConfigError("VEILBOT_VERTEX_CREDENTIALS_FILE names no file")
    return VertexModelClient(
        project_id=project,
        region=settings.vertex_region,
        model=settings.model_name or "",
        access_token=_secret(settings.vertex_access_token),
        credentials_file=key_file,
        base_url=settings.vertex_base_url,
        pricing=Pricing("vertex", region=settings.vertex_region, configured=price),
        **_common(settings),
    )


def _openai(settings: Settings, price: Price | None) -> ModelClient:
    from bot.model.openai_compat import OpenAIModelClient

    base_url = require(settings.openai_base_url, "VEILBOT_OPENAI_BASE_URL")
    model = require(settings.model_name, "VEILBOT_MODEL (the name the server knows the model by)")
    return OpenAIModelClient(
        base_url=base_url,
        model=model,
        api_key=_secret(settings.openai_api_key),
        pricing=Pricing("openai", configured=price),
        images=settings.openai_images,
        **_common(settings),
    )


async def check_model(model: ModelClient, settings: Settings) -> list[str]:
    """Check credentials and model with one free call; return notices for the operator.

    Raises:
        ConfigError: the provider refused the credentials, or does not know the model,
            project or region; the message names the variables to fix.
    """
    verify = getattr(model, "verify", None)
    if verify is None or not settings.model_check_at_start:
        return []
    provider = settings.provider
    seconds = min(settings.model_timeout_seconds, _CHECK_SECONDS)
    try:
        await asyncio.wait_for(verify(), seconds)
    except CredentialsRefused as exc:
        raise ConfigError(f"{exc}; check {CREDENTIALS[provider]}") from None
    except ModelNotFound as exc:
        raise ConfigError(f"{exc}; check {WHERE[provider]}") from None
    except ModelMisconfigured as exc:
        raise ConfigError(
            f"{exc}: the credentials work but may not use this model; check their "
            f"permissions and {WHERE[provider]}"
        ) from None
    except (ModelError, TimeoutError) as exc:
        reason = str(exc) or "no answer in time"
        log.warning("model check at start not made provider=%s reason=%s", provider, reason)
        return [f"Could not check the {provider} model at start ({reason}); starting anyway."]
    log.info("model check at start passed provider=%s model=%s", provider, model.model)
    return []
