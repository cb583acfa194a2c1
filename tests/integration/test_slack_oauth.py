"""Slack OAuth installs through slack-bolt's real ``AsyncOAuthFlow`` against the fake Slack.

Installations land sealed in the audit database (SQLite and PostgreSQL), install state in Redis;
each workspace's events are authorised with its own token; rotation refreshes expired tokens;
deleting a team removes its token; no token is readable in clear in SQL or Redis.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.oauth.flow import oauth_settings
from adapters.slack.oauth.installations import SealedInstallationStore
from adapters.slack.oauth.state import SharedOAuthStateStore
from adapters.slack.oauth.uninstall import register_uninstall
from bot.audit.installations import SqlInstallationRows
from bot.audit.schema import slack_installations
from bot.audit.store import SqlAuditStore
from bot.core.keys import KeySpace
from bot.state.once import RedisOneTimeTokens
from bot.stores import erase_workspace
from guardrails.vault.keys import derive_install_key
from guardrails.vault.sealing import AesGcmSealer
from tests.fakes.slack_server import FakeSlack

SECRET = "oauth-test-signing-secret"
VAULT_KEY = bytes(range(32))


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as slack:
        yield slack


@pytest.fixture
async def installs(audit_store: SqlAuditStore) -> SealedInstallationStore:
    sealer = AesGcmSealer(derive_install_key(VAULT_KEY))
    return SealedInstallationStore(SqlInstallationRows(audit_store.engine), sealer)


def state_store_on(redis: aioredis.Redis, prefix: str) -> SharedOAuthStateStore:
    return SharedOAuthStateStore(RedisOneTimeTokens(redis, prefix))


def bolt_app(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    states: SharedOAuthStateStore,
    rotation: bool,
) -> AsyncApp:
    client = AsyncWebClient(base_url=fake.api_url)
    settings = oauth_settings(
        client_id="111.222",
        client_secret="oauth-client-secret",
        scopes=["app_mentions:read", "chat:write"],
        redirect_uri="https://veilbot.example/slack/oauth_redirect",
        installations=installs,
        states=states,
        client=client,
        token_rotation_expiration_minutes=13 * 60 if rotation else 120,
    )
    app = AsyncApp(
        signing_secret=SECRET,
        oauth_settings=settings,
        process_before_response=True,  # the listener has run when dispatch returns
        client=client,
    )
    return app


async def install(app: AsyncApp, fake: FakeSlack, team: str | None, **grant: Any) -> int:
    """Open /slack/install, follow Slack's redirect back with a granted code: the status."""
    flow = app.oauth_flow
    assert flow is not None
    started = await flow.handle_installation(AsyncBoltRequest(body="", query="", headers={}))
    location = started.headers.get("location", [""])[0] or _link(started.body)
    state = parse_qs(urlparse(location).query)["state"][0]
    cookie = SimpleCookie(started.headers["set-cookie"][0])
    code = fake.grant(team, **grant)
    query = f"code={code}&state={state}"
    headers = {"cookie": [f"{k}={v.value}" for k, v in cookie.items()]}
    done = await flow.handle_callback(AsyncBoltRequest(body="", query=query, headers=headers))
    return done.status


def _link(body: str) -> str:
    start = body.index("https://slack.com/oauth/v2/authorize")
    return body[start : body.index('"', start)].replace("&amp;", "&")


def mention(team: str, channel: str, ts: str) -> tuple[str, dict[str, list[str]]]:
    return signed(
        {
            "type": "event_callback",
            "team_id": team,
            "api_app_id": "A0VEIL",
            "event_id": f"Ev{secrets.token_hex(4)}",
            "authorizations": [{"team_id": team, "is_bot": True, "enterprise_id": None}],
            "event": {
                "type": "app_mention",
                "user": "U1",
                "text": "<@UBOTX> hello",
                "channel": channel,
                "ts": ts,
                "team": team,
            },
        }
    )


def signed(payload: dict[str, Any]) -> tuple[str, dict[str, list[str]]]:
    body = json.dumps(payload)
    stamp = str(int(time.time()))
    sig = SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body)
    headers = {
        "content-type": ["application/json"],
        "x-slack-request-timestamp": [stamp],
        "x-slack-signature": [sig],
    }
    return body, headers


async def test_two_workspaces_install_and_answer_with_their_own_tokens(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    state_store = state_store_on(redis_client, redis_prefix)
    app = bolt_app(fake, installs, state_store, rotation=False)
    seen: list[str] = []

    @app.event("app_mention")
    async def reply(event: dict[str, Any], say: Any, context: Any) -> None:
        seen.append(context.team_id)
        await say(text="hi", thread_ts=event["ts"])

    assert await install(app, fake, "TA") == 200
    assert await install(app, fake, "TB") == 200
    assert sorted(await installs.teams()) == [("", "TA"), ("", "TB")]

    for team in ("TA", "TB"):  # same channel and thread ids in both workspaces
        body, headers = mention(team, "C1", "100.1")
        response = await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
        assert response.status == 200
    assert seen == ["TA", "TB"]
    posts = fake.calls_to("chat.postMessage")
    tokens = [c.token for c in fake.calls if c.method == "chat.postMessage"]
    assert len(posts) == 2
    assert [fake.tokens[t].team for t in tokens] == ["TA", "TB"]

    # a state works once, and a forged one is refused
    assert await install(app, fake, "TC") == 200
    flow = app.oauth_flow
    assert flow is not None
    forged = await flow.handle_callback(
        AsyncBoltRequest(body="", query=f"code={fake.grant('TD')}&state=forged", headers={})
    )
    assert forged.status == 400
    assert ("", "TD") not in await installs.teams()


async def test_no_token_in_clear_in_sql_or_redis(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), True)
    assert await install(app, fake, "TA", rotation=True) == 200
    issued = list(fake.tokens) + list(fake.refresh_tokens)
    assert issued
    async with audit_store.engine.connect() as conn:
        rows = (await conn.execute(sa.select(slack_installations))).all()
    dump = repr([tuple(r) for r in rows]).encode()
    for key in [k async for k in redis_client.scan_iter(f"{redis_prefix}:*")]:
        dump += key + (await redis_client.dump(key) or b"")
    for token in issued:
        assert token.encode() not in dump
        assert token not in caplog.text
    found = await installs.async_find_bot(enterprise_id=None, team_id="TA")
    assert found is not None
    assert found.bot_token in fake.tokens


async def test_a_row_copied_to_another_team_does_not_open(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), False)
    await install(app, fake, "TA")
    async with audit_store.engine.begin() as conn:
        sealed = (await conn.execute(sa.select(slack_installations.c.sealed))).scalar_one()
        await conn.execute(
            sa.insert(slack_installations).values(
                enterprise_id="",
                team_id="TEVIL",
                is_enterprise_install=False,
                installed_at=sa.func.now(),
                sealed=sealed,
            )
        )
    with pytest.raises(Exception, match="unreadable"):
        await installs.async_find_bot(enterprise_id=None, team_id="TEVIL")


async def test_token_rotation_refreshes_an_expiring_token(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    # tokens expire in 12 h; rotating 13 h ahead makes every token "about to expire"
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), True)
    assert await install(app, fake, "TA", rotation=True) == 200
    first = await installs.async_find_bot(enterprise_id=None, team_id="TA")
    assert first is not None
    assert first.bot_token

    @app.event("app_mention")
    async def reply(event: dict[str, Any], say: Any) -> None:
        await say(text="hi", thread_ts=event["ts"])

    body, headers = mention("TA", "C1", "100.1")
    assert (await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))).status == 200
    refreshed = await installs.async_find_bot(enterprise_id=None, team_id="TA")
    assert refreshed is not None
    assert refreshed.bot_token != first.bot_token
    assert first.bot_token in fake.dead_tokens
    used = [c.token for c in fake.calls if c.method == "chat.postMessage"]
    assert used == [refreshed.bot_token]


async def test_uninstall_deletes_the_team_token_and_no_other(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), False)
    await install(app, fake, "TA")
    await install(app, fake, "TB")
    await installs.async_delete_all(enterprise_id=None, team_id="TA")
    assert await installs.teams() == [("", "TB")]
    assert await installs.async_find_bot(enterprise_id=None, team_id="TA") is None


async def test_enterprise_grid_org_wide_install_serves_its_workspaces(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), False)
    assert await install(app, fake, None, enterprise="E1") == 200
    assert await installs.teams() == [("E1", "")]
    org = await installs.async_find_bot(
        enterprise_id="E1", team_id=None, is_enterprise_install=True
    )
    workspace = await installs.async_find_bot(enterprise_id="E1", team_id="T9")
    assert org is not None
    assert workspace is not None
    assert org.bot_token == workspace.bot_token
    assert await installs.async_find_bot(enterprise_id="E2", team_id="T9") is None


async def test_app_uninstalled_erases_the_team_tokens_and_redis_keys_only(
    fake: FakeSlack,
    installs: SealedInstallationStore,
    redis_client: aioredis.Redis,
    redis_prefix: str,
    audit_store: SqlAuditStore,
) -> None:
    keys = KeySpace(prefix=redis_prefix)
    app = bolt_app(fake, installs, state_store_on(redis_client, redis_prefix), False)
    rows = SqlInstallationRows(audit_store.engine)

    async def erase(enterprise: str | None, team: str) -> int:
        return await erase_workspace(
            redis_client,
            keys,
            rows,
            audit_store,
            enterprise_id=enterprise,
            team_id=team,
            actor="slack:uninstall",
        )

    register_uninstall(app, erase)
    await install(app, fake, "TA")
    await install(app, fake, "TB")
    token_a = next(t for t, g in fake.tokens.items() if g.team == "TA")
    for team in ("TA", "TB"):  # same channel and thread in both workspaces
        tid = f"slack:{team}:C1:100.1"
        await redis_client.rpush(keys.thread(tid, "history"), b"x")
        await redis_client.hset(keys.thread(tid, "vault"), "k", "v")
        await redis_client.set(keys.thread(tid, "lock"), b"1")
        await redis_client.set(keys.rate("slack", team, "turns", "U1"), 1)

    await AsyncWebClient(token=token_a, base_url=fake.api_url).apps_uninstall(
        client_id="111.222", client_secret="oauth-client-secret"
    )
    body, headers = signed(
        {
            "type": "event_callback",
            "team_id": "TA",
            "api_app_id": "A0VEIL",
            "event_id": "EvUninstall",
            "event": {"type": "app_uninstalled"},
        }
    )
    assert (await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))).status == 200

    left = [k.decode() async for k in redis_client.scan_iter(f"{redis_prefix}:*")]
    assert not [k for k in left if "TA" in k]
    assert len([k for k in left if "TB" in k]) == 4
    assert await installs.teams() == [("", "TB")]
    async with audit_store.engine.connect() as conn:
        rows = (await conn.execute(sa.select(slack_installations.c.sealed))).scalars().all()
    assert token_a.encode() not in b"".join(rows)
    logged = await audit_store.recent_actions()
    assert [(a.action, a.target, a.outcome["redis_keys"]) for a in logged] == [
        ("erase_workspace", "slack:TA", 4)
    ]
