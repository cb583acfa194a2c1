"""The config file (``VEILBOT_CONFIG``): a TOML file read into ``Settings``, each key's line known.

Its top-level keys are the settings' names (``max_tokens = 2048``, the variable without its
``VEILBOT_`` prefix); structured settings are tables (``[access]``, ``[rate_limits]``). A key
that no setting has is an error, not ignored, and every error names the file, the key and its
line. Environment variables (and ``.env``) win over the file, key by key.

``tomllib`` gives no positions, so ``key_lines`` indexes the lines of the keys itself: a small
scanner of headers and ``key =`` lines that skips multi-line strings and arrays.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel
from pydantic_settings import BaseSettings, DotEnvSettingsSource, EnvSettingsSource

from bot.core.errors import ConfigError

Loc = tuple[str | int, ...]

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_NOT_IN_FILE = frozenset({"config"})
"""Settings the file cannot set: where the file is."""


@dataclass(frozen=True)
class ConfigFile:
    """A parsed config file: its values and the line of every key."""

    path: Path
    values: dict[str, Any]
    lines: dict[Loc, int]

    def line_of(self, loc: Sequence[str | int]) -> int | None:
        """The line of ``loc``'s key, or of the nearest enclosing key written in the file."""
        for end in range(len(loc), 0, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return None

    def where(self, loc: Sequence[str | int]) -> str:
        """``path:line: key`` for an error message."""
        line = self.line_of(loc)
        at = f"{self.path}:{line}" if line is not None else str(self.path)
        return f"{at}: {dotted(loc)}"


def dotted(loc: Sequence[str | int]) -> str:
    """A key path as written in TOML: ``access.allow_users[2]``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = part if _BARE.fullmatch(part) else f'"{part}"'
            text += f".{name}" if text else name
    return text


def read_config_file(path: Path) -> ConfigFile:
    """Read and parse ``path``; ``ConfigError`` names the file (and the line of a syntax error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise ConfigError(f"{path}: cannot read the config file ({reason})") from None
    try:
        values = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(syntax_error(path, exc)) from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise ConfigError(f"{path}: arrays or tables nested too deeply") from None
    return ConfigFile(path=path, values=values, lines=key_lines(text))


_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def syntax_error(path: Path, exc: tomllib.TOMLDecodeError) -> str:
    """``path:line:column: not valid TOML: what``, as compilers and editors print it."""
    text = str(exc)
    at = _AT.search(text)
    if at is None:
        return f"{path}: not valid TOML: {text}"
    return f"{path}:{at[1]}:{at[2]}: not valid TOML: {text[: at.start()]}"


def suggestion(key: str, known: Sequence[str]) -> str:
    """`` (did you mean …?)`` for the known key closest to ``key``, or nothing."""
    close = difflib.get_close_matches(key.lower().removeprefix("veilbot_"), known, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def table_keys(model: type[BaseModel], loc: Sequence[str | int]) -> list[str]:
    """The keys the table at ``loc`` of ``model`` may hold (its model's fields), or none."""
    node: Any = model
    for part in loc:
        node = _unwrapped(node)
        if isinstance(node, type) and issubclass(node, BaseModel):
            field = node.model_fields.get(str(part))
            if field is None:
                return []
            node = field.annotation
        elif get_origin(node) is dict:
            node = get_args(node)[1]
        elif get_origin(node) in (list, tuple):
            node = get_args(node)[0]
        else:
            return []
    node = _unwrapped(node)
    return list(node.model_fields) if isinstance(node, type) and issubclass(node, BaseModel) else []


def _unwrapped(annotation: Any) -> Any:
    """The type inside ``Annotated[...]``, or the one model of ``X | None``."""
    if get_origin(annotation) is Annotated:
        return _unwrapped(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        models = [a for a in get_args(annotation) if isinstance(a, type) and a is not NoneType]
        return models[0] if len(models) == 1 else annotation
    return annotation


def unknown_keys(doc: ConfigFile, settings_cls: type[BaseSettings]) -> list[str]:
    """The top-level keys that name no setting, each with its line and a suggestion."""
    known = [name for name in settings_cls.model_fields if name not in _NOT_IN_FILE]
    problems = []
    for key in doc.values:
        if key in known:
            continue
        problems.append(f"{doc.where((key,))}: unknown setting{suggestion(key, known)}")
    return problems


def environment_fields(
    settings_cls: type[BaseSettings], env_file: object = ".env"
) -> dict[str, Any]:
    """The settings the environment and ``env_file`` set, by field name (the environment first)."""
    by_alias = _alias_fields(settings_cls)
    sources: list[EnvSettingsSource] = [EnvSettingsSource(settings_cls)]
    if isinstance(env_file, str | Path):
        sources.append(DotEnvSettingsSource(settings_cls, env_file=env_file))
    found: dict[str, Any] = {}
    for source in sources:
        for key, value in source().items():
            found.setdefault(by_alias.get(key, key), value)
    return found


def _alias_fields(settings_cls: type[BaseSettings]) -> dict[str, str]:
    names: dict[str, str] = {}
    for field, info in settings_cls.model_fields.items():
        if isinstance(info.validation_alias, AliasChoices):
            for choice in info.validation_alias.choices:
                if isinstance(choice, str):
                    names[choice] = field
    return names


def key_lines(text: str) -> dict[Loc, int]:
    """The 1-based line of every table header and key in a TOML document."""
    lines: dict[Loc, int] = {}
    table: Loc = ()
    counts: dict[Loc, int] = {}
    rows = iter(enumerate(text.splitlines(), start=1))
    for number, raw in rows:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = _header(line, counts)
            _record(lines, table, number)
            continue
        parts, rest = _key(line)
        if not parts:
            continue
        _record(lines, table + parts, number)
        _skip_continuation(rest, rows)
    return lines


def _record(lines: dict[Loc, int], loc: Loc, number: int) -> None:
    for end in range(1, len(loc) + 1):
        lines.setdefault(loc[:end], number)


def _header(line: str, counts: dict[Loc, int]) -> Loc:
    array = line.startswith("[[")
    parts, _ = _key(line[2:] if array else line[1:])
    if not array:
        return parts
    index = counts.get(parts, -1) + 1
    counts[parts] = index
    return (*parts, index)


def _key(text: str) -> tuple[tuple[str, ...], str]:
    """A (dotted, quoted) key at the start of ``text`` and what follows it."""
    parts: list[str] = []
    rest = text.lstrip()
    while rest:
        if rest[0] in "\"'":
            end = rest.find(rest[0], 1)
            while end > 0 and rest[0] == '"' and rest[end - 1] == "\\":
                end = rest.find('"', end + 1)
            if end < 0:
                return (), ""
            parts.append(rest[1:end])
            rest = rest[end + 1 :].lstrip()
        elif match := _BARE.match(rest):
            parts.append(match.group())
            rest = rest[match.end() :].lstrip()
        else:
            return (), ""
        if not rest.startswith("."):
            break
        rest = rest[1:].lstrip()
    return tuple(parts), rest


def _skip_continuation(rest: str, rows: Iterator[tuple[int, str]]) -> None:
    """Consume the lines a multi-line string or array that starts in ``rest`` goes on over."""
    value = rest.lstrip("=").strip()
    for quote in ('"""', "'''"):
        if value.startswith(quote) and value.count(quote) == 1:
            for _, raw in rows:
                if quote in raw:
                    return
            return
    depth = _depth(value)
    while depth > 0:
        row = next(rows, None)
        if row is None:
            return
        depth += _depth(row[1])


def _depth(text: str) -> int:
    """How many more brackets ``text`` opens than it closes, outside strings and comments."""
    depth = 0
    quote = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


def settings_from_file(
    doc: ConfigFile, settings_cls: type[BaseSettings], env: Mapping[str, Any]
) -> dict[str, Any]:
    """The file's settings that the environment does not set (the environment wins)."""
    known = settings_cls.model_fields.keys() - _NOT_IN_FILE
    return {key: value for key, value in doc.values.items() if key in known and key not in env}
