"""Scopes from ``Settings``: each configured scope resolved against the ones above it.

Pure (no stores, no spaCy): ``veilbot run``, the config reload and ``veilbot admin serve``'s
console build them alike.
"""

from __future__ import annotations

from bot.config.settings import Settings
from bot.config.tables import RevealPlaces, ScopeSettings
from bot.core.scopes import PolicyOverride, Scope, Scopes
from bot.model.prompt import build_system_prompt


def build_scopes(settings: Settings) -> Scopes:
    """Every configured scope resolved against the ones above it (channel, workspace, all)."""
    top = Scope(
        system=build_system_prompt(settings.system_prompt_extra), images=settings.files_images
    )
    resolved: dict[str, Scope] = {}
    for name in sorted(settings.scopes, key=lambda n: n.count(":")):  # workspaces first
        parent = resolved.get(name.rsplit(":", 1)[0], top) if name.count(":") == 2 else top
        resolved[name] = _scope(name, parent, settings.scopes[name])
    defaults = {
        "provider": settings.provider,
        "model": settings.model_name or "",
        "max_tokens": str(settings.max_tokens),
    }
    return Scopes(resolved, top=top, defaults=defaults)


def _scope(name: str, parent: Scope, own: ScopeSettings) -> Scope:
    system = parent.system
    if own.system_prompt is not None and own.system_prompt_mode == "replace":
        system = build_system_prompt(replace=own.system_prompt)
    elif own.system_prompt is not None:
        system = f"{parent.system}\n\n{own.system_prompt.strip()}"
    sources = dict(parent.sources)
    for key in _SCOPED & own.model_fields_set:
        if getattr(own, key) is not None:
            sources["system" if key == "system_prompt" else key] = name
    model, provider = own.model or parent.model, own.provider or parent.provider
    if own.provider and not own.model:  # another provider: its default model, not the parent's
        model = None
        sources.pop("model", None)
    return Scope(
        name=name,
        enabled=parent.enabled if own.enabled is None else own.enabled,
        system=system,
        model=model,
        max_tokens=own.max_tokens or parent.max_tokens,
        provider=provider,
        follow_ups=parent.follow_ups if own.follow_ups is None else own.follow_ups,
        streaming=parent.streaming if own.streaming is None else own.streaming,
        policy=_policy(own, parent),
        images=own.images or parent.images,
        sources=sources,
    )


_SCOPED = frozenset(
    {
        "enabled",
        "system_prompt",
        "model",
        "max_tokens",
        "provider",
        "follow_ups",
        "streaming",
        "guardrail",
        "images",
    }
)


def _policy(own: ScopeSettings, parent: Scope) -> PolicyOverride | None:
    if own.guardrail is None:
        return parent.policy
    g = own.guardrail
    mine = PolicyOverride(
        off=frozenset(g.entities_off),
        on=frozenset(g.entities_on),
        thresholds=tuple(sorted(g.thresholds.items())),
        reveal=tuple(sorted(_reveal(t, rule) for t, rule in g.reveal.items())),
        languages=tuple(dict.fromkeys(g.languages or ())),
    )
    return mine.over(parent.policy)


def _reveal(entity_type: str, rule: str | RevealPlaces) -> tuple[str, str | None, str | None]:
    if isinstance(rule, str):
        return (entity_type, rule, rule)
    return (entity_type, rule.shared, rule.private)
