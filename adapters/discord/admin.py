"""``/audit export`` for admins: the redacted audit log as an ephemeral reply with the file.

The core (``AdminCommands``) decides who is an admin (by user id, or by role) and builds the
export; this module only asks and delivers. The interaction is deferred first (an export may
take longer than Discord's 3 seconds), then answered with a follow-up only the requester
sees: the file attached for admins, the core's polite refusal for everyone else.
"""

from __future__ import annotations

import io
import logging

import discord
from discord import app_commands

from bot.core.errors import VeilbotError
from bot.core.ports import AdminCommands

logger = logging.getLogger(__name__)

NOT_AVAILABLE = "Sorry, admin commands are not available on this veilbot."
UNAVAILABLE = "Sorry, the audit log is unavailable right now. Please try again later."


def audit_group(admin: AdminCommands | None) -> app_commands.Group:
    """The ``/audit`` command group with its ``export`` subcommand."""
    group = app_commands.Group(name="audit", description="The redacted audit log (admins only)")

    @group.command(name="export", description="Export the redacted audit log (admins only)")
    @app_commands.describe(
        since="How far back: a duration such as 7d or 12h, or a date such as 2026-03-01",
        thread="Only this thread id (discord:GUILD:CHANNEL)",
        channel="Only this channel or thread id",
        user="Only this user id",
    )
    async def export(
        interaction: discord.Interaction,
        since: str | None = None,
        thread: str | None = None,
        channel: str | None = None,
        user: str | None = None,
    ) -> None:
        args = [since] if since else []
        scopes = {"thread": thread, "channel": channel, "user": user}
        args += [f"{name}:{value.strip()}" for name, value in scopes.items() if value]
        await audit_export(interaction, admin, args)

    return group


async def audit_export(
    interaction: discord.Interaction, admin: AdminCommands | None, args: list[str]
) -> None:
    """Run the export for the interaction's user and answer privately."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    if admin is None:
        await interaction.followup.send(NOT_AVAILABLE, ephemeral=True)
        return
    user = interaction.user
    roles = [str(r.id) for r in user.roles] if isinstance(user, discord.Member) else []
    try:
        reply = await admin.audit_export(f"discord:{user.id}", args, roles=roles)
    except VeilbotError as exc:
        logger.error("audit export failed user=%s (%s)", user.id, type(exc).__name__)
        await interaction.followup.send(UNAVAILABLE, ephemeral=True)
        return
    if not reply.allowed or reply.file is None:
        await interaction.followup.send(reply.text, ephemeral=True)
        return
    attachment = discord.File(
        io.BytesIO(reply.file), filename=reply.filename or "veilbot-audit.jsonl.gz"
    )
    await interaction.followup.send(reply.text, file=attachment, ephemeral=True)
    logger.info("audit export delivered user=%s guild=%s", user.id, interaction.guild_id)


BUDGETS_UNAVAILABLE = "Sorry, the budgets are unavailable right now. Please try again later."


def budget_group(admin: AdminCommands | None) -> app_commands.Group:
    """The ``/budget`` command group: ``show``, ``raise`` and ``reset`` (admins only)."""
    group = app_commands.Group(name="budget", description="Monthly cost budgets (admins only)")

    @group.command(name="show", description="This month's spend against each budget")
    async def show(interaction: discord.Interaction) -> None:
        await budget_command(interaction, admin, ["show"])

    @group.command(name="raise", description="Raise a budget for the rest of this month")
    @app_commands.describe(
        kind="workspace, channel or user",
        budget="The budget's id: discord:GUILD, discord:GUILD:CHANNEL or discord:GUILD:USER",
        usd="The month's limit in US dollars",
    )
    async def raise_(interaction: discord.Interaction, kind: str, budget: str, usd: str) -> None:
        await budget_command(interaction, admin, ["raise", kind, budget, usd])

    @group.command(name="reset", description="Back to the config file's budget for this month")
    @app_commands.describe(kind="workspace, channel or user", budget="The budget's id")
    async def reset(interaction: discord.Interaction, kind: str, budget: str) -> None:
        await budget_command(interaction, admin, ["reset", kind, budget])

    return group


async def budget_command(
    interaction: discord.Interaction, admin: AdminCommands | None, args: list[str]
) -> None:
    """Run a budget command for the interaction's user and answer privately."""
    if admin is None:
        await interaction.response.send_message(NOT_AVAILABLE, ephemeral=True)
        return
    user = interaction.user
    roles = [str(r.id) for r in user.roles] if isinstance(user, discord.Member) else []
    try:
        reply = await admin.budget(f"discord:{user.id}", args, roles=roles)
    except VeilbotError as exc:
        logger.error("budget command failed user=%s (%s)", user.id, type(exc).__name__)
        await interaction.response.send_message(BUDGETS_UNAVAILABLE, ephemeral=True)
        return
    await interaction.response.send_message(reply.text, ephemeral=True)
