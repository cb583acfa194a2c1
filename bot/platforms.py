"""Which platforms ``veilbot run`` serves, checked before anything heavy is imported or started.

``preflight`` answers a configuration mistake (no platform's credentials, an unknown platform,
a missing signing secret, an echo model nobody chose, a malformed vault key, a spaCy model or
policy file that is not there, a Redis that cannot be reached) in about a second: it needs the
settings alone, not the guardrail (spaCy, Presidio), which takes seconds to import and load.
The adapters themselves are built later by ``bot.service``.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from bot.config.settings import Settings
from bot.core.errors import ConfigError
from bot.core.redis_url import parse_redis_url
from guardrails.engine import check_model_setting
from guardrails.policy import load_policy
from guardrails.vault.keys import load_key_ring

PLATFORM_CREDENTIALS: dict[str, Callable[[Settings], str | None]] = {
    # the variable a platform still needs, or None when all of its credentials are set
    "discord": lambda s: None if s.discord_token else "VEILBOT_DISCORD_TOKEN",
    "slack": lambda s: s.slack_missing_credential,
}


def preflight(settings: Settings, names: Sequence[str] = ()) -> list[str]:
    """Everything ``veilbot run`` can check from the settings alone; the platforms to run.

    Raises:
        ConfigError: what ``select_platforms``, ``check_model_for_platforms``, the vault
            key ring (``guardrails.vault.keys``), the spaCy model setting, the policy file and
            ``reach_redis`` refuse.
    """
    chosen = select_platforms(settings, names)
    check_model_for_platforms(settings)
    check_model_setting(settings.spacy_model)
    load_policy(settings.guardrail_policy_file)
    if settings.redis_url:
        reach_redis(settings.redis_url)
    load_key_ring(settings.vault_key, settings.vault_previous_keys, settings.data_dir)
    return chosen


REACH_SECONDS = 3.0
"""How long ``reach_redis`` waits for a TCP connection to the server (or the first seed)."""


def reach_redis(url: str) -> None:
    """Refuse to start when ``VEILBOT_REDIS_URL``'s server cannot be reached at all.

    One TCP connection (or the Unix socket's presence), not a Redis command: a wrong host or
    port is named in a second, instead of after the store's retries and timeouts.

    Raises:
        ConfigError: the host does not resolve, refuses, or does not answer in time.
    """
    target = parse_redis_url(url)
    parts = urlsplit(target.url)
    if parts.scheme == "unix":
        if not Path(parts.path).exists():
            raise ConfigError(f"VEILBOT_REDIS_URL: no Unix socket at {parts.path}")
        return
    host, port = target.seeds[0] if target.seeds else (parts.hostname or "", parts.port or 6379)
    try:
        socket.create_connection((host, port), timeout=REACH_SECONDS).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ConfigError(
            f"VEILBOT_REDIS_URL: cannot reach Redis at {host}:{port} ({why}); check the host, "
            "the port and the network, or unset it to use the embedded Redis"
        ) from None


def select_platforms(settings: Settings, names: Sequence[str] = ()) -> list[str]:
    """The platforms to run: those named, or every one whose credentials are set.

    Checked before anything starts, so a typo or a missing token fails fast.

    Raises:
        ConfigError: an unknown name, or no name given and no platform configured.
    """
    unknown = sorted(set(names) - set(PLATFORM_CREDENTIALS))
    if unknown:
        known = ", ".join(PLATFORM_CREDENTIALS)
        raise ConfigError(f"unknown platform(s) {', '.join(unknown)}; known: {known}")
    missing = {n: need(settings) for n, need in PLATFORM_CREDENTIALS.items()}
    if names:
        for name in names:
            if missing[name]:
                raise ConfigError(f"{missing[name]} is not set (needed by {name})")
        return list(dict.fromkeys(names))
    configured = [n for n, variable in missing.items() if variable is None]
    if not configured:
        wanted = " or ".join(v for v in missing.values() if v)
        raise ConfigError(f"no platform is configured: set {wanted}")
    return configured


def check_model_for_platforms(settings: Settings) -> None:
    """Refuse to serve people with the echo model unless it was chosen explicitly.

    The echo model hands users their own words back; the console may fall back to it, a
    platform may not.

    Raises:
        ConfigError: no model provider is configured and ``VEILBOT_MODEL_PROVIDER`` is not
            ``echo``; the message names ``ANTHROPIC_API_KEY``.
    """
    if settings.use_echo_model and settings.model_provider != "echo":
        raise ConfigError(
            "no model to answer with: set ANTHROPIC_API_KEY (or VEILBOT_MODEL_PROVIDER="
            "bedrock, vertex or openai with its settings); to serve with the offline echo "
            "model, set VEILBOT_MODEL_PROVIDER=echo"
        )
