"""OAuth mode's part of the Slack adapter (install routes, team tokens, uninstall erasure).

bolt's OAuth settings, ``/slack/install`` and ``/slack/oauth_redirect``, the team's token for
bolt's listeners, and the uninstall listeners. Kept beside ``handler.py`` rather than in it:
the adapter asks ``OAuthMode`` once for bolt's settings and to attach itself, and otherwise
only reads ``teams`` for queued turns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.oauth.flow import INSTALL_PATH, REDIRECT_PATH, SlackOAuth, oauth_settings
from adapters.slack.oauth.teams import TeamTokens, use_token
from adapters.slack.oauth.uninstall import register_uninstall
from bot.config.settings import Settings, require
from bot.core.errors import ConfigError
from bot.http_server import HttpServer


def bot_token(settings: Settings, oauth: SlackOAuth | None) -> str | None:
    """The one bot token, or ``None`` in OAuth mode (each workspace's from the store).

    Raises:
        ConfigError: the token is missing, or OAuth mode lacks its stores or asks for Socket
            Mode (installs and uninstalls reach the service over HTTP).
    """
    if not settings.slack_oauth:
        return require(settings.slack_bot_token, "VEILBOT_SLACK_BOT_TOKEN")
    if settings.slack_mode != "http":
        raise ConfigError("VEILBOT_SLACK_CLIENT_ID (OAuth mode) needs VEILBOT_SLACK_MODE=http")
    if oauth is None:
        raise ConfigError("Slack OAuth mode needs the installation store (bot.service builds it)")
    return None


class OAuthMode:
    """Serves installs in many workspaces for one adapter.

    Args:
        settings: ``VEILBOT_SLACK_CLIENT_ID`` and the other OAuth settings.
        oauth: the installation and state stores and the erasure, from the root.
        client: the adapter's ``TeamWebClient`` (base URL, retries): it also exchanges codes
            and refreshes rotating tokens.

    Raises:
        ConfigError: an OAuth setting is missing (the error names it).
    """

    def __init__(self, settings: Settings, oauth: SlackOAuth, client: AsyncWebClient) -> None:
        client_id = require(settings.slack_client_id, "VEILBOT_SLACK_CLIENT_ID")
        secret = require(settings.slack_client_secret, "VEILBOT_SLACK_CLIENT_SECRET")
        redirect = require(settings.slack_oauth_redirect_url, "VEILBOT_SLACK_OAUTH_REDIRECT_URL")
        minutes = settings.slack_token_rotation_minutes
        rotator = AsyncTokenRotator(client_id=client_id, client_secret=secret, client=client)
        self.teams = TeamTokens(oauth.installations, rotator, minutes, oauth.members)
        """Each workspace's bot, read when a queued turn runs."""
        self.settings = oauth_settings(
            client_id=client_id,
            client_secret=secret,
            scopes=settings.slack_oauth_scopes,
            redirect_uri=redirect,
            installations=oauth.installations,
            states=oauth.states,
            client=client,
            token_rotation_expiration_minutes=minutes,
        )
        """bolt's ``oauth_settings`` for the adapter's ``AsyncApp``."""
        self._erase = oauth.erase
        self._app: AsyncApp | None = None

    def attach(self, app: AsyncApp, http: HttpServer) -> None:
        """Uninstall erasure, the team's token for listeners, the install routes on ``http``."""
        self._app = app
        register_uninstall(app, self._erase)
        app.use(self._team_token)
        http.app.router.add_get(INSTALL_PATH, self._on_oauth)
        http.app.router.add_get(REDIRECT_PATH, self._on_oauth)

    async def _team_token(
        self, context: AsyncBoltContext, next_: Callable[[], Awaitable[None]]
    ) -> None:
        """Global middleware: the listeners' calls use the token bolt authorized.

        A workspace served under an org-wide install is remembered for the org's erasure.
        """
        use_token(context.bot_token)
        org, team = context.enterprise_id, context.team_id
        if context.is_enterprise_install and org and team and context.bot_token:
            await self.teams.members.add(org, team)
        await next_()

    async def _on_oauth(self, request: web.Request) -> web.Response:
        """``/slack/install`` (the link to Slack) and ``/slack/oauth_redirect`` (the landing)."""
        flow = self._app.oauth_flow if self._app is not None else None
        if flow is None:
            return web.Response(status=404)
        bolt_request = await to_bolt_request(request)
        if request.path == INSTALL_PATH:
            answer = await flow.handle_installation(bolt_request)
        else:
            answer = await flow.handle_callback(bolt_request)
        return await to_aiohttp_response(answer)
