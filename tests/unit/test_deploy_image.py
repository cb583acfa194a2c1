"""deploy/Dockerfile installs what the code imports: every third-party module that bot/,
adapters/ and guardrails/ import is in a distribution the image's pip install brings in.

The imports are read from the source (absolute imports anywhere in a module, lazy ones in
functions too; an import inside ``try: … except ImportError`` is optional by design, and the
build scripts pyproject excludes from mypy never run in the image). The image's distributions
are what pyproject's dependencies and the extras named by the Dockerfile's ``pip install``
require, followed through each installed distribution's own requirements.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SHIPPED = ("bot", "adapters", "guardrails")
OPTIONAL = {"ImportError", "ModuleNotFoundError"}


def imported_modules(under: str | None = None) -> dict[str, set[str]]:
    """Third-party top-level modules the shipped code imports, each with where it does."""
    excluded = [ROOT / path for path in PYPROJECT["tool"]["mypy"]["exclude"]]
    found: dict[str, set[str]] = {}
    for package in SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if any(path.is_relative_to(ex) for ex in excluded):
                continue
            if under is not None and not relative.startswith(under):
                continue
            for module in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                if module not in sys.stdlib_module_names and module not in SHIPPED:
                    found.setdefault(module, set()).add(relative)
    return found


def _imports(tree: ast.Module) -> Iterator[str]:
    optional = {id(node) for node in _guarded(tree)}
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0]


def _guarded(tree: ast.Module) -> Iterator[ast.AST]:
    """Imports in the body of a ``try`` whose handlers catch a failed import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import(h) for h in node.handlers):
            for statement in node.body:
                yield from ast.walk(statement)


def _catches_import(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(kind, ast.Name) and kind.id in OPTIONAL for kind in kinds)


def dockerfile_extras(**build_args: str) -> set[str]:
    """The veilbot extras the Dockerfile's ``pip install`` names, with ``build_args`` set."""
    text = DOCKERFILE.read_text()
    args = dict(re.findall(r"^ARG (\w+)=(.*)$", text, re.MULTILINE))
    args.update(build_args)
    (spec,) = re.findall(r'pip install "(\.[^"]*)"', text)

    def alternate(match: re.Match[str]) -> str:  # ${NAME:+word}: word when NAME is set
        return _expand(match.group(2), args) if args.get(match.group(1)) else ""

    spec = _expand(re.sub(r"\$\{(\w+):\+([^}]*)\}", alternate, spec), args)
    extras = re.fullmatch(r"\.(?:\[([^\]]*)\])?", spec)
    assert extras is not None, f"not an install of the project: {spec}"
    return {e.strip() for e in (extras.group(1) or "").split(",") if e.strip()}


def _expand(word: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), word)


def installed_by(extras: Iterable[str]) -> set[str]:
    """Every distribution ``pip install .[extras]`` brings in, by canonical name."""
    stack = [Requirement(f"veilbot[{','.join(sorted(extras))}]")]
    seen: set[tuple[str, frozenset[str]]] = set()
    found: set[str] = set()
    while stack:
        requirement = stack.pop()
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        if name == "veilbot":
            stack += _own(requirement.extras)
            continue
        found.add(name)
        stack += _requires(name, requirement.extras)
    return found


def _own(extras: Iterable[str]) -> list[Requirement]:
    project = PYPROJECT["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def _requires(name: str, extras: Iterable[str]) -> list[Requirement]:
    """What an installed distribution requires, for the given extras (or none)."""
    try:
        lines = importlib.metadata.requires(name) or []
    except importlib.metadata.PackageNotFoundError:
        return []
    wanted = [*extras] or [""]
    needed = []
    for line in lines:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": extra}) for extra in wanted):
            needed.append(requirement)
    return needed


def missing(modules: dict[str, set[str]], installed: set[str]) -> dict[str, set[str]]:
    """The modules no installed distribution provides, with where they are imported."""
    providers = importlib.metadata.packages_distributions()
    return {
        module: where
        for module, where in modules.items()
        if not {canonicalize_name(d) for d in providers.get(module, [])} & installed
    }


def test_the_image_installs_every_module_the_code_imports() -> None:
    extras = dockerfile_extras()
    assert missing(imported_modules(), installed_by(extras)) == {}, extras


def test_the_compose_build_installs_every_module_the_code_imports() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yml").read_text())
    args = compose["services"]["veilbot"]["build"]["args"]
    extras = dockerfile_extras(**args)
    assert missing(imported_modules(), installed_by(extras)) == {}, extras


def test_an_image_built_for_anthropic_only_still_reads_files() -> None:
    extras = dockerfile_extras(VEILBOT_EXTRAS="")
    assert missing(imported_modules("bot/files/"), installed_by(extras)) == {}, extras


@pytest.mark.parametrize(
    ("module", "extra"), [("cv2", "files"), ("pytesseract", "files"), ("openai", "openai")]
)
def test_the_check_sees_a_module_only_an_extra_brings(module: str, extra: str) -> None:
    """Without the extra the module is missing, so the tests above would fail for it."""
    imported = imported_modules()
    assert module in imported
    assert module in missing(imported, installed_by([]))
    assert module not in missing(imported, installed_by([extra]))
