"""Admin tokens limited to workspaces: one confinement for the admin API and the console.

A ``VEILBOT_ADMIN_TOKENS`` entry ``HASH[:scopes]@T1+T2`` sees those workspaces only. The
guard of each surface (the API's bearer check, the console's session check) calls ``limit``
once per request with the token's workspaces; every handler then reads through this module:

- ``confined``: a run filter kept to the workspaces (every list, stats, chart and export);
  a filter that names another workspace raises ``WorkspaceForbidden`` (403);
- ``sees``: whether a row, thread, user, budget or scope of a workspace may be shown or
  acted on; one of another workspace is answered as if it did not exist (404);
- ``unconfined``: whether the token sees everything, for what cannot be confined (the admin
  action log, the service-wide settings), which a limited token is not shown.

The workspace of an id (``slack:TEAM:CHANNEL:ts``, ``slack:TEAM:USER``, ``slack:TEAM``,
``discord:GUILD:CHANNEL``) is its second part (``workspace_of``).
"""

from __future__ import annotations

import dataclasses

from aiohttp import web

from bot.audit.types import FilterRejected, RunFilter


@dataclasses.dataclass(frozen=True)
class Limit:
    """The workspaces the request's token is limited to (``None``: all)."""

    workspaces: frozenset[str] | None


_LIMIT = web.RequestKey("veilbot_workspaces", Limit)


class WorkspaceForbidden(FilterRejected):
    """The filter names a workspace the token may not see."""


def limit(request: web.Request, workspaces: frozenset[str] | None) -> None:
    """Confine the rest of ``request`` to ``workspaces`` (the guard calls this once)."""
    request[_LIMIT] = Limit(workspaces)


def allowed(request: web.Request) -> frozenset[str] | None:
    """The workspaces the request may see; ``None``: every one."""
    found = request.get(_LIMIT)
    return None if found is None else found.workspaces


def unconfined(request: web.Request) -> bool:
    """Whether the request's token sees every workspace."""
    return allowed(request) is None


def confine(run_filter: RunFilter, workspaces: frozenset[str] | None) -> RunFilter:
    """The filter limited to ``workspaces`` (``None``: unchanged).

    Raises:
        WorkspaceForbidden: it names a workspace outside them.
    """
    if workspaces is None:
        return run_filter
    if run_filter.workspace is not None and run_filter.workspace not in workspaces:
        raise WorkspaceForbidden("this token may not read that workspace")
    return dataclasses.replace(run_filter, workspaces=workspaces)


def confined(request: web.Request, run_filter: RunFilter) -> RunFilter:
    """``confine`` with the request's workspaces."""
    return confine(run_filter, allowed(request))


def sees(request: web.Request, workspace: str | None) -> bool:
    """Whether the request may see (or act on) what belongs to ``workspace``.

    ``None`` (a Discord user, a console thread: no workspace) is seen by unlimited tokens only.
    """
    workspaces = allowed(request)
    return workspaces is None or (workspace is not None and workspace in workspaces)


def workspace_of(ident: str) -> str | None:
    """The workspace of a ``platform:workspace[:…]`` id (thread, budget, scope), if it has one."""
    parts = ident.split(":")
    return parts[1] if len(parts) >= 2 and parts[0] in ("slack", "discord") else None
