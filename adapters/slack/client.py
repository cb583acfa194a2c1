"""The Slack Web API client the adapter calls through, and the SDK loggers kept quiet."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.oauth.teams import TeamWebClient
from bot.config.settings import Settings


def quiet_sdk_loggers() -> None:
    """At DEBUG the SDKs log request bodies, i.e. message text: keep them at INFO or above."""
    for name in ("slack_sdk", "slack_bolt"):
        sdk_logger = logging.getLogger(name)
        if sdk_logger.getEffectiveLevel() < logging.INFO:
            sdk_logger.setLevel(logging.INFO)


def web_client(settings: Settings, token: str | None) -> AsyncWebClient:
    """The Web API client: base URL from settings, and retries for 429, 5xx, lost connections.

    With no token (OAuth mode) a ``TeamWebClient``: each call takes the served team's token.
    """
    kwargs: dict[str, Any] = {}
    if settings.slack_api_url:
        kwargs["base_url"] = settings.slack_api_url.rstrip("/") + "/"
    cls = AsyncWebClient if token is not None else TeamWebClient
    return cls(
        token=token,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=4),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
        **kwargs,
    )
