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


TOOL_SERVER_NAME = r"^[a-z][a-z0-9_]{0,23}$"
"""A tool server's name: the model sees its tools as ``NAME__TOOL``."""
TOOL_NAME = r"^[A-Za-z0-9_-]{1,40}$"
TOOL_SCOPE = r"^(\*|console|(slack|discord|console):[A-Za-z0-9_.-]{1,64}(:[A-Za-z0-9_.-]{1,64})?)$"
"""Where a server's tools are offered: ``*`` (everywhere), ``console``, ``PLATFORM:WORKSPACE``
or ``PLATFORM:WORKSPACE:CHANNEL`` (a workspace's servers serve its channels too)."""


class ToolServer(BaseModel):
    """One MCP server the model may call (``[[tools.servers]]``; see ``bot.tools``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(pattern=TOOL_SERVER_NAME)]
    command: Annotated[str, Field(min_length=1, max_length=4096)] | None = None
    """A stdio server: the program to start (``python``)."""
    args: list[str] = []
    """The stdio server's arguments (``["-m", "crm_mcp"]``)."""
    url: Annotated[str, Field(pattern=r"^https?://[^\s]{1,2000}$")] | None = None
    """A streamable HTTP server's endpoint (``http://crm.internal:8080/mcp``)."""
    env: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")], str] = {}
    """Extra environment variables of a stdio server."""
    tools: list[Annotated[str, Field(pattern=TOOL_NAME)]] = Field(min_length=1)
    """The server's tools the model may call; any other it lists is not offered."""
    scopes: list[Annotated[str, Field(pattern=TOOL_SCOPE)]] = Field(min_length=1)
    """Where its tools are offered."""
    reveal: bool = False
    """``true``: placeholders in the model's arguments are filled with the thread's real
    values before the call; ``false``: the server receives the placeholders."""
    timeout_seconds: float = Field(default=15.0, gt=0, le=300)
    """The longest one call (connecting included) may take; then the model gets an error."""
    max_result_chars: int = Field(default=20_000, ge=1, le=1_000_000)
    """A longer result is refused (the model gets an error), never cut and read."""

    @model_validator(mode="after")
    def _one_transport(self) -> ToolServer:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"tool server {self.name}: give either command (stdio) or url")
        if self.args and self.command is None:
            raise ValueError(f"tool server {self.name}: args go with command")
        return self


class ToolSettings(BaseModel):
    """MCP servers whose tools the model may call, and the loop's limits (``[tools]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[ToolServer] = []
    max_rounds: int = Field(default=4, ge=1, le=20)
    """Model calls that may ask for tools in one turn; the next must answer."""
    deadline_seconds: float = Field(default=60.0, gt=0, le=900)
    """The time a turn's tool rounds may take together; then the model must answer."""

    @model_validator(mode="after")
    def _unique_names(self) -> ToolSettings:
        names = [s.name for s in self.servers]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"tool server names used twice: {', '.join(twice)}")
        return self
