"""docs/configuration.md is generated from ``Settings`` and must match it."""

from __future__ import annotations

import re
from pathlib import Path

from bot.cli.docs import NOTES, docstrings, main, render
from bot.config.settings import Settings
from tests.fixtures.deploy import setting_variables

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "configuration.md"


def test_the_page_is_what_the_settings_generate() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is out of date: python -m bot.cli.docs --write docs/configuration.md"
    )


def test_every_setting_has_a_description_and_every_note_a_setting() -> None:
    found = docstrings()
    undocumented = [n for n in Settings.model_fields if not (found.get(n) or NOTES.get(n))]
    assert not undocumented, (
        "describe these in bot/config/settings.py (a docstring after the field)"
    )
    assert set(NOTES) <= set(Settings.model_fields), "a note for a setting that is gone"


def test_every_variable_a_setting_reads_is_on_the_page_once() -> None:
    page = PAGE.read_text(encoding="utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    named = [v for row in rows for v in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split(" | ")[0])]
    assert sorted(named) == sorted(setting_variables())
    assert len(rows) == len(Settings.model_fields)


def test_a_changed_default_shows_on_the_page(monkeypatch) -> None:
    # the page follows the code: a setting whose default moves renders differently
    field = Settings.model_fields["queue_workers"]
    monkeypatch.setattr(field, "default", 7)
    assert "| `VEILBOT_QUEUE_WORKERS` | `7` |" in render()
    assert render() != PAGE.read_text(encoding="utf-8")


def test_write_regenerates_the_page(tmp_path: Path) -> None:
    target = tmp_path / "configuration.md"
    assert main(["--write", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == render()


def test_a_scope_s_keys_are_named_as_keys_not_as_environment_variables() -> None:
    row = next(line for line in render().splitlines() if line.startswith("| `VEILBOT_SCOPES`"))
    assert "`model`" in row
    assert "`max_tokens`" in row
    assert "`VEILBOT_MODEL`" not in row
    assert "`VEILBOT_MAX_TOKENS`" not in row
    assert "`VEILBOT_FILES_IMAGES`" in row  # a setting it refers to is still a variable
