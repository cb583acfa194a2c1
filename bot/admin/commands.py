"""Admin chat commands, platform-independent: admins, exports, and who may erase.

Adapters turn ``/veilbot audit export 7d channel:C123`` (Slack) or ``/audit export …``
(Discord) into ``AdminService.audit_export(requester, args)`` and deliver the ``AdminReply``
privately (Slack: ``files_upload_v2`` in a DM; Discord: an ephemeral reply with the file).
Every attempt is logged with ids only; a refusal says nothing about who the admins are.

Erasing is the one rule ``authorize_erase``: the requester takes part in the conversation (the
adapter asks its platform: Slack, the thread's messages; Discord, the thread's members or the
channel's permissions) or is an admin (``VEILBOT_ADMIN_USERS``, a Discord admin role). Each
decision, granted or refused, goes to the admin action log (ids only) before it takes effect.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from bot.admin.budgets import BudgetAdmin, BudgetRejected
from bot.admin.confine import WorkspaceForbidden, confine
from bot.audit.actions import ActionLog, AdminAction
from bot.audit.export import export_chunks
from bot.audit.types import (
    AuditQueryStore,
    FilterRejected,
    RunFilter,
    UserRef,
    parse_instant,
    parse_user_ref,
)
from bot.core.errors import ConfigError
from bot.core.types import AdminReply

log = logging.getLogger(__name__)


REFUSAL = "Sorry, audit exports are for veilbot admins only. Ask an admin if you need one."
BUDGET_REFUSAL = "Sorry, budgets are for veilbot admins only."
USAGE = (
    "Usage: audit export [since] [thread:ID | channel:ID | user:ID], "
    "e.g. `audit export 7d channel:C123`. `since` is a duration (7d, 12h) or a date (2026-03-01)."
)
_SCOPES = {"thread": "thread_id", "channel": "channel", "user": "user_id"}


class AdminStore(AuditQueryStore, ActionLog, Protocol):
    """The audit log and the admin action log (``SqlAuditStore``)."""


def parse_admins(text: str) -> frozenset[str]:
    """Admin ids from ``VEILBOT_ADMIN_USERS`` (comma-separated ``slack:T:U``, ``discord:U``).

    Raises:
        ConfigError: an entry is not a user reference.
    """
    admins: set[str] = set()
    for entry in filter(None, (e.strip() for e in text.split(","))):
        try:
            admins.add(str(parse_user_ref(entry)))
        except FilterRejected:
            raise ConfigError(
                "VEILBOT_ADMIN_USERS: entries look like slack:TEAM:USER or discord:USER"
            ) from None
    return frozenset(admins)


def parse_roles(text: str) -> frozenset[str]:
    """Discord role ids from ``VEILBOT_ADMIN_DISCORD_ROLES`` (comma-separated)."""
    return frozenset(e.strip() for e in text.split(",") if e.strip())


def chat_filter(args: Sequence[str], *, now: datetime | None = None) -> RunFilter:
    """The filter of ``audit export [since] [thread:ID|channel:ID|user:ID]``.

    Raises:
        FilterRejected: an argument of another shape.
    """
    values: dict[str, object] = {}
    for arg in args:
        scope, sep, value = arg.partition(":")
        if sep and scope in _SCOPES:
            if scope == "user" and value.count(":"):
                ref = parse_user_ref(value)
                values.update(platform=ref.platform, workspace=ref.workspace, user_id=ref.user_id)
            else:
                values[_SCOPES[scope]] = value
        elif "since" not in values:
            values["since"] = parse_instant(arg, now=now)
        else:
            raise FilterRejected("unexpected argument; " + USAGE)
    return RunFilter(**values)  # type: ignore[arg-type]


class AdminService:
    """``AdminCommands``: admin checks and chat exports.

    Args:
        audit: the audit log, with the admin action log.
        admins: admin user references (``str(UserRef)``), see ``parse_admins``.
        admin_roles: Discord role ids whose members are admins.
        max_rows: the most runs one chat export holds (the file is built in memory).
        per_workspace: a Slack admin's export holds the runs of their own workspace only
            (Slack OAuth mode: the workspaces are separate customers or teams).
    """

    def __init__(
        self,
        audit: AdminStore,
        *,
        admins: Iterable[str],
        admin_roles: Iterable[str] = (),
        max_rows: int = 100_000,
        budgets: BudgetAdmin | None = None,
        per_workspace: bool = False,
    ) -> None:
        self._audit = audit
        self._per_workspace = per_workspace
        self._budgets = budgets
        self._admins = frozenset(admins)
        self._roles = frozenset(admin_roles)
        self._max_rows = max_rows

    @property
    def admins(self) -> frozenset[str]:
        """The admin user references."""
        return self._admins

    @property
    def admin_roles(self) -> frozenset[str]:
        """The Discord role ids whose members are admins."""
        return self._roles

    def is_admin(self, requester: str, roles: Sequence[str] = ()) -> bool:
        """Whether ``requester`` may run admin commands."""
        try:
            ref = parse_user_ref(requester)
        except FilterRejected:
            return False
        if str(ref) in self._admins:
            return True
        return ref.platform == "discord" and not self._roles.isdisjoint(roles)

    async def authorize_erase(
        self,
        requester: str,
        thread_id: str,
        *,
        participant: bool,
        roles: Sequence[str] = (),
        step: str = "confirm",
    ) -> bool:
        """Whether ``requester`` may erase ``thread_id``: a participant, or an admin.

        The decision is recorded in the admin action log first (fail closed: a ``StoreError``
        propagates and nothing is erased).

        Args:
            requester: ``slack:TEAM:USER`` or ``discord:USER``.
            thread_id: the conversation to erase.
            participant: the platform says the requester takes part in it.
            roles: the requester's Discord role ids.
            step: ``request`` (the command) or ``confirm`` (the erasure itself).
        """
        admin = self.is_admin(requester, roles)
        allowed = participant or admin
        role = "participant" if participant else "admin" if admin else "none"
        outcome = {"via": "chat", "step": step, "allowed": allowed, "as": role}
        action = AdminAction(requester, "erase_thread", target=thread_id, outcome=outcome)
        await self._audit.record_action(action)
        if not allowed:
            log.warning("erase refused requester=%s thread=%s step=%s", requester, thread_id, step)
        return allowed

    async def budget(
        self, requester: str, args: Sequence[str], *, roles: Sequence[str] = ()
    ) -> AdminReply:
        """``budget show | raise KIND ID USD | reset KIND ID`` for an admin; refuse others.

        Raises:
            StoreError: the change could not be recorded or made.
        """
        if not self.is_admin(requester, roles):
            log.warning("admin command refused command=budget requester=%s", requester)
            return AdminReply(BUDGET_REFUSAL, allowed=False)
        if self._budgets is None:
            return AdminReply("No budgets on this veilbot.", allowed=False)
        try:
            text = await self._budgets.command(requester, args, via="chat")
        except BudgetRejected as exc:
            return AdminReply(str(exc), allowed=False)
        log.info("admin budget command requester=%s verb=%s", requester, (args or ["show"])[0][:10])
        return AdminReply(text, allowed=True)

    async def audit_export(
        self, requester: str, args: Sequence[str], *, roles: Sequence[str] = ()
    ) -> AdminReply:
        """Export the audit log for an admin, as gzip-compressed JSON lines; refuse others."""
        if not self.is_admin(requester, roles):
            log.warning("admin command refused command=audit_export requester=%s", requester)
            return AdminReply(REFUSAL, allowed=False)
        try:
            run_filter = self._confined(requester, chat_filter(args))
        except FilterRejected as exc:
            log.info("admin command bad arguments requester=%s", requester)
            return AdminReply(f"{exc}\n{USAGE}", allowed=False)
        total = await self._audit.count_runs(run_filter)
        data = await self._export(run_filter, total)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        shown = min(total, self._max_rows)
        note = f" (the newest {shown} of {total}; use the CLI for more)" if total > shown else ""
        log.info("admin export requester=%s runs=%d bytes=%d", requester, shown, len(data))
        return AdminReply(
            f"Audit export: {shown} run(s){note}. Placeholder text only, no personal data.",
            allowed=True,
            file=data,
            filename=f"veilbot-audit-{stamp}.jsonl.gz",
        )

    def _confined(self, requester: str, run_filter: RunFilter) -> RunFilter:
        """In per-workspace mode, a Slack admin's filter kept to their workspace."""
        ref = parse_user_ref(requester)
        if not self._per_workspace or ref.platform != "slack" or ref.workspace is None:
            return run_filter
        try:
            return confine(run_filter, frozenset({ref.workspace}))
        except WorkspaceForbidden:
            raise FilterRejected("You can export the runs of this workspace only.") from None

    async def _export(self, run_filter: RunFilter, total: int) -> bytes:
        chunks = export_chunks(
            self._audit,
            run_filter,
            "jsonl",
            gzip=True,
            max_rows=self._max_rows,
            truncated=total > self._max_rows,
        )
        return b"".join([c async for c in chunks])


def requester_ref(platform: str, user_id: str, workspace: str | None = None) -> str:
    """The requester string adapters pass: ``slack:TEAM:USER`` or ``discord:USER``."""
    return str(UserRef(platform, user_id, workspace if platform == "slack" else None))
