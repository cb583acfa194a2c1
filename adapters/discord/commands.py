"""Slash commands: ``/forget``, ``/fork``, ``/help`` and ``/audit export``, answered privately."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from adapters.discord.admin import audit_group, budget_group
from adapters.discord.fork import fork as fork_conversation
from adapters.discord.participants import takes_part
from bot.core.errors import VeilbotError
from bot.core.ports import AdminCommands, MessageHandler
from bot.core.types import thread_id

logger = logging.getLogger(__name__)

HELP_TEXT = (
    "**How to talk to me**\n"
    "- Mention me in a channel: I answer in a thread started from your message. "
    "In that thread, just keep talking; no need to mention me again.\n"
    "- Or send me a direct message.\n"
    "- Personal data (names, e-mails, phone numbers...) is replaced by placeholders before "
    "anything reaches the AI model, and put back only in the answer you see.\n"
    "- Attach a file (text, CSV, JSON, code) and ask about it: I read it through the same "
    "guardrail as your words.\n"
    "- `/forget` erases this conversation's history and the personal data I kept for it.\n"
    "- `/fork first_k:K` (or `last_n:N`) starts a new thread in this channel with the first K "
    "(last N) turns of this conversation.\n"
    "- `/audit export` (admins only) sends you the redacted audit log, privately.\n"
    "- `/settings` (admins only) shows my settings in this channel.\n"
    "- `/budget show`, `/budget raise` (admins only): this month's spend, raise a budget."
)
FORGOTTEN = "Done: I erased this conversation's history and the personal data kept for it."
SETTINGS_ADMINS_ONLY = "Sorry, only veilbot admins can see its settings."
NOTHING_TO_FORGET = "There was nothing to forget here: I keep no history for this conversation."
FORGET_FAILED = "I couldn't erase this conversation right now. Please try again in a minute."
ERASE_REFUSAL = (
    "Sorry, only the people in this conversation (or a veilbot admin) can make me forget it."
)


def build_tree(
    client: discord.Client, handler: MessageHandler, admin: AdminCommands | None = None
) -> app_commands.CommandTree:
    """The command tree: ``/forget``, ``/help`` and ``/audit export`` as global commands."""
    tree: app_commands.CommandTree = app_commands.CommandTree(client)
    tree.add_command(audit_group(admin))
    tree.add_command(budget_group(admin))

    @tree.command(name="forget", description="Erase this conversation's history and its data")
    async def forget(interaction: discord.Interaction) -> None:
        await _forget(interaction, handler, admin)

    @tree.command(name="fork", description="Start a new thread from this conversation's turns")
    @app_commands.describe(
        first_k="keep the first K turns", last_n="keep the last N turns (give one of the two)"
    )
    async def fork(
        interaction: discord.Interaction, first_k: int | None = None, last_n: int | None = None
    ) -> None:
        await fork_conversation(interaction, handler, first_k, last_n)

    @tree.command(name="settings", description="veilbot's settings in this channel (admins)")
    async def settings(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            _settings_text(interaction, handler, admin), ephemeral=True
        )

    @tree.command(name="help", description="How to talk to veilbot")
    async def help_(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(HELP_TEXT, ephemeral=True)

    return tree


async def sync_commands(tree: app_commands.CommandTree, guild_id: int | None) -> None:
    """Register the commands with Discord: in one guild (instant) or globally."""
    if guild_id is None:
        synced = await tree.sync()
    else:
        guild = discord.Object(id=guild_id)
        tree.copy_global_to(guild=guild)
        synced = await tree.sync(guild=guild)
    logger.info("synced %s slash commands (guild %s)", len(synced), guild_id or "global")


def _settings_text(
    interaction: discord.Interaction, handler: MessageHandler, admin: AdminCommands | None
) -> str:
    """The channel's effective settings for an admin; one polite line for anyone else."""
    user = interaction.user
    roles = [str(r.id) for r in user.roles] if isinstance(user, discord.Member) else []
    if admin is None or not admin.is_admin(f"discord:{user.id}", roles):
        return SETTINGS_ADMINS_ONLY
    workspace = str(interaction.guild_id) if interaction.guild_id else "dm"
    channel = interaction.channel
    parent = getattr(channel, "parent_id", None)
    return handler.settings_at(
        "discord",
        workspace,
        str(interaction.channel_id),
        str(parent) if parent else None,
    )


async def _may_erase(
    interaction: discord.Interaction, admin: AdminCommands | None, tid: str
) -> bool:
    """The core's rule: a participant (as Discord says) or an admin (by id or role).

    Raises:
        VeilbotError: the decision could not be recorded.
    """
    participant = await takes_part(interaction)
    if admin is None:  # no admin service: no admins, participants only
        return participant
    user = interaction.user
    roles = [str(r.id) for r in user.roles] if isinstance(user, discord.Member) else []
    requester = f"discord:{user.id}"
    return await admin.authorize_erase(requester, tid, participant=participant, roles=roles)


async def _forget(
    interaction: discord.Interaction, handler: MessageHandler, admin: AdminCommands | None
) -> None:
    """Erase the conversation of the channel or thread the command was used in."""
    workspace = str(interaction.guild_id) if interaction.guild_id else "dm"
    tid = thread_id("discord", workspace, str(interaction.channel_id))
    try:
        if not await _may_erase(interaction, admin, tid):
            await interaction.response.send_message(ERASE_REFUSAL, ephemeral=True)
            return
        removed = await handler.forget(tid)
    except VeilbotError as exc:
        logger.warning("forget failed for %s: %s", tid, type(exc).__name__)
        await interaction.response.send_message(FORGET_FAILED, ephemeral=True)
        return
    logger.info("forgot %s (%s keys)", tid, removed)
    text = FORGOTTEN if removed else NOTHING_TO_FORGET
    await interaction.response.send_message(text, ephemeral=True)
