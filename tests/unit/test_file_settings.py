"""The limits and the images policy of attached files come from the environment and scopes,
and nonsense is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config.scopes import build_scopes
from bot.config.settings import Settings, load_settings
from bot.core.errors import InputRejected
from bot.core.scopes import SettingRow, effective_settings
from bot.files.limits import FileLimits


def test_the_defaults_are_20_mb_5_files_30_pages() -> None:
    settings = Settings()
    limits = FileLimits()
    assert (settings.files_max_bytes, settings.files_max_count, settings.files_max_pages) == (
        limits.max_bytes,
        limits.max_files,
        limits.max_pages,
    )
    assert (limits.max_bytes, limits.max_files, limits.max_pages) == (20 * 1024 * 1024, 5, 30)
    assert settings.files_max_chars == limits.max_chars == 100_000


def test_every_cap_the_settings_give_is_the_readers_own_default() -> None:
    """One figure per cap: the settings' defaults are the limits' defaults."""
    assert FileLimits.of(Settings()) == FileLimits()


def test_caps_set_in_the_environment_are_the_ones_enforced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VEILBOT_FILES_MAX_CELLS", "10")
    monkeypatch.setenv("VEILBOT_FILES_MAX_PIXELS", "2000000")
    monkeypatch.setenv("VEILBOT_FILES_MAX_MEMORY_MB", "200")
    monkeypatch.setenv("VEILBOT_FILES_MAX_SECONDS", "7.5")
    limits = FileLimits.of(Settings())
    with pytest.raises(InputRejected, match="File 2 has more than 10 cells; I read up to 10"):
        limits.check_elements(2, "cells", 11)
    with pytest.raises(InputRejected, match="File 1 is an image of more than 2 megapixels"):
        limits.check_pixels(1, 2_000_001, image=True)
    assert str(limits.too_big_to_read(1)).startswith("File 1 needs more than 200 MB of memory")
    assert str(limits.too_slow(3)).startswith("File 3 takes more than 7.5 s to read")


def test_limits_set_in_the_environment_are_the_ones_enforced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VEILBOT_FILES_MAX_BYTES", "1048576")
    monkeypatch.setenv("VEILBOT_FILES_MAX_COUNT", "2")
    monkeypatch.setenv("VEILBOT_FILES_MAX_PAGES", "3")
    settings = Settings()
    limits = FileLimits.of(settings)
    with pytest.raises(InputRejected, match=r"File 1 is 1\.5 MB; I read files up to 1\.0 MB"):
        limits.check_sizes([1536 * 1024])
    with pytest.raises(InputRejected, match="3 files; I read at most 2"):
        limits.check_count(3)
    with pytest.raises(InputRejected, match="4 pages; I read documents up to 3"):
        limits.check_pages(1, 4)


def test_a_count_of_zero_turns_files_off_with_its_own_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VEILBOT_FILES_MAX_COUNT", "0")
    limits = FileLimits.of(Settings())
    limits.check_count(0)  # a message without files is not refused
    with pytest.raises(InputRejected, match="Files are not read here") as caught:
        limits.check_count(1)
    assert caught.value.reason == "files_off"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("FILES_MAX_BYTES", "0"),
        ("FILES_MAX_COUNT", "-1"),
        ("FILES_MAX_PAGES", "many"),
        ("FILES_MAX_CHARS", "0"),
        ("FILES_MAX_CELLS", "0"),
        ("FILES_MAX_PIXELS", "lots"),
        ("FILES_MAX_MEMORY_MB", "8"),
        ("FILES_MAX_SECONDS", "0"),
        ("FILES_READERS", "0"),
    ],
)
def test_a_bad_limit_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(f"VEILBOT_{name}", value)
    with pytest.raises(ValidationError, match=name.lower()):
        Settings()


def test_the_images_policy_is_global_and_a_scope_s_wins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VEILBOT_FILES_IMAGES", "text-only")
    config = tmp_path / "veilbot.toml"
    config.write_text(
        '[scopes."slack:T1"]\nimages = "off"\n[scopes."slack:T1:C2"]\nimages = "redacted"\n'
        '[scopes."slack:T1:C3"]\nstreaming = false\n',
        encoding="utf-8",
    )
    scopes = build_scopes(load_settings(config_file=config, _env_file=None))
    assert scopes.top.images == "text-only"
    assert scopes.at("slack", "T9", "C1").images == "text-only"
    assert scopes.at("slack", "T1", "C1").images == "off"
    assert scopes.at("slack", "T1", "C2").images == "redacted"
    assert scopes.at("slack", "T1", "C3").images == "off", "a channel inherits its workspace's"
    rows = effective_settings(scopes.at("slack", "T1", "C3"), scopes.defaults)
    assert SettingRow("images", "off", "slack:T1") in rows


def test_a_bad_images_policy_is_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VEILBOT_FILES_IMAGES", "blurred")
    with pytest.raises(ValidationError, match="files_images"):
        Settings()
