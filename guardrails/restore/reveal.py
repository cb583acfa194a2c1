"""The reveal policy: what the people in a thread see in place of each placeholder.

Per entity type and per place, one of three actions:

```
restore       the real value                        "4111 1111 1111 1111"
mask          a recognisable but partial form       "•••• 1111"
placeholder   the placeholder itself                "<CREDIT_CARD_1>"
```

A place is ``private`` (a direct message: only the person who wrote the value reads it) or
``shared`` (a channel or a thread others can read). By default cards, SSNs, IBANs, crypto
addresses, passwords and API keys are masked in shared places and restored in private ones;
everything else is restored everywhere. ``USER`` (platform mentions) is always restored, so a
mention still notifies. Settings override the defaults per type with ``VEILBOT_REVEAL_POLICY``,
a JSON object: ``{"PHONE_NUMBER": "mask", "CREDIT_CARD": {"shared": "placeholder"}}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal, get_args

from bot.core.errors import ConfigError
from guardrails.restore.placeholders import TYPED

Action = Literal["restore", "mask", "placeholder"]
Place = Literal["shared", "private"]
ACTIONS: Final = frozenset(get_args(Action))
POLICY_SETTING: Final = "VEILBOT_REVEAL_POLICY"
DOT: Final = "\u2022"
ELLIPSIS: Final = "\u2026"


@dataclass(frozen=True, slots=True)
class Rule:
    """What one entity type shows in shared and in private places."""

    shared: Action = "restore"
    private: Action = "restore"

    def action(self, place: Place) -> Action:
        """The action for a place."""
        return self.private if place == "private" else self.shared


_SENSITIVE = Rule(shared="mask", private="restore")
DEFAULT_RULES: Final[Mapping[str, Rule]] = {
    "CREDIT_CARD": _SENSITIVE,
    "US_SSN": _SENSITIVE,
    "IBAN_CODE": _SENSITIVE,
    "CRYPTO": _SENSITIVE,
    "PASSWORD": _SENSITIVE,
    "SECRET": _SENSITIVE,
}
ALWAYS_RESTORED: Final = frozenset({"USER", TYPED})


def _alnum(value: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", value)


def _last4(value: str) -> str:
    return _alnum(value)[-4:]


def mask_card(value: str) -> str:
    """``4111 1111 1111 1111`` -> ``•••• 1111``."""
    return f"{DOT * 4} {_last4(value)}"


def mask_iban(value: str) -> str:
    """``DE89 3704 0044 0532 0130 00`` -> ``DE•• •••• 3000`` (country, last 4)."""
    compact = _alnum(value).upper()
    return f"{compact[:2]}{DOT * 2} {DOT * 4} {compact[-4:]}"


def mask_ssn(value: str) -> str:
    """``123-45-6789`` -> ``•••-••-6789``."""
    return f"{DOT * 3}-{DOT * 2}-{_last4(value)}"


def mask_crypto(value: str) -> str:
    """A wallet address: its first 6 and last 4 characters (``bc1qar…5mdq``)."""
    compact = value.strip()
    return f"{compact[:6]}{ELLIPSIS}{compact[-4:]}"


def mask_email(value: str) -> str:
    """``jane.doe@example.com`` -> ``j•••@example.com``."""
    local, _, domain = value.strip().partition("@")
    return f"{local[:1]}{DOT * 3}@{domain}" if domain else mask_generic(value)


def mask_phone(value: str) -> str:
    """``+1 415 555 0123`` -> ``••• 0123``."""
    return f"{DOT * 3} {_last4(value)}"


def mask_password(value: str) -> str:
    """Eight dots, whatever the password: not even its length is shown."""
    return DOT * 8


def mask_secret(value: str) -> str:
    """A key or token: its first four characters, which name its provider (``ghp_••••``)."""
    return f"{value.strip()[:4]}{DOT * 4}"


def mask_generic(value: str) -> str:
    """First character and dots (``Maria Gonzalez`` -> ``M•••``); never more than that."""
    stripped = value.strip()
    return f"{stripped[:1]}{DOT * 3}" if len(stripped) > 3 else DOT * 3


MASKS: Final[Mapping[str, Callable[[str], str]]] = {
    "CREDIT_CARD": mask_card,
    "US_BANK_NUMBER": mask_card,
    "ID_NUMBER": mask_card,
    "IBAN_CODE": mask_iban,
    "US_SSN": mask_ssn,
    "CRYPTO": mask_crypto,
    "EMAIL_ADDRESS": mask_email,
    "PHONE_NUMBER": mask_phone,
    "PASSWORD": mask_password,
    "SECRET": mask_secret,
}


class RevealPolicy:
    """Decides, per entity type and place, what replaces a placeholder for the reader.

    Args:
        overrides: per-type rules replacing the defaults; an action string applies to both
            places, a mapping may name ``shared`` and/or ``private``.

    Raises:
        ConfigError: an unknown action or place (the message names ``VEILBOT_REVEAL_POLICY``).
    """

    def __init__(self, overrides: Mapping[str, object] | None = None) -> None:
        self._rules = dict(DEFAULT_RULES)
        for entity_type, spec in (overrides or {}).items():
            self._rules[entity_type.upper()] = _rule(entity_type, spec)

    def updated(self, overrides: Mapping[str, object]) -> RevealPolicy:
        """This policy with more per-type rules on top (a scope's)."""
        policy = RevealPolicy()
        policy._rules = dict(self._rules)
        for entity_type, spec in overrides.items():
            policy._rules[entity_type.upper()] = _rule(entity_type, spec)
        return policy

    def action(self, entity_type: str, *, private: bool) -> Action:
        """The action for a type in a private (DM) or shared place."""
        if entity_type in ALWAYS_RESTORED:
            return "restore"
        rule = self._rules.get(entity_type, Rule())
        return rule.action("private" if private else "shared")

    def render(self, placeholder: str, entity_type: str, value: str, *, private: bool) -> str:
        """What the reader sees for one placeholder of this thread."""
        action = self.action(entity_type, private=private)
        if action == "restore":
            return value
        if action == "mask":
            return MASKS.get(entity_type, mask_generic)(value)
        return placeholder


class Revealed(Mapping[str, str]):
    """What a reveal policy shows for each placeholder of a thread, rendered when first read.

    Args:
        values: placeholder to entity type and value; read only for the placeholders asked
            for (an answer uses a few of an old thread's many).
        policy: the reveal policy.
        private: whether the place is a direct message.
    """

    def __init__(
        self, values: Mapping[str, tuple[str, str]], policy: RevealPolicy, *, private: bool
    ) -> None:
        self._values = values
        self._policy = policy
        self._private = private
        self._shown: dict[str, str] = {}

    def __getitem__(self, placeholder: str) -> str:
        shown = self._shown.get(placeholder)
        if shown is None:
            entity_type, value = self._values[placeholder]
            shown = self._policy.render(placeholder, entity_type, value, private=self._private)
            self._shown[placeholder] = shown
        return shown

    def __contains__(self, placeholder: object) -> bool:
        return placeholder in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _check(entity_type: str, action: object) -> Action:
    if action not in ACTIONS:
        raise ConfigError(
            f"{POLICY_SETTING}: {entity_type} has an unknown action; use one of "
            f"{', '.join(sorted(ACTIONS))}"
        )
    return action  # type: ignore[return-value]


def _rule(entity_type: str, spec: object) -> Rule:
    if isinstance(spec, str):
        action = _check(entity_type, spec)
        return Rule(shared=action, private=action)
    if isinstance(spec, Mapping) and set(spec) <= {"shared", "private"}:
        base = DEFAULT_RULES.get(entity_type.upper(), Rule())
        return Rule(
            shared=_check(entity_type, spec.get("shared", base.shared)),
            private=_check(entity_type, spec.get("private", base.private)),
        )
    raise ConfigError(
        f"{POLICY_SETTING}: {entity_type} must be an action or an object with "
        "'shared' and/or 'private'"
    )
