"""The structured settings: tables in the config file, JSON objects in the environment.

``[access]`` (who may use the bot), ``[rate_limits]`` and ``[scopes."…"]``; each refuses a
key it does not know, so a typo in the file is an error naming its line.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bot.core.scopes import ImagePolicy, Language


class AccessSettings(BaseModel):
    """Who may use the bot (``[access]`` in the config file; see ``bot.core.access``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_users: list[str] = []
    deny_users: list[str] = []
    allow_channels: list[str] = []
    deny_channels: list[str] = []
    allow_slack_groups: list[str] = []
    deny_slack_groups: list[str] = []
    allow_discord_roles: list[str] = []
    deny_discord_roles: list[str] = []
    allow_dms: bool = True


class RateLimit(BaseModel):
    """``turns`` per ``per_seconds``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turns: int = Field(ge=1)
    per_seconds: float = Field(gt=0, le=31 * 86400)


class RateLimitSettings(BaseModel):
    """Turns per window for each person and each channel (``[rate_limits]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user: RateLimit | None = None
    channel: RateLimit | None = None


_ENTITY = Field(pattern=r"^[A-Z][A-Z0-9_]{0,39}$")


RevealAction = Literal["restore", "mask", "placeholder"]


class RevealPlaces(BaseModel):
    """What a type shows in shared places and in DMs (either left out: the service's rule)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shared: RevealAction | None = None
    private: RevealAction | None = None


class GuardrailScope(BaseModel):
    """A scope's changes to the guardrail policy (``[scopes."…".guardrail]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entities_off: list[Annotated[str, _ENTITY]] = []
    """Entity types not redacted in this scope."""
    entities_on: list[Annotated[str, _ENTITY]] = []
    """Entity types redacted in this scope although the policy leaves them off."""
    thresholds: dict[Annotated[str, _ENTITY], Annotated[float, Field(ge=0.0, le=1.0)]] = {}
    """The minimum detection score per entity type."""
    reveal: dict[Annotated[str, _ENTITY], RevealAction | RevealPlaces] = {}
    """What each type shows the reader here (as ``reveal_policy``)."""
    languages: list[Language] | None = None
    """The languages messages here are read in; each message is identified among them and
    English, whose patterns are always on. Unset: the parent scope's, else English only."""

    @model_validator(mode="after")
    def _not_both(self) -> GuardrailScope:
        both = sorted(set(self.entities_off) & set(self.entities_on))
        if both:
            raise ValueError(f"entity types both on and off: {', '.join(both)}")
        return self


class ScopeSettings(BaseModel):
    """One workspace's or channel's own settings (``[scopes."slack:T0123:C0456"]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool | None = None
    system_prompt: str | None = None
    system_prompt_mode: Literal["append", "replace"] = "append"
    model: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:/@-]{1,200}$")
    max_tokens: int | None = Field(default=None, ge=1, le=64000)
    provider: Literal["anthropic", "bedrock", "vertex", "openai", "echo"] | None = None
    """Another provider for this scope, with the credentials the service's settings give it."""
    follow_ups: bool | None = None
    """Whether thread replies that do not mention the bot are answered."""
    streaming: bool | None = None
    """Whether answers are shown as they are written; ``false``: one final message."""
    guardrail: GuardrailScope | None = None
    """Changes to the guardrail policy here: entity types on or off, score thresholds."""
    images: ImagePolicy | None = None
    """What the model gets of an attached image here: ``redacted``, ``text-only`` or ``off``."""


SCOPE_ID = r"^(slack|discord):[A-Za-z0-9_.-]{1,64}(:[A-Za-z0-9_.-]{1,64})?$"
"""``PLATFORM:WORKSPACE`` or ``PLATFORM:WORKSPACE:CHANNEL``."""


BUDGET_WORKSPACE = r"^(slack|discord|console):[A-Za-z0-9_.-]{1,64}$"
BUDGET_PLACE = r"^(slack|discord|console):[A-Za-z0-9_.-]{1,64}:[A-Za-z0-9_.-]{1,64}$"
"""A budget's id: ``PLATFORM:WORKSPACE``, and ``PLATFORM:WORKSPACE:CHANNEL`` (or ``:USER``)."""

Usd = Annotated[float, Field(ge=0, le=10_000_000)]


class BudgetSettings(BaseModel):
    """Monthly USD budgets (``[budgets]``): defaults per scope kind, and named ones.

    ``workspace_usd``, ``channel_usd`` and ``user_usd`` apply to every workspace, channel and
    person without a named budget; ``workspaces``, ``channels`` and ``users`` name their own
    (``"slack:T0123" = 500``, ``"slack:T0123:C0456" = 50``, ``"slack:T0123:U024BE7LH" = 20``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    workspace_usd: Usd | None = None
    channel_usd: Usd | None = None
    user_usd: Usd | None = None
    workspaces: dict[Annotated[str, Field(pattern=BUDGET_WORKSPACE)], Usd] = {}
    channels: dict[Annotated[str, Field(pattern=BUDGET_PLACE)], Usd] = {}
    users: dict[Annotated[str, Field(pattern=BUDGET_PLACE)], Usd] = {}
    notify_percent: int = Field(default=80, ge=1, le=100)
    """Admins are told once a month when a budget's spend reaches this share of it."""

    @property
    def any(self) -> bool:
        """Whether any budget is set (otherwise spend is not tracked)."""
        defaults = (self.workspace_usd, self.channel_usd, self.user_usd)
        return any(d is not None for d in defaults) or bool(
            self.workspaces or self.channels or self.users
        )
