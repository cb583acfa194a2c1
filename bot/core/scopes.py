"""Per-workspace and per-channel settings: the most specific scope that names a message wins.

A scope id is ``PLATFORM:WORKSPACE`` (a Slack team, a Discord guild) or
``PLATFORM:WORKSPACE:CHANNEL``; a Discord thread takes its channel's scope. The composition
root resolves each configured scope against the one above it (a channel's against its
workspace's, that against the global settings), so a lookup here is two dict reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.core.types import InboundMessage

ImagePolicy = Literal["redacted", "text-only", "off"]
"""What the model gets of an attached image: the image painted over beside its redacted text
(``redacted``), only that text (``text-only``), or nothing: images are refused (``off``)."""

Language = Literal["en", "de", "fr", "es", "it", "nl", "pt", "pl"]
"""A language the guardrail can read a message as (ISO 639-1)."""


@dataclass(frozen=True, slots=True)
class PolicyOverride:
    """A scope's changes to the guardrail policy, sent with each detection request.

    The detection worker applies them to the policy it loaded (one analyzer for every scope).

    Attributes:
        off: entity types not redacted in the scope.
        on: entity types redacted there although the policy leaves them off.
        thresholds: the minimum score per type, sorted by type (hashable, picklable).
        reveal: what each type shows the reader there, ``(type, shared, private)`` with
            ``restore``, ``mask`` or ``placeholder`` (``None``: the service's rule).
        languages: the languages messages there may be read as, besides English (whose
            patterns are always on); empty: English only.
        language: the language of the one message a detection request is for, as the
            guardrail identified it among ``languages`` (``None``: English).
    """

    off: frozenset[str] = frozenset()
    on: frozenset[str] = frozenset()
    thresholds: tuple[tuple[str, float], ...] = ()
    reveal: tuple[tuple[str, str | None, str | None], ...] = ()
    languages: tuple[str, ...] = ()
    language: str | None = None

    def over(self, parent: PolicyOverride | None) -> PolicyOverride:
        """This scope's changes on top of its parent's (this one's win)."""
        if parent is None:
            return self
        scores = dict(parent.thresholds) | dict(self.thresholds)
        reveal = {r[0]: r for r in parent.reveal} | {r[0]: r for r in self.reveal}
        return PolicyOverride(
            off=(parent.off - self.on) | self.off,
            on=(parent.on - self.off) | self.on,
            thresholds=tuple(sorted(scores.items())),
            reveal=tuple(sorted(reveal.values())),
            languages=self.languages or parent.languages,
        )

    def describe(self) -> str:
        """For ``settings``: what the scope changes."""
        parts = []
        if self.off:
            parts.append("off: " + ", ".join(sorted(self.off)))
        if self.on:
            parts.append("on: " + ", ".join(sorted(self.on)))
        if self.thresholds:
            parts.append("thresholds: " + ", ".join(f"{k} {v:g}" for k, v in self.thresholds))
        if self.reveal:
            shown = [
                f"{t} shared={sh or 'default'} private={pr or 'default'}"
                for t, sh, pr in self.reveal
            ]
            parts.append("reveal: " + ", ".join(shown))
        if self.languages:
            parts.append("languages: " + ", ".join(self.languages))
        return "; ".join(parts) or "the service's policy"


@dataclass(frozen=True, slots=True)
class Scope:
    """The effective settings of one scope; ``None`` fields keep the service's own.

    Attributes:
        name: the scope id (for the audit), empty for the global settings.
        enabled: whether the bot answers there at all.
        system: the whole system prompt, or ``None`` for the global one.
        model: the provider's model id, or ``None`` for the configured one.
        max_tokens: the answer length limit, or ``None`` for the configured one.
        provider: the model provider (``anthropic``, ``bedrock``, ...), ``None`` for the
            configured one.
        follow_ups: whether thread replies that do not mention the bot are answered.
        streaming: whether answers are shown as they are written (else one final message).
        policy: the scope's changes to the guardrail policy, ``None`` for the service's.
        images: what the model gets of an attached image (``ImagePolicy``).
        sources: for each setting the scope set, the scope id it came from (``settings``
            shows it); a setting not in it is the service's own.
    """

    name: str = ""
    enabled: bool = True
    system: str | None = None
    model: str | None = None
    max_tokens: int | None = None
    provider: str | None = None
    follow_ups: bool = True
    streaming: bool = True
    policy: PolicyOverride | None = None
    images: ImagePolicy = "redacted"
    sources: dict[str, str] = field(default_factory=dict)


_GLOBAL = Scope()


@dataclass(frozen=True, slots=True)
class Scopes:
    """Resolved scopes by id; ``of`` finds a message's."""

    by_id: dict[str, Scope] = field(default_factory=dict)

    def of(self, message: InboundMessage) -> Scope:
        """The most specific scope of ``message``: its channel's, its workspace's, or none."""
        return self.at(message.platform, message.workspace, message.channel, message.parent_channel)

    def of_thread(self, thread_id: str, parent: str = "") -> Scope:
        """The scope of a thread by its id (``platform:workspace:channel:…``).

        ``parent``: the channel a Discord thread belongs to, whose id the thread's lacks.
        """
        platform, workspace, channel, *_ = [*thread_id.split(":"), "", "", ""]
        return self.at(platform, workspace or None, channel or None, parent or None)

    def at(self, platform: str, workspace: str | None, *channels: str | None) -> Scope:
        """The most specific scope of the first of ``channels`` that has one, or the workspace's."""
        base = f"{platform}:{workspace}"
        for channel in channels:
            if channel and (scope := self.by_id.get(f"{base}:{channel}")) is not None:
                return scope
        return self.by_id.get(base, self.top)

    top: Scope = field(default_factory=lambda: _GLOBAL)
    """The settings outside every configured scope."""
    defaults: dict[str, str] = field(default_factory=dict)
    """The service's own values (provider, model, max_tokens), shown where no scope sets one."""

    @property
    def providers(self) -> frozenset[str]:
        """The providers the scopes name (each needs a client)."""
        return frozenset(s.provider for s in self.by_id.values() if s.provider)


@dataclass(frozen=True, slots=True)
class SettingRow:
    """One effective setting, as an admin sees it: name, value, and the scope it comes from."""

    name: str
    value: str
    source: str


_PROMPT_SHOWN = 100


def effective_settings(scope: Scope, defaults: dict[str, str]) -> list[SettingRow]:
    """What a scope resolves to, each value with its source (``service`` for the service's).

    No secret is in a scope (credentials stay in the service's settings); a long system prompt
    is shortened to its start and its end.
    """
    prompt = " ".join((scope.system or "").split())
    if len(prompt) > 2 * _PROMPT_SHOWN:  # its start, and its end (where appended parts go)
        size = len(scope.system or "")
        prompt = f"{prompt[:_PROMPT_SHOWN]} … {prompt[-_PROMPT_SHOWN:]} ({size} characters)"
    values = {
        "enabled": _yes(scope.enabled),
        "provider": scope.provider or defaults.get("provider", "service default"),
        "model": scope.model or defaults.get("model") or "the provider's default",
        "max_tokens": str(scope.max_tokens or defaults.get("max_tokens", "service default")),
        "system": prompt or "service default",
        "follow_ups": _yes(scope.follow_ups),
        "streaming": _yes(scope.streaming),
        "guardrail": scope.policy.describe() if scope.policy else "the service's policy",
        "images": scope.images,
    }
    if scope.provider and not scope.model:
        values["model"] = "the provider's default"
    return [SettingRow(k, v, scope.sources.get(k, "service")) for k, v in values.items()]


def settings_text(where: str, rows: list[SettingRow]) -> str:
    """The settings of one channel as chat text (``/veilbot settings``, ``/settings``)."""
    lines = [f"Effective settings of {where}:"]
    lines += [f"• {r.name}: {r.value}  (from {r.source})" for r in rows]
    return "\n".join(lines)


def _yes(flag: bool) -> str:
    return "on" if flag else "off"
