"""The admin console's settings page: every configured scope, resolved, with its sources.

The real console on aiohttp, sessions in real Redis, the audit log in PostgreSQL; the scopes
come from a config file on disk and change with a reload as the service's do.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.auth import AdminTokens, hash_token
from bot.admin.console.routes import add_console_routes
from bot.admin.sessions import ConsoleSessions
from bot.config.scopes import build_scopes
from bot.config.settings import load_settings
from bot.core.scopes import Scopes
from bot.state.sessions import RedisSessionBackend
from bot.stores import build_stores
from tests.integration.test_admin_console import ADMIN, TTL, sign_in

CONFIG = """\
max_tokens = 900

[scopes."slack:T1"]
system_prompt = "Answer in French."
follow_ups = false

[scopes."slack:T1:C2"]
provider = "echo"
streaming = false
"""


def table(page: str, scope: str) -> dict[str, tuple[str, str]]:
    """The rows of one scope's table: setting -> (value, from)."""
    body = page.split(f'id="scope-{scope}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", body)
    return {name: (html.unescape(value), source) for name, value, source in rows}


@pytest.fixture
async def console(
    tmp_path: Path, fresh_db_url: str, redis_url: str, redis_prefix: str
) -> AsyncIterator[tuple[TestClient, Path, list[Scopes]]]:
    path = tmp_path / "veilbot.toml"
    path.write_text(CONFIG, encoding="utf-8")

    settings = load_settings(
        config_file=path,
        _env_file=None,
        data_dir=tmp_path / "data",
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=fresh_db_url,
    )
    running = [build_scopes(settings)]
    current: Callable[[], Scopes] = lambda: running[0]  # noqa: E731  (what a reload swaps)
    async with build_stores(settings) as stores:
        sessions = ConsoleSessions(RedisSessionBackend(stores.redis, redis_prefix), TTL)
        app = web.Application()
        add_console_routes(
            app,
            store=stores.audit,
            tokens=AdminTokens.parse(hash_token(ADMIN)),
            sessions=sessions,
            eraser=stores.eraser,
            scopes=current,
        )
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            yield client, path, running


async def test_the_settings_page_lists_each_scope_with_where_each_value_comes_from(
    console: tuple[TestClient, Path, list[Scopes]],
) -> None:
    client, _, _ = console
    refused = await client.get("/admin/ui/settings", allow_redirects=False)
    assert refused.status == 303  # signed-in admins only
    await sign_in(client)
    page = await (await client.get("/admin/ui/settings")).text()

    everywhere = table(page, "everywhere")
    assert everywhere["max_tokens"] == ("900", "service")
    assert everywhere["follow_ups"] == ("on", "service")
    workspace = table(page, "slack:T1")
    assert workspace["follow_ups"] == ("off", "slack:T1")
    assert workspace["system"][1] == "slack:T1"
    assert "Answer in French." in workspace["system"][0]
    channel = table(page, "slack:T1:C2")
    assert channel["provider"] == ("echo", "slack:T1:C2")
    assert channel["streaming"] == ("off", "slack:T1:C2")
    assert channel["follow_ups"] == ("off", "slack:T1")  # inherited, and shown as such
    assert channel["max_tokens"] == ("900", "service")


async def test_the_page_shows_the_scopes_a_reload_brought(
    console: tuple[TestClient, Path, list[Scopes]],
) -> None:
    client, path, running = console
    await sign_in(client)
    path.write_text(CONFIG.replace("follow_ups = false", "follow_ups = true"), encoding="utf-8")
    running[0] = build_scopes(load_settings(config_file=path, _env_file=None))
    page = await (await client.get("/admin/ui/settings")).text()
    assert table(page, "slack:T1:C2")["follow_ups"] == ("on", "slack:T1")
