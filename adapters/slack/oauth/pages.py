"""The page an installer sees after Slack sends them back: installed, or why not.

It shows no token, code or state, only whether the install worked, the failure's short reason
(``access_denied``, ``invalid_state``...), and a link to try again. The one-time state cookie
is deleted either way.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from slack_bolt.oauth.async_callback_options import (
    AsyncCallbackOptions,
    AsyncFailureArgs,
    AsyncSuccessArgs,
)
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.response import BoltResponse

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>veilbot: {title}</title></head>
<body><h1>{title}</h1><p>{text}</p></body></html>
"""

INSTALLED = "veilbot is installed"
NOT_INSTALLED = "veilbot was not installed"


def _page(status: int, title: str, text: str, settings: AsyncOAuthSettings) -> BoltResponse:
    body = _PAGE.format(title=html.escape(title), text=text)
    cookie = settings.state_utils.build_set_cookie_for_deletion()
    headers: dict[str, str | Sequence[str]] = {
        "Content-Type": "text/html; charset=utf-8",
        "Set-Cookie": cookie,
    }
    return BoltResponse(status=status, body=body, headers=headers)


async def _success(args: AsyncSuccessArgs) -> BoltResponse:
    text = (
        "You can close this page. In Slack, invite veilbot to a channel and mention it, "
        "or write to it directly."
    )
    return _page(200, INSTALLED, text, args.settings)


async def _failure(args: AsyncFailureArgs) -> BoltResponse:
    install = html.escape(args.settings.install_path, quote=True)
    text = (
        f"Slack said: <code>{html.escape(args.reason)}</code>. "
        f'<a href="{install}">Start the install again</a>.'
    )
    status = args.suggested_status_code
    return _page(status, NOT_INSTALLED, text, args.settings)


def landing_pages() -> AsyncCallbackOptions:
    """The callback options of bolt's flow, with veilbot's success and failure pages."""
    return AsyncCallbackOptions(success=_success, failure=_failure)
