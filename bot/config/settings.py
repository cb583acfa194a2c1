"""Configuration: one ``Settings`` class read from ``VEILBOT_*`` variables and ``.env``.

Every setting has a safe default except platform and model credentials, which are checked
when the component that needs them starts (``require``), with an error naming the variable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.config.tables import (
    SCOPE_ID,
    AccessSettings,
    BudgetSettings,
    RateLimitSettings,
    ScopeSettings,
    ToolSettings,
)
from bot.core.errors import ConfigError
from bot.core.redis_url import parse_redis_url
from bot.core.scopes import ImagePolicy

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from bot.config.file import ConfigFile

EventLoop = Literal["auto", "asyncio"]
"""``VEILBOT_EVENT_LOOP``: the event loop the commands run on (``bot.cli.loop``)."""

_PLACEHOLDER_SECRETS = {
    "changeme",
    "change-me",
    "changethis",
    "secret",
    "xxx",
    "todo",
    "placeholder",
}


SLACK_BOT_SCOPES = (
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "mpim:history",
    "im:history",
    "chat:write",
    "commands",
    "assistant:write",
    "im:write",
    "files:write",
    "files:read",
    "usergroups:read",
)
"""The bot scopes of ``deploy/slack/manifest.yml``: what an OAuth install asks for."""

DEFAULT_MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "bedrock": "global.anthropic.claude-sonnet-4-6",
    "vertex": "claude-sonnet-4-6",
    "echo": "echo",
}
"""The model each provider uses when ``VEILBOT_MODEL`` is unset; ``openai`` has none."""


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "veilbot"


class Settings(BaseSettings):
    """All of veilbot's settings. Secrets are ``SecretStr`` and never logged."""

    model_config = SettingsConfigDict(
        env_prefix="VEILBOT_", env_file=".env", extra="ignore", populate_by_name=True
    )

    # Storage
    data_dir: Path = Field(default_factory=_default_data_dir)
    redis_url: str | None = None
    """``redis://``, ``rediss://`` or ``unix://`` for one server; ``redis+cluster://`` or
    ``rediss+cluster://`` with one or more ``host:port`` seeds (comma-separated) for a Redis
    Cluster. Unset: an embedded server in the data directory."""
    redis_prefix: str = Field(default="veilbot", pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    database_url: str | None = None
    history_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=60)
    history_max_messages: int = Field(default=200, ge=2)
    dedupe_ttl_seconds: int = Field(default=3600, ge=1)
    lock_ttl_seconds: float = Field(default=30.0, gt=0)
    lock_wait_seconds: float = Field(default=300.0, gt=0)
    store_timeout_seconds: float = Field(default=5.0, gt=0)
    redis_max_connections: int = Field(default=100, ge=4)
    """Size of the Redis connection pool; a burst waits (``store_timeout_seconds``) for one."""
    max_turns_in_flight: int = Field(default=48, ge=1)
    """Turns run at once per process (others wait their turn); at most half the pool, since a
    turn may hold two connections (a command and its lock's renewal). Unset: 48, or half of a
    smaller pool."""

    # The turn queue (``bot.state.queue``): ``veilbot run`` acks a Slack event only once it is
    # queued in Redis, queues a Discord message as it arrives, and any replica answers it.
    queue_enabled: bool = True
    """Queue platform events in Redis (Slack: before acking them; Discord: on arrival). Off:
    answer in the receiving process, and an event that process dies on is never answered."""
    queue_claim_idle_seconds: float = Field(default=30.0, gt=0)
    """How long an entry a replica took may sit untouched before another replica claims it
    (live replicas touch their entries in flight every third of this, so a long turn is never
    taken from them; a dead replica's entries are answered this long after it died)."""
    queue_workers: int = Field(default=32, ge=0)
    """Threads one process works from the queue at once; 0: this process only acks and queues
    (an ingress replica, whose acks never wait behind turns), other replicas answer."""
    queue_acks_first_seconds: float = Field(default=0.25, ge=0)
    """How long a queued turn waits to begin while this process is acking Slack deliveries (a
    burst), and the longest its detection processes are paused then (Linux): the acks, which
    Slack times out after 3 s, go first. 0: turns begin at once, nothing is paused."""
    queue_shards: int | None = Field(default=None, ge=1, le=1024)
    """Shards of the queue (a thread always in the same one, so its turns stay in order), so
    that on a Redis Cluster every master carries a part of it. Recorded in Redis by the first
    process that uses it; every replica then uses the recorded count. Unset: the cluster's
    master count, 1 on a single server."""
    replica_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
    """This process's consumer name in the queue; unset: hostname-pid-random."""

    # Who may use it
    access: AccessSettings = Field(default_factory=AccessSettings)
    """Allow and deny lists, a table in the config file (JSON here): ``allow_users``,
    ``deny_users``, ``allow_channels``, ``deny_channels``, ``allow_slack_groups``,
    ``deny_slack_groups``, ``allow_discord_roles``, ``deny_discord_roles`` (lists of ids as
    the platform shows them, optionally ``slack:TEAM:`` or ``discord:GUILD:`` first) and
    ``allow_dms``. Deny wins; an empty allow list allows everyone; channel lists do not apply
    to direct messages. A refused person gets one private line and the audit a ``refused``
    turn."""

    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    """Turns per window, a table in the config file (JSON here): ``user`` and ``channel``, each
    ``{turns = N, per_seconds = T}``; unset: no limit. Kept in Redis, so every replica counts
    against the same limit; a turn over one is answered with when to try again and audited
    ``rate_limited``."""

    budgets: BudgetSettings = Field(default_factory=BudgetSettings)
    """Monthly cost budgets in USD, a table in the config file (JSON here): ``workspace_usd``,
    ``channel_usd`` and ``user_usd`` for every workspace, channel and person, and the tables
    ``workspaces``, ``channels`` and ``users`` naming their own (``"slack:T0123" = 500``,
    ``"slack:T0123:C0456" = 50``, ``"slack:T0123:U024BE7LH" = 20``); unset: no budget.
    ``notify_percent`` (80) is when admins get one notice per budget and month. Spend is kept
    per calendar month (UTC) in Redis, shared by every replica; a turn over a budget is
    refused, nothing is sent to the model, and the audit records ``over_budget``. A raise from
    chat, the CLI or the admin console wins over the file for the rest of the month."""

    tools: ToolSettings = Field(default_factory=ToolSettings)
    """MCP servers whose tools the model may call, a table in the config file (JSON here):
    ``max_rounds`` (4) model calls that may ask for tools per turn, ``deadline_seconds`` (60)
    for a turn's tool rounds together, and ``[[tools.servers]]`` entries, each with ``name``,
    ``command`` and ``args`` (a stdio server) or ``url`` (streamable HTTP), ``env``,
    ``tools`` (the tools the model may call), ``scopes`` (``*``, ``console``,
    ``slack:TEAM``, ``slack:TEAM:CHANNEL``, ``discord:GUILD``, …: where they are offered),
    ``reveal`` (``false``: the server receives placeholders; ``true``: the thread's real
    values), ``timeout_seconds`` (15) and ``max_result_chars`` (20000). Tools are offered
    to Claude (Anthropic, Bedrock, Vertex AI), not to OpenAI-compatible servers or the echo
    model ([tools](tools.md))."""

    scopes: dict[Annotated[str, Field(pattern=SCOPE_ID)], ScopeSettings] = Field(
        default_factory=dict
    )
    """Settings per workspace or channel, tables in the config file (JSON here) keyed
    ``slack:TEAM``, ``slack:TEAM:CHANNEL``, ``discord:GUILD`` or ``discord:GUILD:CHANNEL``
    (a Discord thread takes its channel's): ``enabled``, ``system_prompt`` with
    ``system_prompt_mode`` (``append``: after the prompt above it; ``replace``: instead of
    veilbot's persona and style, the placeholder rules kept), ``model``, ``max_tokens``,
    ``provider`` (another provider for the scope, with the credentials set for it; without a
    ``model``, that provider's default), ``follow_ups`` (``false``: thread replies without a
    mention are not answered), ``streaming`` (``false``: one final message), ``images``
    (``redacted``, ``text-only`` or ``off``: see ``files_images``) and a
    ``guardrail`` table (``entities_off``, ``entities_on``, ``thresholds``, ``reveal`` as
    ``reveal_policy``: changes to the guardrail policy there, applied by the detection
    worker and the restorer; ``languages``, e.g. ``["de", "fr"]``: the languages messages
    there are read in besides English, see docs/guardrail.md). The most
    specific scope wins; a channel's inherits its workspace's. ``/veilbot settings`` (Slack)
    and ``/settings`` (Discord) show an admin the channel's effective settings."""

    # Input limits
    max_input_chars: int = Field(default=8000, ge=1)
    files_max_bytes: int = Field(default=20 * 1024 * 1024, ge=1)
    """The largest attached file read; a larger one is refused with its size and this limit."""
    files_max_count: int = Field(default=5, ge=0)
    """The most files read from one message; more are refused, none read. 0 turns files off."""
    files_max_pages: int = Field(default=30, ge=1)
    """The most pages (sheets, slides) read from one attached document."""
    files_max_chars: int = Field(default=100_000, ge=1)
    """The most characters of text read from one attached file (the guardrail's time grows
    with it: tests/perf/bench_files)."""
    files_max_cells: int = Field(default=500_000, ge=1)
    """The most cells of an attached workbook (every sheet; empty cells count, a row as far as
    its last cell) or of a document's or presentation's tables, counted before it is opened."""
    files_max_paragraphs: int = Field(default=100_000, ge=1)
    """The most paragraphs of an attached Word document, empty ones too."""
    files_max_shapes: int = Field(default=10_000, ge=1)
    """The most shapes of an attached presentation (text boxes, pictures, tables, groups)."""
    files_max_elements: int = Field(default=2_000_000, ge=1)
    """The most XML elements of an attached office file, all its parts together."""
    files_max_pixels: int = Field(default=24_000_000, ge=1)
    """The most pixels of the pictures read from one file: an image, or a PDF's scanned
    pictures together; checked on their declared sizes before any is decoded."""
    files_max_memory_mb: int = Field(default=512, ge=16)
    """The memory (MB) a file's reader process may take beyond what it starts with; a file
    that needs more is refused. Tesseract, which it runs, inherits the same ceiling."""
    files_max_seconds: float = Field(default=20.0, gt=0)
    """The time one file's reading may take (parsing, OCR and painting); a file that takes
    longer is refused."""
    files_readers: int = Field(default=2, ge=1)
    """Files one service process reads at once, each in a reader process of its own; more
    wait for a free reader."""
    files_images: ImagePolicy = "redacted"
    """What the model gets of an attached image (a scope's ``images`` wins): ``redacted``, the
    image with every value its OCR text gave, and any text OCR could not read, painted over
    and heads hidden, beside that text redacted; ``text-only``, only the redacted text;
    ``off``, images are refused. An image most of which would be painted goes as text only."""
    files_tesseract: str = Field(default="tesseract", min_length=1)
    """The Tesseract OCR command that reads images (Debian's ``tesseract-ocr``); without it
    images are refused with a line saying what to install, and other files still work."""

    # Guardrail
    vault_key: SecretStr | None = None
    vault_previous_keys: SecretStr | None = None
    """Keys that sealed data before ``VEILBOT_VAULT_KEY`` (base64, separated by commas), newest
    first: they still open what they sealed, and ``veilbot vault rotate`` seals it again with
    ``VEILBOT_VAULT_KEY``; then drop them (docs/operations.md, "Rotating the vault key")."""
    spacy_model: str = "auto"
    guardrail_policy_file: Path | None = None
    guardrail_workers: int = Field(default=1, ge=0)
    """Detection worker processes, each with its own spaCy model (its memory:
    docs/performance.md, "Memory"); the event loop only waits for them, so a long message never
    delays acks. 0: one worker thread in the service process instead (less memory; a long
    message then holds the event loop)."""
    reveal_policy: dict[str, str | dict[str, str]] = Field(default_factory=dict)
    """Per entity type: ``restore``, ``mask`` or ``placeholder``, or ``{"shared": …, "private": …}``
    (JSON in ``VEILBOT_REVEAL_POLICY``); see ``guardrails.restore.reveal``."""

    # Guardrail policy
    # spacy_model "auto" takes veilbot's own entity model (guardrails/ner/model), else the best
    # installed English model (lg, md, mooring md, sm).
    # The policy file (YAML, guardrails/policy.py) defaults to the shipped default_policy.yaml.
    guardrail_chunk_chars: int = Field(default=4000, ge=200)

    # Model
    model: str | None = None
    """The provider's model id; unset: ``DEFAULT_MODELS`` (required for ``openai``)."""
    max_tokens: int = Field(default=1024, ge=1, le=64000)
    temperature: float = Field(default=0.3, ge=0.0, le=1.0)
    model_timeout_seconds: float = Field(default=60.0, gt=0)
    model_max_retries: int = Field(default=1, ge=0, le=5)
    context_budget_tokens: int = Field(default=12000, ge=256)
    system_prompt_extra: str = ""

    # Model providers (issue 14): who serves the model, with each one's credentials.
    # Checked when the app starts (bot.model.build), with an error naming the variable to set.
    model_provider: Literal["auto", "anthropic", "bedrock", "vertex", "openai", "echo"] = "auto"
    """``auto``: ``anthropic`` when an Anthropic key is set, else the offline ``echo`` model."""
    model_check_at_start: bool = True
    """Make one free call at start (model lookup, token count) to catch wrong credentials."""
    model_price_input: float | None = Field(default=None, ge=0)
    model_price_output: float | None = Field(default=None, ge=0)
    """USD per million tokens; when both are set they price every call (self-hosted too)."""
    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    )
    anthropic_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL"),
    )
    bedrock_region: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_BEDROCK_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"),
    )
    bedrock_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_BEDROCK_API_KEY", "AWS_BEARER_TOKEN_BEDROCK"),
    )
    aws_access_key_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"),
    )
    aws_secret_access_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
    )
    aws_session_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_AWS_SESSION_TOKEN", "AWS_SESSION_TOKEN"),
    )
    aws_profile: str | None = Field(
        default=None, validation_alias=AliasChoices("VEILBOT_AWS_PROFILE", "AWS_PROFILE")
    )
    bedrock_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_BEDROCK_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL"),
    )
    vertex_project_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "VEILBOT_VERTEX_PROJECT_ID", "ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT"
        ),
    )
    vertex_region: str = Field(
        default="global",
        validation_alias=AliasChoices("VEILBOT_VERTEX_REGION", "CLOUD_ML_REGION"),
        pattern=r"^[a-z0-9-]{2,40}$",
    )
    vertex_credentials_file: Path | None = None
    """A service-account key file; unset: Application Default Credentials."""
    vertex_access_token: SecretStr | None = None
    vertex_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_VERTEX_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL"),
    )
    # No OPENAI_* fallbacks: an OpenAI key in the environment must not go to a local server.
    openai_base_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    openai_api_key: SecretStr | None = None
    openai_images: bool = False
    """Whether the OpenAI-compatible server's model takes images (a vision model): then a
    message's redacted images go to it as ``image_url`` parts; else only their redacted text."""

    @property
    def provider(self) -> str:
        """The provider that answers: ``VEILBOT_MODEL_PROVIDER``, with ``auto`` resolved."""
        if self.model_provider != "auto":
            return self.model_provider
        return "anthropic" if self.anthropic_api_key is not None else "echo"

    @property
    def use_echo_model(self) -> bool:
        """Whether the offline echo model answers."""
        return self.provider == "echo"

    @property
    def model_name(self) -> str | None:
        """``VEILBOT_MODEL``, else the provider's default (none for ``openai``)."""
        return self.model or DEFAULT_MODELS.get(self.provider)

    # Operations
    config: Path | None = None
    """The config file (TOML): settings by name (``max_tokens = 2048``), checked at start with
    errors that give the line; an unknown key is an error. The environment wins over it."""
    config_watch_seconds: float = Field(default=10.0, ge=0)
    """How often a running service looks whether the config file changed, to reload its
    ``access``, ``rate_limits``, ``budgets`` and ``scopes`` (as on ``SIGHUP``); 0: on ``SIGHUP``
    only."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    event_loop: EventLoop = "auto"
    """``auto``: every command runs on uvloop where it is installed (a dependency on Linux and
    macOS), whose transports and scheduling in C take the service less CPU per turn
    (docs/performance.md); ``asyncio``: on Python's own event loop."""
    drain_timeout_seconds: float = Field(default=20.0, ge=0)
    """On SIGTERM/SIGINT ``veilbot run`` takes no new events and waits this long for the
    turns in flight before it cancels them (keep it below the orchestrator's grace period)."""

    # Audit and admin
    audit_retention_days: int = Field(default=90, ge=0)
    """Audit runs older than this are purged daily by the running service; 0 keeps them all."""
    admin_users: str = ""
    """Chat admins, comma-separated: ``slack:TEAM:USER``, ``discord:USER``, ``console:USER``."""
    admin_discord_roles: str = ""
    """Discord role ids, comma-separated, whose members are admins too."""
    admin_tokens: str = ""
    """HTTP admin API tokens, stored hashed: comma-separated
    ``SHA256HEX[:scope+scope][@WORKSPACE+WORKSPACE]`` (scope ``admin`` when omitted; with
    ``@``, the API and the console show that token the runs of those workspaces only).
    ``veilbot admin hash-token`` prints a token's hash."""
    forget_keeps_audit_rows: bool = False
    """``forget`` keeps a user's audit runs with the user id replaced by a keyed hash."""
    admin_http_host: str = "127.0.0.1"
    admin_http_port: int = Field(default=8081, ge=0, le=65535)
    admin_chat_export_max_rows: int = Field(default=100_000, ge=1)
    admin_session_ttl_seconds: int = Field(default=8 * 3600, ge=60, le=7 * 86400)
    """How long an admin console session lasts from sign-in (``/admin/``), in seconds."""

    @field_validator(
        "vault_key",
        "vault_previous_keys",
        "anthropic_api_key",
        "bedrock_api_key",
        "aws_secret_access_key",
        "aws_session_token",
        "vertex_access_token",
        "openai_api_key",
    )
    @classmethod
    def _refuse_placeholder_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        raw = value.get_secret_value().strip()
        if not raw:
            return None
        if raw.lower() in _PLACEHOLDER_SECRETS or raw.startswith("<"):
            raise ValueError("is a placeholder value; set a real secret")
        return SecretStr(raw)

    # Discord
    discord_token: SecretStr | None = None
    discord_reply_mode: Literal["thread", "inline"] = "thread"
    """``thread``: a mention in a text channel opens a public thread; ``inline``: a reply."""
    discord_followups: bool = True
    """In a thread the bot started or was mentioned in, answer without a new mention."""
    discord_ignore_bots: bool = True
    discord_shard_count: int | None = Field(default=None, ge=1)
    """Total shards across all replicas; set to use ``AutoShardedClient``."""
    discord_shard_ids: Annotated[list[int] | None, NoDecode] = None
    """The shards this replica runs (``0,1``); needs ``discord_shard_count``."""
    discord_shard_pod: str | None = Field(default=None, pattern=r"^[a-z0-9.-]*-[0-9]+$")
    """A StatefulSet pod name (``veilbot-discord-2``): this replica runs the one shard of its
    ordinal (2). Instead of ``discord_shard_ids``; needs ``discord_shard_count``."""
    discord_guild_id: int | None = None
    """Sync slash commands to this guild only (instant), instead of globally."""
    discord_progressive_edits: bool = False
    discord_edit_interval_seconds: float = Field(default=1.5, ge=1.0)
    discord_api_url: str | None = None
    """REST base such as ``https://discord.com/api/v10``; for proxies and tests."""
    discord_gateway_url: str | None = None
    """Gateway websocket URL such as ``wss://gateway.discord.gg/``; for proxies and tests."""

    @field_validator("redis_url")
    @classmethod
    def _check_redis_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        try:
            parse_redis_url(value.strip())
        except ConfigError as exc:
            raise ValueError(str(exc).removeprefix("VEILBOT_REDIS_URL: ")) from None
        return value.strip()

    @field_validator("discord_token")
    @classmethod
    def _refuse_placeholder_discord_token(cls, value: SecretStr | None) -> SecretStr | None:
        return cls._refuse_placeholder_secret(value)

    @field_validator("discord_shard_ids", mode="before")
    @classmethod
    def _parse_shard_ids(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [p.strip() for p in value.replace(" ", ",").split(",") if p.strip()]
            return [int(p) for p in parts] or None
        return value

    def _pod_ordinal(self, pod: str) -> int:
        if self.discord_shard_ids is not None:
            raise ValueError("set VEILBOT_DISCORD_SHARD_POD or VEILBOT_DISCORD_SHARD_IDS, not both")
        ordinal = int(pod.rsplit("-", 1)[1])
        if self.discord_shard_count is not None and ordinal >= self.discord_shard_count:
            raise ValueError(
                "VEILBOT_DISCORD_SHARD_POD's ordinal must be below VEILBOT_DISCORD_SHARD_COUNT "
                "(more pods than shards?)"
            )
        return ordinal

    @model_validator(mode="after")
    def _check_turns_fit_the_pool(self) -> Settings:
        if "max_turns_in_flight" not in self.model_fields_set:  # follow a smaller pool
            self.max_turns_in_flight = min(
                self.max_turns_in_flight, self.redis_max_connections // 2
            )
        if 2 * self.max_turns_in_flight > self.redis_max_connections:
            raise ValueError(
                "VEILBOT_MAX_TURNS_IN_FLIGHT must be at most half of VEILBOT_REDIS_MAX_CONNECTIONS"
            )
        return self

    @model_validator(mode="after")
    def _check_shards(self) -> Settings:
        if self.discord_shard_pod is not None:
            self.discord_shard_ids = [self._pod_ordinal(self.discord_shard_pod)]
        if self.discord_shard_ids is not None:
            count = self.discord_shard_count
            if count is None:
                raise ValueError("VEILBOT_DISCORD_SHARD_IDS needs VEILBOT_DISCORD_SHARD_COUNT")
            if any(not 0 <= i < count for i in self.discord_shard_ids):
                raise ValueError("VEILBOT_DISCORD_SHARD_IDS must lie in [0, shard count)")
        return self

    # Slack
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_mode: Literal["http", "socket"] = "http"
    slack_http_host: str = "127.0.0.1"
    slack_http_port: int = Field(default=3000, ge=0, le=65535)
    slack_http_path: str = Field(default="/slack/events", pattern=r"^/[A-Za-z0-9_./-]*$")
    slack_api_url: str | None = None
    slack_command: str = Field(default="/veilbot", pattern=r"^/[a-z0-9_-]{1,31}$")
    slack_reply_to_followups: bool = True
    slack_ignore_bots: bool = True
    slack_streaming: Literal["auto", "stream", "update", "off"] = "auto"
    slack_update_interval_seconds: float = Field(default=1.0, ge=0.0)
    slack_message_chars: int = Field(default=3800, ge=500, le=12000)
    slack_assistant: bool = True
    # Slack OAuth: many workspaces, each with its own token; on when a client id is set
    slack_client_id: str | None = None
    """The Slack app's client id: OAuth mode, installs in many workspaces, each answered with
    its own token (no ``VEILBOT_SLACK_BOT_TOKEN``). The service then serves ``/slack/install``
    (the link to offer) and ``/slack/oauth_redirect`` beside the events, over HTTP only;
    tokens rest sealed in the audit database, install states in Redis."""
    slack_client_secret: SecretStr | None = None
    """The Slack app's client secret (OAuth mode)."""
    slack_oauth_redirect_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    """Where Slack sends installers back: ``https://HOST/slack/oauth_redirect`` (OAuth mode);
    the manifest's ``oauth_config.redirect_urls`` must list it."""
    slack_oauth_scopes: Annotated[list[str], NoDecode] = list(SLACK_BOT_SCOPES)
    """The bot scopes an install asks for (comma-separated); those of the manifest by default."""
    slack_token_rotation_minutes: int = Field(default=120, ge=1, le=720)
    """With token rotation on, refresh a workspace's token this long before it expires."""
    slack_uninstall_grace_days: int = Field(default=30, ge=0)
    """After an uninstall, a workspace's audit runs are kept this many days, then deleted
    (its tokens, histories and vaults go at once)."""

    @field_validator("slack_oauth_scopes", mode="before")
    @classmethod
    def _parse_scopes(cls, value: object) -> object:
        if isinstance(value, str):
            return [p.strip() for p in value.replace(" ", ",").split(",") if p.strip()]
        return value

    @field_validator(
        "slack_bot_token", "slack_signing_secret", "slack_app_token", "slack_client_secret"
    )
    @classmethod
    def _refuse_placeholder_slack_secret(cls, value: SecretStr | None) -> SecretStr | None:
        return cls._refuse_placeholder_secret(value)

    @property
    def slack_oauth(self) -> bool:
        """Multi-workspace mode (OAuth installs) rather than one workspace's bot token."""
        return self.slack_client_id is not None

    @property
    def slack_missing_credential(self) -> str | None:
        """The variable Slack still needs for the chosen transport, or ``None``."""
        if self.slack_oauth:
            needed = {
                "VEILBOT_SLACK_CLIENT_SECRET": self.slack_client_secret,
                "VEILBOT_SLACK_SIGNING_SECRET": self.slack_signing_secret,
                "VEILBOT_SLACK_OAUTH_REDIRECT_URL": self.slack_oauth_redirect_url,
            }
            missing = [name for name, value in needed.items() if value is None]
            return ", ".join(missing) or None
        if self.slack_bot_token is None:
            return "VEILBOT_SLACK_BOT_TOKEN"
        if self.slack_mode == "socket":
            return None if self.slack_app_token else "VEILBOT_SLACK_APP_TOKEN"
        return None if self.slack_signing_secret else "VEILBOT_SLACK_SIGNING_SECRET"


def load_settings(config_file: Path | None = None, **overrides: object) -> Settings:
    """Read settings, converting validation failures into ``ConfigError``.

    The config file is ``config_file``, else ``VEILBOT_CONFIG`` (environment or ``.env``);
    the environment wins over it. An error names the variable that was set (``VEILBOT_<FIELD>``,
    or the provider's own name such as ``ANTHROPIC_API_KEY`` when that is the one in the
    environment), or the file, line and key the value came from, and never echoes the value.
    """
    from bot.config.file import (
        environment_fields,
        read_config_file,
        settings_from_file,
        unknown_keys,
    )

    env = environment_fields(Settings, overrides.get("_env_file", ".env"))
    path = config_file or env.get("config")
    if path is None:
        return _validated(dict(overrides), None, [])
    doc = read_config_file(Path(path))
    values: dict[str, object] = {**settings_from_file(doc, Settings, env), **overrides}
    values["config"] = doc.path
    return _validated(values, doc, unknown_keys(doc, Settings))


def _validated(values: dict[str, object], doc: ConfigFile | None, unknown: list[str]) -> Settings:
    from pydantic import ValidationError

    try:
        settings = Settings(**values)  # type: ignore[arg-type]
    except ValidationError as exc:
        unknown = unknown + [_problem(err, values, doc) for err in exc.errors()]
    if unknown:
        raise ConfigError(f"invalid configuration: {'; '.join(unknown)}", problems=unknown)
    return settings


def _problem(err: ErrorDetails, values: dict[str, object], doc: ConfigFile | None) -> str:
    loc = err["loc"]
    message = err["msg"].removeprefix("Value error, ")
    if not loc:
        return message
    if err["type"] == "extra_forbidden":  # a key inside a table that no setting has
        from bot.config.file import suggestion, table_keys

        message = f"unknown setting{suggestion(str(loc[-1]), table_keys(Settings, loc[:-1]))}"
    if doc is not None and loc[0] in doc.values and values.get(str(loc[0])) is doc.values[loc[0]]:
        return f"{doc.where(loc)}: {message}"
    return f"{_variable(loc)}: {message}"


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable behind an error's location, as the user spelled it."""
    if not loc:
        return "settings"
    head, rest = str(loc[0]), "".join(f"[{part}]" for part in loc[1:])
    names = [f"VEILBOT_{head.upper()}"]
    for field in Settings.model_fields.values():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices) and head in alias.choices:
            names = [str(choice) for choice in alias.choices]
    present = {name.upper() for name in os.environ}
    return next((n for n in names if n.upper() in present), names[0]) + rest


def require(value: SecretStr | str | None, variable: str) -> str:
    """Return a credential or raise ``ConfigError`` naming the variable to set."""
    if value is None:
        raise ConfigError(f"{variable} is not set")
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not raw.strip():
        raise ConfigError(f"{variable} is empty")
    return raw
