"""Slack OAuth mode served end to end: ``veilbot run``'s own HTTP server, real slack-bolt.

Installs go through ``/slack/install`` and ``/slack/oauth_redirect`` (bolt's ``AsyncOAuthFlow``,
``oauth.v2.access`` on the fake Slack); events of two workspaces that use the same channel and
thread ids are answered each with its own token and vault, queued or not; a rotating token is
refreshed when a turn needs it; ``app_uninstalled`` erases the workspace; no token is in clear in
the logs, Redis or SQL.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp
import pytest
import sqlalchemy as sa

from bot.app import App
from bot.audit.schema import metadata
from bot.core.errors import StoreError
from bot.service import Service, running
from tests.e2e.conftest import MakeApp
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_oauth import OAUTH_BOT_USER_ID
from tests.fakes.slack_payloads import SIGNING_SECRET, envelope, new_ts, signed_headers, user_event
from tests.fakes.slack_server import FakeSlack

CLIENT_SECRET = "oauth-client-secret-e2e"
TEAM_A, TEAM_B = "TAAAA", "TBBBB"


def oauth_settings(slack: FakeSlack, **extra: Any) -> dict[str, Any]:
    return {
        "slack_client_id": "111.222",
        "slack_client_secret": CLIENT_SECRET,
        "slack_signing_secret": SIGNING_SECRET,
        "slack_oauth_redirect_url": "https://veilbot.example/slack/oauth_redirect",
        "slack_api_url": slack.api_url,
        "slack_http_port": 0,
        "slack_streaming": "update",
        "slack_update_interval_seconds": 0.0,
        **extra,
    }


@asynccontextmanager
async def serving(app: App) -> AsyncIterator[tuple[Service, aiohttp.ClientSession]]:
    async with running(app, ["slack"]) as service, aiohttp.ClientSession() as session:
        yield service, session


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    for _ in range(1500):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def install(
    service: Service, session: aiohttp.ClientSession, slack: FakeSlack, team: str, **grant: Any
) -> tuple[int, str]:
    """A person opens the install link, approves in Slack, and lands back: status and page."""
    base = service.http.url
    async with session.get(f"{base}/slack/install", allow_redirects=False) as started:
        page = await started.text()
        cookie = started.headers["Set-Cookie"].split(";", 1)[0]
    link = re.search(r'href="(https://slack\.com/oauth/v2/authorize\?[^"]+)"', page)
    assert link is not None, "the install page links to Slack"
    state = parse_qs(urlparse(link.group(1).replace("&amp;", "&")).query)["state"][0]
    code = slack.grant(team, **grant)
    url = f"{base}/slack/oauth_redirect?code={code}&state={state}"
    async with session.get(url, headers={"Cookie": cookie}) as landed:
        return landed.status, await landed.text()


async def send(service: Service, session: aiohttp.ClientSession, payload: dict[str, Any]) -> int:
    body = json.dumps(payload)
    url = f"{service.http.url}/slack/events"
    async with session.post(url, data=body.encode(), headers=signed_headers(body)) as r:
        return r.status


def mention(team: str, text: str, *, ts: str, channel: str = "C1") -> dict[str, Any]:
    event = user_event("app_mention", f"<@{OAUTH_BOT_USER_ID}> {text}", team=team, ts=ts)
    event["channel"] = channel
    payload = envelope(event, team=team)
    payload["authorizations"][0]["user_id"] = OAUTH_BOT_USER_ID
    return payload


def posts_by_team(slack: FakeSlack) -> dict[str, list[str]]:
    """Texts the bot posted or updated, by the team whose token made the call."""
    out: dict[str, list[str]] = {}
    for call in slack.calls:
        if call.method in ("chat.postMessage", "chat.update"):
            owner = slack.tokens.get(call.token)
            team = owner.team if owner is not None else f"?{call.token[:8]}"
            out.setdefault(str(team), []).append(str(call.params.get("text") or ""))
    return out


async def redis_dump(app: App) -> str:
    """Every key and value under the test's prefix, as text."""
    parts: list[str] = []
    async for key in app.redis.scan_iter(match=f"{app.settings.redis_prefix}:*", count=500):
        kind = (await app.redis.type(key)).decode()
        if kind == "string":
            value: Any = await app.redis.get(key)
        elif kind == "hash":
            value = await app.redis.hgetall(key)
        elif kind == "list":
            value = await app.redis.lrange(key, 0, -1)
        elif kind == "set":
            value = await app.redis.smembers(key)
        elif kind == "zset":
            value = await app.redis.zrange(key, 0, -1)
        else:
            value = await app.redis.xrange(key)
        parts.append(f"{key!r} {value!r}")
    return "\n".join(parts)


async def sql_dump(app: App) -> str:
    parts: list[str] = []
    async with app.audit.engine.connect() as conn:
        for table in metadata.sorted_tables:
            rows = (await conn.execute(sa.select(table))).all()
            parts.extend(f"{table.name} {tuple(row)!r}" for row in rows)
    return "\n".join(parts)


async def installed(app: App) -> list[str]:
    async with app.audit.engine.connect() as conn:
        rows = await conn.execute(sa.text("SELECT team_id FROM slack_installations"))
        return sorted(r[0] for r in rows)


async def team_keys(app: App, team: str) -> list[bytes]:
    prefix = app.settings.redis_prefix
    found: list[bytes] = []
    for pattern in (f"{prefix}:*slack:{team}:*", f"{prefix}:*rate:slack:{team}*"):
        found += [k async for k in app.redis.scan_iter(match=pattern, count=500)]
    return found


async def test_install_link_and_landing_pages(make_app: MakeApp) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        async with serving(app) as (service, session):
            status, page = await install(service, session, slack, TEAM_A)
            assert status == 200
            assert "veilbot is installed" in page
            assert "xoxb-" not in page
            url = f"{service.http.url}/slack/oauth_redirect?code=whatever&state=forged"
            async with session.get(url) as forged:
                assert forged.status == 400
                page = await forged.text()
            assert "veilbot was not installed" in page
            assert "whatever" not in page
            assert 'href="/slack/install"' in page
            async with session.get(f"{service.http.url}/slack/install") as again:
                assert again.status == 200  # another person can start an install


@pytest.mark.parametrize("queue", [True, False], ids=["queued", "direct"])
async def test_two_workspaces_with_the_same_thread_ids_answer_with_their_own_tokens_and_vaults(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    debug_logs: pytest.LogCaptureFixture,
    queue: bool,
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack), queue_enabled=queue)
        async with serving(app) as (service, session):
            assert (await install(service, session, slack, TEAM_A))[0] == 200
            assert (await install(service, session, slack, TEAM_B))[0] == 200
            ts = new_ts()

            assert await send(service, session, mention(TEAM_B, "I'm Maria Gonzalez.", ts=ts))
            await until(lambda: _posted(slack, TEAM_B), "workspace B's answer")
            fake_anthropic.answer("Hello <PERSON_1>, noted.")
            assert await send(service, session, mention(TEAM_A, "I'm John Smith.", ts=ts)) == 200
            await until(lambda: _posted(slack, TEAM_A), "workspace A's answer")

            posts = posts_by_team(slack)
            assert set(posts) == {TEAM_A, TEAM_B}  # every reply with a live token of its team
            assert any("Hello John Smith" in t for t in posts[TEAM_A])
            assert not any("Maria" in t for t in posts[TEAM_A])
            asked_a = fake_anthropic.requests[-1].body["messages"]
            assert len(asked_a) == 1  # B's turn in the "same" thread is not A's history
            assert "PERSON_1" in json.dumps(asked_a)
            sent = fake_anthropic.all_text_sent()
            assert "Maria" not in sent
            assert "John" not in sent

            secrets = [*slack.tokens, *slack.dead_tokens, *slack.refresh_tokens, CLIENT_SECRET]
            assert len(secrets) >= 3
            logs = "\n".join(r.getMessage() for r in debug_logs.records)
            redis_text, sql_text = await redis_dump(app), await sql_dump(app)
            for where, text in (("logs", logs), ("redis", redis_text), ("sql", sql_text)):
                assert not [s for s in secrets if s in text], f"a token in clear in {where}"
            assert "slack_installations" in sql_text  # the scan saw the sealed rows


async def test_a_shared_file_is_fetched_with_its_own_workspaces_token(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        async with serving(app) as (service, session):
            for team in (TEAM_A, TEAM_B):
                assert (await install(service, session, slack, team))[0] == 200
            for team, who in ((TEAM_A, "Maria Gonzalez"), (TEAM_B, "John Smith")):
                shared = slack.host_file("notes.txt", f"Call {who}.".encode(), team=team)
                payload = mention(team, "what does it say?", ts=new_ts())
                payload["event"]["files"] = [shared]
                assert await send(service, session, payload) == 200
                await until(lambda t=team: _posted(slack, t), f"{team}'s answer")

            owners = [
                slack.tokens[auth.removeprefix("Bearer ")].team for _, auth in slack.downloads
            ]
            assert owners == [TEAM_A, TEAM_B], "each file with its own workspace's token"
            sent = fake_anthropic.all_text_sent()
            assert "Maria" not in sent
            assert "John" not in sent
            assert sent.count('<file name="notes.txt">') == 2


async def _posted(slack: FakeSlack, team: str) -> bool:
    return bool(posts_by_team(slack).get(team))


async def test_a_rotating_token_is_refreshed_when_a_turn_needs_it(make_app: MakeApp) -> None:
    async with FakeSlack() as slack:
        # the fake's tokens live 12 hours: refreshing 12 hours ahead refreshes at every use
        app = await make_app(**oauth_settings(slack), slack_token_rotation_minutes=720)
        async with serving(app) as (service, session):
            assert (await install(service, session, slack, TEAM_A, rotation=True))[0] == 200
            first = next(iter(slack.tokens))
            assert await send(service, session, mention(TEAM_A, "hello", ts=new_ts())) == 200
            await until(lambda: _posted(slack, TEAM_A), "the answer")

            assert first in slack.dead_tokens
            posting = [c.token for c in slack.calls if c.method == "chat.postMessage"]
            assert posting
            assert all(t in slack.tokens for t in posting)  # the refreshed, live token
            assert first not in posting


async def test_two_refreshes_of_one_token_at_once_never_answer_with_a_dead_token(
    make_app: MakeApp,
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack), slack_token_rotation_minutes=720)
        async with serving(app) as (service, session):
            assert (await install(service, session, slack, TEAM_A, rotation=True))[0] == 200
            oauth = service.adapters[0]._oauth  # type: ignore[attr-defined]
            body = mention(TEAM_A, "hello", ts=new_ts())
            held = slack.hold("oauth.v2.access")
            both = [asyncio.create_task(oauth.teams.find(body)) for _ in range(2)]

            async def both_asked() -> bool:
                return len(slack.calls_to("oauth.v2.access")) >= 3  # the install's, then two

            await until(both_asked, "two refreshes of the same refresh token")
            held.set()
            results = await asyncio.gather(*both, return_exceptions=True)

            found = [r for r in results if not isinstance(r, BaseException)]
            assert found, "one refresh won"
            for result in results:  # the loser takes the winner's saved token, or retries later
                assert not isinstance(result, BaseException) or isinstance(result, StoreError)
            assert all(r.bot_token in slack.tokens for r in found)  # never a dead token
            again = await oauth.teams.find(body)
            assert again is not None
            assert again.bot_token in slack.tokens


UNINSTALLS = {
    "app_uninstalled": {"type": "app_uninstalled"},
    "tokens_revoked": {"type": "tokens_revoked", "tokens": {"bot": [OAUTH_BOT_USER_ID]}},
}


@pytest.mark.parametrize("kind", list(UNINSTALLS))
async def test_an_uninstall_erases_the_workspace_and_leaves_the_other(
    make_app: MakeApp, kind: str
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        async with serving(app) as (service, session):
            for team in (TEAM_A, TEAM_B):
                assert (await install(service, session, slack, team))[0] == 200
                ts = new_ts()
                assert await send(service, session, mention(team, "I'm Ann Lee.", ts=ts)) == 200
                await until(lambda team=team: _posted(slack, team), f"{team}'s answer")
            assert await team_keys(app, TEAM_A)
            tokens_a = [t for t, g in slack.tokens.items() if g.team == TEAM_A]

            uninstall = envelope({**UNINSTALLS[kind], "event_ts": new_ts()}, team=TEAM_A)
            assert await send(service, session, uninstall) == 200

            async def erased() -> bool:  # the action log's entry is the erasure's last step
                logged = {a.target for a in await app.audit.recent_actions()}
                return f"slack:{TEAM_A}" in logged and await installed(app) == [TEAM_B]

            try:
                await until(erased, "workspace A erased")
            except AssertionError:
                raise AssertionError(await team_keys(app, TEAM_A)) from None
            assert not await team_keys(app, TEAM_A)
            sql_text = await sql_dump(app)
            assert "erase_workspace" in sql_text
            assert not [t for t in tokens_a if t in sql_text or t in await redis_dump(app)]
            assert await team_keys(app, TEAM_B)  # the other workspace keeps its threads

            before = len(posts_by_team(slack).get(TEAM_A, []))
            await send(service, session, mention(TEAM_A, "still there?", ts=new_ts()))
            assert app.queue is not None
            assert await app.queue.idle(30)  # bolt found no installation: nothing was queued
            assert len(posts_by_team(slack).get(TEAM_A, [])) == before


async def test_tokens_revoked_naming_only_user_tokens_keeps_the_workspace(
    make_app: MakeApp,
) -> None:
    """A person who revokes the user token they granted does not uninstall the app."""
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        async with serving(app) as (service, session):
            for team in (TEAM_A, TEAM_B):
                assert (await install(service, session, slack, team))[0] == 200
            assert await send(service, session, mention(TEAM_A, "I'm Ann Lee.", ts=new_ts())) == 200
            await until(lambda: _posted(slack, TEAM_A), "A's answer")

            users_only = {"type": "tokens_revoked", "tokens": {"oauth": ["U0PERSON"]}}
            revoked = envelope({**users_only, "event_ts": new_ts()}, team=TEAM_A)
            assert await send(service, session, revoked) == 200
            bots = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": [OAUTH_BOT_USER_ID]}}
            removed = envelope({**bots, "event_ts": new_ts()}, team=TEAM_B)
            assert await send(service, session, removed) == 200

            async def b_erased() -> bool:  # begun after A's event was handled
                return f"slack:{TEAM_B}" in {a.target for a in await app.audit.recent_actions()}

            await until(b_erased, "workspace B erased")
            assert await installed(app) == [TEAM_A]
            assert f"slack:{TEAM_A}" not in {a.target for a in await app.audit.recent_actions()}
            assert await team_keys(app, TEAM_A)
            before = len(posts_by_team(slack).get(TEAM_A, []))
            assert await send(service, session, mention(TEAM_A, "still here?", ts=new_ts())) == 200

            async def answered_again() -> bool:
                return len(posts_by_team(slack).get(TEAM_A, [])) > before

            await until(answered_again, "A answered after its user token was revoked")


def grid(payload: dict[str, Any]) -> dict[str, Any]:
    """An event of a workspace served by the org-wide install of ``E0GRID``."""
    payload["enterprise_id"] = "E0GRID"
    payload["authorizations"][0].update(
        enterprise_id="E0GRID", team_id=None, is_enterprise_install=True
    )
    return payload


async def test_an_org_wide_grid_install_answers_its_workspaces_and_its_uninstall_erases_them(
    make_app: MakeApp,
) -> None:
    async with FakeSlack() as slack:
        app = await make_app(**oauth_settings(slack))
        async with serving(app) as (service, session):
            assert (await install(service, session, slack, None, enterprise="E0GRID"))[0] == 200
            [org_token] = list(slack.tokens)
            payload = grid(mention("T0INORG", "I'm Ann Lee, in a Grid workspace", ts=new_ts()))
            assert await send(service, session, payload) == 200

            async def answered() -> bool:
                return any(c.method == "chat.postMessage" for c in slack.calls)

            await until(answered, "the answer")
            posting = {c.token for c in slack.calls if c.method in ("chat.postMessage",)}
            assert posting == {org_token}
            assert await team_keys(app, "T0INORG")
            assert await installed(app) == [""]  # one org-wide row, no team

            uninstall = grid(envelope({"type": "app_uninstalled"}, team="T0INORG"))
            assert await send(service, session, uninstall) == 200

            async def logged() -> bool:  # the org's own erasure comes after its workspaces'
                targets = {a.target for a in await app.audit.recent_actions()}
                return {"slack:E0GRID", "slack:T0INORG"} <= targets  # each in the action log

            await until(logged, "the org and its workspace erased, each in the action log")
            assert not await team_keys(app, "T0INORG")
            assert await installed(app) == []
            assert not [k async for k in app.redis.scan_iter(match="*slack-org*")]
