"""The README and docs/ say what the code does: commands that parse, variables that exist,
links that lead somewhere, and one vault-key recipe that makes a key veilbot accepts."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.cli.parser import build_parser
from guardrails.vault.keys import load_vault_key
from tests.fixtures.deploy import setting_variables

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
CONFIG_FILES = [
    ROOT / ".env.example",
    *sorted((ROOT / "deploy").rglob("*.y*ml")),
    *sorted((ROOT / "deploy").rglob("*.md")),
    *sorted((ROOT / "deploy").rglob("*.example")),
    ROOT / "deploy" / "Dockerfile",
]
# read by the test suite and the evaluation tool, not by the service
NOT_SETTINGS = {"VEILBOT_TEST_REDIS_URL", "VEILBOT_TEST_DATABASE_URL", "VEILBOT_EVAL_PEERS"}
NOT_SETTINGS |= {"VEILBOT_TEST_CHROMIUM", "VEILBOT_EXTRAS"}  # a browser path; a build argument


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def code_blocks(path: Path) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", text(path), flags=re.S)


def test_the_readme_reads_in_ten_minutes() -> None:
    assert len(text(README).splitlines()) <= 300


def test_the_readme_opens_with_the_two_commands_that_ci_runs() -> None:
    blocks = code_blocks(README)
    console = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/veilbot console\n"
    tests = (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' "
        "&& .venv/bin/python -m pytest\n"
    )
    assert blocks[:2] == [console, tests]
    assert ".venv/bin/python -m pytest" in text(ROOT / ".ci" / "run")


@pytest.mark.parametrize("path", PAGES + CONFIG_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_variable_named_is_one_veilbot_reads(path: Path) -> None:
    named = set(re.findall(r"\b(?:VEILBOT|ANTHROPIC)_[A-Z0-9_]*[A-Z0-9]\b", text(path)))
    # `VEILBOT_MODEL_PRICE_INPUT` and `_OUTPUT` style abbreviations are not variables
    unknown = named - setting_variables() - NOT_SETTINGS
    assert not unknown


def veilbot_commands() -> list[tuple[str, list[str]]]:
    found = []
    for page in PAGES:
        for block in code_blocks(page):
            for line in block.splitlines():
                line = line.split(" # ")[0].strip()
                match = re.search(r"(?:^|[|&;] *|\.venv/bin/)veilbot (.+)$", line)
                if not match or line.startswith(("$", "you>", "bot>")):
                    continue
                words = shlex.split(match.group(1).split(" | ")[0].split(" && ")[0])
                found.append((f"{page.name}: {line}", words))
    return found


@pytest.mark.parametrize(("where", "words"), veilbot_commands(), ids=lambda v: str(v)[:60])
def test_every_veilbot_command_in_the_docs_parses(where: str, words: list[str]) -> None:
    parser = build_parser()
    try:
        parser.parse_args(words)
    except SystemExit as exc:
        pytest.fail(f"{where}: exit {exc.code}")


def test_the_docs_show_the_commands_users_need() -> None:
    commands = {" ".join(w[:2]) for _, w in veilbot_commands()}
    assert {"console", "run slack", "audit export", "admin serve", "admin new-token"} <= commands


def anchors(path: Path) -> set[str]:
    found = set()
    for heading in re.findall(r"^#+ (.+)$", text(path), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading(path: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", text(path)):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), target
        if anchor:
            assert anchor in anchors(linked), target


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_user_docs_hold_no_development_history(path: Path) -> None:
    assert not re.search(r"\b[Ii]ssue \d+|\bA/B\b|\bsitting\b", text(path))


def recipes() -> list[tuple[str, str]]:
    found = []
    for path in PAGES + CONFIG_FILES:
        for line in text(path).splitlines():
            if "b64encode" in line:
                [code] = re.findall(r"-c ['\"](.+?b64encode.+?)['\"][`)]?", line) or [line]
                found.append((str(path.relative_to(ROOT)), code))
    return found


def test_there_is_a_recipe_in_the_readme_the_env_example_and_the_secret_example() -> None:
    where = {p for p, _ in recipes()}
    assert {"README.md", ".env.example", "deploy/k8s/secrets/common.env.example"} <= where


@pytest.mark.parametrize(("where", "code"), recipes(), ids=lambda v: str(v)[:40])
def test_every_vault_key_recipe_makes_a_key_veilbot_accepts(
    where: str, code: str, tmp_path: Path
) -> None:
    assert "urlsafe_b64encode" in code, where
    made = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    assert len(load_vault_key(SecretStr(made), tmp_path)) == 32
