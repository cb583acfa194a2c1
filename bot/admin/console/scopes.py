"""``/admin/ui/settings``: the effective settings of every configured scope, and their sources.

Each workspace or channel named in ``[scopes."…"]`` is listed with what it resolves to (its
own values and those it inherits), each value with the scope it comes from; ``everywhere`` is
the service's own. The values are the running ones (after the last config reload). A token
limited to workspaces sees the scopes of those workspaces (and their channels) only, each with
what it inherits.
"""

from __future__ import annotations

from aiohttp import web

from bot.admin.confine import sees, unconfined, workspace_of
from bot.admin.console.web import CONSOLE, Ctx, render
from bot.core.scopes import SettingRow, effective_settings

EVERYWHERE = "everywhere"


async def settings_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """The configured scopes, most general first, with their resolved values."""
    current = request.app[CONSOLE].scopes
    sections: list[tuple[str, list[SettingRow]]] = []
    if current is not None:
        scopes = current()
        if unconfined(request):
            sections.append((EVERYWHERE, effective_settings(scopes.top, scopes.defaults)))
        for name in sorted(scopes.by_id, key=lambda n: (n.count(":"), n)):
            if sees(request, workspace_of(name)):
                sections.append((name, effective_settings(scopes.by_id[name], scopes.defaults)))
    return render(
        request, "settings.html", session=ctx.session, sections=sections, live=current is not None
    )
