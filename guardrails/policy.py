r"""The guardrail policy: what is redacted, from which score, and what never or always is.

A policy is a YAML file (``VEILBOT_GUARDRAIL_POLICY_FILE``); without one, the shipped
``guardrails/data/default_policy.yaml`` applies. The file is validated with pydantic and every
error names the file and the key, never a value from it::

    version: 1
    default_threshold: 0.4
    entities:                     # types not listed are off
      PERSON: {threshold: 0.5}
      DATE_TIME: {enabled: false}
    allow_list: [Jira, Kubernetes]            # never redacted (case-insensitive, whole span)
    deny_list:                                # always redacted, as the given type
      - {value: Project Nightingale, type: CODENAME}
    recognizers:                              # extra regular expressions
      - {name: employee_id, type: EMPLOYEE_ID, pattern: 'EMP-\d{6}', score: 0.8,
         context: [employee, badge]}
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.core.errors import ConfigError
from bot.core.scopes import PolicyOverride
from guardrails.text.values import normalize_value

POLICY_SETTING = "VEILBOT_GUARDRAIL_POLICY_FILE"
_TYPE_PATTERN = r"^[A-Z][A-Z0-9_]{0,39}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EntityRule(_Strict):
    """Whether a type is redacted, and from which score (``None``: the default threshold)."""

    enabled: bool = True
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)


class DenyTerm(_Strict):
    """A term that is always redacted, as ``type``."""

    value: str = Field(min_length=1, max_length=200)
    type: str = Field(pattern=_TYPE_PATTERN)


class ExtraRecognizer(_Strict):
    """A regular expression that finds one entity type; context words raise its score."""

    name: str = Field(min_length=1, max_length=80)
    type: str = Field(pattern=_TYPE_PATTERN)
    pattern: str = Field(min_length=1, max_length=2000)
    score: float = Field(default=0.6, ge=0.0, le=1.0)
    context: tuple[str, ...] = ()

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error:
            raise ValueError("is not a valid regular expression") from None
        return value


class PolicyFile(_Strict):
    """The YAML document, as validated."""

    version: Literal[1] = 1
    default_threshold: float = Field(default=0.4, ge=0.0, le=1.0)
    entities: dict[str, EntityRule] = Field(default_factory=dict)
    allow_list: tuple[str, ...] = ()
    deny_list: tuple[DenyTerm, ...] = ()
    recognizers: tuple[ExtraRecognizer, ...] = ()

    @field_validator("entities")
    @classmethod
    def _type_names(cls, value: dict[str, EntityRule]) -> dict[str, EntityRule]:
        for name in value:
            if not re.fullmatch(_TYPE_PATTERN, name):
                raise ValueError("entity type names are [A-Z][A-Z0-9_]*")
        return value


@dataclass(frozen=True, eq=False)
class Policy:
    """A loaded policy, ready for detection (hashable by identity, so it can key caches).

    Attributes:
        enabled: entity types that are redacted.
        thresholds: the minimum score per enabled type.
        allow: normalized spans that are never redacted.
        deny: terms always redacted, with their type.
        recognizers: extra regular-expression recognizers.
        source: where the policy came from, for messages.
        language: the language of the messages it reads (a scope's override sets it per
            message); English patterns and rules run in every language, but for
            the accented-name pattern (``rules.names.ACCENTED_NAME``).
    """

    enabled: frozenset[str]
    thresholds: dict[str, float]
    allow: frozenset[str]
    deny: tuple[DenyTerm, ...]
    recognizers: tuple[ExtraRecognizer, ...]
    source: str
    language: str = "en"

    def threshold(self, entity_type: str) -> float:
        """The minimum score of a type (1.1 for a type that is off: nothing passes)."""
        return self.thresholds.get(entity_type, 1.1)

    def allows(self, span: str) -> bool:
        """Whether a detected span is on the allow list."""
        return normalize_value(span) in self.allow

    @property
    def min_threshold(self) -> float:
        """The lowest threshold of any enabled type."""
        return min(self.thresholds.values(), default=1.0)


@functools.lru_cache(maxsize=64)
def with_override(policy: Policy, override: PolicyOverride | None) -> Policy:
    """``policy`` with a scope's changes: types turned off or on, thresholds set.

    Cached, so each scope's policy is one object and its compiled detector is built once
    (detection caches detectors by policy) on the one analyzer every scope shares.
    """
    if override is None:
        return policy
    scores = dict(override.thresholds)
    enabled = (policy.enabled - override.off) | override.on
    default = min(policy.thresholds.values(), default=0.4)
    thresholds = {t: scores.get(t, policy.thresholds.get(t, default)) for t in enabled}
    return dataclasses.replace(
        policy,
        enabled=frozenset(enabled),
        thresholds=thresholds,
        source=f"{policy.source} with a scope's changes",
        language=override.language or policy.language,
    )


def compile_policy(document: PolicyFile, source: str) -> Policy:
    """Turn a validated document into a ``Policy``."""
    enabled = {n for n, rule in document.entities.items() if rule.enabled}
    enabled |= {t.type for t in document.deny_list} | {r.type for r in document.recognizers}
    thresholds = {name: _threshold(document, name) for name in enabled if name in document.entities}
    for name in enabled - thresholds.keys():
        thresholds[name] = document.default_threshold
    return Policy(
        enabled=frozenset(enabled),
        thresholds=thresholds,
        allow=frozenset(normalize_value(v) for v in document.allow_list),
        deny=document.deny_list,
        recognizers=document.recognizers,
        source=source,
    )


def _threshold(document: PolicyFile, name: str) -> float:
    rule = document.entities[name].threshold
    return document.default_threshold if rule is None else rule


def parse_policy(text: str, source: str) -> Policy:
    """Validate a policy document given as YAML text.

    Raises:
        ConfigError: the YAML is malformed or does not validate; the message names ``source``
            and the key (``entities.PERSON.threshold``), never a value.
    """
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"guardrail policy {source}: not valid YAML{where}") from None
    try:
        document = PolicyFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False)
        )
        raise ConfigError(f"guardrail policy {source}: {problems}") from None
    return compile_policy(document, source)


def load_policy(path: Path | None = None) -> Policy:
    """The policy in ``path``, or the shipped default.

    Raises:
        ConfigError: the file cannot be read or is invalid (see ``parse_policy``).
    """
    if path is None:
        text = resources.files("guardrails").joinpath("data/default_policy.yaml").read_text()
        return parse_policy(text, "default_policy.yaml")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read guardrail policy {path} (set {POLICY_SETTING})") from exc
    return parse_policy(text, str(path))


_DEFAULT: list[Policy] = []


def default_policy() -> Policy:
    """The shipped default policy, loaded once per process."""
    if not _DEFAULT:
        _DEFAULT.append(load_policy(None))
    return _DEFAULT[0]
