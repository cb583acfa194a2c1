"""slack-bolt's OAuth settings for multi-workspace mode, on veilbot's own stores."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.oauth.installations import SealedInstallationStore
from adapters.slack.oauth.pages import landing_pages
from adapters.slack.oauth.state import SharedOAuthStateStore
from adapters.slack.oauth.teams import OrgMembers
from adapters.slack.oauth.uninstall import EraseWorkspace

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"


@dataclass(frozen=True)
class SlackOAuth:
    """What the Slack adapter needs for OAuth mode, built by the composition root.

    Attributes:
        installations: the sealed installation store (audit database).
        states: install states, shared by every replica (Redis).
        erase: erases a workspace at once on uninstall (``bot.stores.erase_workspace``).
        members: which workspaces each org-wide install served (Redis), for its erasure.
    """

    installations: SealedInstallationStore
    states: SharedOAuthStateStore
    erase: EraseWorkspace
    members: OrgMembers


def quiet_sdk_loggers() -> None:
    """At DEBUG slack-sdk logs response bodies: ``oauth.v2.access`` answers hold tokens."""
    for name in ("slack_sdk", "slack_bolt"):
        sdk_logger = logging.getLogger(name)
        if sdk_logger.getEffectiveLevel() < logging.INFO:
            sdk_logger.setLevel(logging.INFO)


def oauth_settings(
    *,
    client_id: str,
    client_secret: str,
    scopes: Sequence[str],
    redirect_uri: str,
    installations: SealedInstallationStore,
    states: SharedOAuthStateStore,
    client: AsyncWebClient,
    token_rotation_expiration_minutes: int = 120,
) -> AsyncOAuthSettings:
    """OAuth settings: installs at ``/slack/install``, Slack redirects to ``redirect_uri``.

    ``client`` (the adapter's, with its base URL and retries) also refreshes rotating tokens:
    bolt's default authorizer would build its own client for ``slack.com``. Quiets the SDK
    loggers first, so no token reaches a log even at DEBUG. Pass the result to ``AsyncApp``
    as ``oauth_settings`` only (not ``installation_store`` too: that replaces the authorizer).
    """
    quiet_sdk_loggers()
    settings = AsyncOAuthSettings(
        client_id=client_id,
        client_secret=client_secret,
        scopes=list(scopes),
        redirect_uri=redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        installation_store=installations,
        state_store=states,
        token_rotation_expiration_minutes=token_rotation_expiration_minutes,
        state_expiration_seconds=states.expiration_seconds,
        callback_options=landing_pages(),
    )
    settings.authorize = AsyncInstallationStoreAuthorize(
        logger=logging.getLogger("slack_bolt.veilbot"),
        client_id=client_id,
        client_secret=client_secret,
        token_rotation_expiration_minutes=token_rotation_expiration_minutes,
        installation_store=installations,
        client=client,
        # keyed by token: a rotated or deleted token is looked up in the store first, so the
        # cache saves the auth.test per event without outliving an installation
        cache_enabled=True,
    )
    return settings
