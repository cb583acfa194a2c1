"""The config file: real TOML files on disk, good and bad, read into the same ``Settings``.

Every bad key is named with its file and line; an unknown key is an error; the environment
wins over the file; ``veilbot config check`` validates a file and prints the effective
settings with secrets hidden.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.config.file import key_lines
from bot.config.settings import Settings, load_settings
from bot.core.errors import ConfigError
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "veilbot.example.toml"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("VEILBOT_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no developer's .env


def write(tmp_path: Path, text: str, name: str = "veilbot.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(config_file=path)
    return str(caught.value)


GOOD = """\
# a comment
max_tokens = 2048
system_prompt_extra = '''
Answer briefly.
'''
slack_streaming = "off"
discord_shard_count = 4
discord_shard_ids = [
  2,
  3,
]

[reveal_policy]
CREDIT_CARD = "restore"
US_SSN = { shared = "mask", private = "restore" }
"""


def test_a_good_file_sets_the_settings_it_names(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    settings = load_settings(config_file=path)
    assert settings.max_tokens == 2048
    assert settings.system_prompt_extra == "Answer briefly.\n"
    assert settings.slack_streaming == "off"
    assert settings.discord_shard_ids == [2, 3]
    assert settings.reveal_policy["US_SSN"] == {"shared": "mask", "private": "restore"}
    assert settings.config == path
    assert settings.temperature == Settings.model_fields["temperature"].default


def test_veilbot_config_names_the_file_and_the_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEILBOT_CONFIG", str(write(tmp_path, GOOD)))
    monkeypatch.setenv("VEILBOT_MAX_TOKENS", "100")
    settings = load_settings()
    assert settings.max_tokens == 100  # the environment
    assert settings.slack_streaming == "off"  # the file


def test_a_dotenv_setting_wins_over_the_file_too(tmp_path: Path) -> None:
    write(tmp_path, f"VEILBOT_CONFIG={write(tmp_path, GOOD)}\nVEILBOT_MAX_TOKENS=99\n", ".env")
    settings = load_settings()
    assert (settings.max_tokens, settings.slack_streaming) == (99, "off")


def test_a_bad_value_in_the_environment_is_not_blamed_on_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VEILBOT_MAX_TOKENS", "0")
    message = error_of(write(tmp_path, GOOD))
    assert "VEILBOT_MAX_TOKENS" in message
    assert "veilbot.toml:2" not in message


BAD = """\
max_tokens = 0
system_prompt_extra = \"\"\"
several lines
max_tokens = 5
\"\"\"
mx_tokens = 3
slack_mode = "htp"
discord_shard_ids = [
  1,
  "x",
]
"quoted.key" = 1

[redis]
url = "redis://x"

[reveal_policy]
CREDIT_CARD = { shared = 5 }
"""


def test_every_bad_key_is_named_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    message = error_of(path)
    expected = [
        f"{path}:1: max_tokens: Input should be greater than or equal to 1",
        f"{path}:6: mx_tokens: unknown setting (did you mean max_tokens?)",
        f"{path}:7: slack_mode: Input should be 'http' or 'socket'",
        f"{path}:8: discord_shard_ids[1]: Input should be a valid integer",
        f'{path}:12: "quoted.key": unknown setting',
        f"{path}:14: redis: unknown setting (did you mean redis_url?)",
        f"{path}:18: reveal_policy.CREDIT_CARD",
    ]
    for problem in expected:
        assert problem in message
    assert message.count(str(path)) == len(expected) + 1  # CREDIT_CARD: str or dict, both wrong


def test_an_unknown_key_is_an_error_even_when_all_else_is_good(tmp_path: Path) -> None:
    path = write(tmp_path, "max_tokens = 10\nVEILBOT_TEMPERATURE = 0.1\n")
    assert error_of(path) == (
        f"invalid configuration: {path}:2: VEILBOT_TEMPERATURE: unknown setting "
        "(did you mean temperature?)"
    )


def test_the_file_cannot_name_another_config_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'config = "other.toml"\n')
    assert f"{path}:1: config: unknown setting" in error_of(path)


def test_a_syntax_error_gives_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "max_tokens = 10\nslack_mode = http\n")
    message = error_of(path)
    assert message.startswith(f"{path}:2:14: not valid TOML: ")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    assert error_of(path) == f"{path}: cannot read the config file (No such file or directory)"


def test_the_line_index_follows_tables_quoted_keys_and_arrays_of_tables() -> None:
    text = (
        'a = "x = 1"\n'
        "[t]\n"
        'b.c = [1, "]", \n'
        "  2]\n"
        "'d.e' = 1\n"
        "[[arr]]\n"
        "f = 1\n"
        "[[arr]]\n"
        "f = 2\n"
        '[s."slack:T1:C1"]\n'
        "g = { h = 1 }\n"
    )
    lines = key_lines(text)
    assert lines[("a",)] == 1
    assert lines[("t", "b", "c")] == 3
    assert lines[("t", "d.e")] == 5
    assert (lines[("arr", 0, "f")], lines[("arr", 1, "f")]) == (7, 9)
    assert lines[("s", "slack:T1:C1", "g")] == 11


def test_config_check_prints_the_effective_settings_with_secrets_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f'vault_key = "{TEST_VAULT_KEY_B64}"\n' + GOOD)
    monkeypatch.setenv("VEILBOT_TEMPERATURE", "0.7")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-looking-key")
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"# {path}: valid" in out
    assert "max_tokens = 2048  # file" in out
    assert "temperature = 0.7  # env" in out
    assert "history_max_messages = 200  # default" in out
    assert 'vault_key = "<hidden>"  # file' in out
    assert 'anthropic_api_key = "<hidden>"  # env' in out
    assert TEST_VAULT_KEY_B64 not in out
    assert "sk-ant-real-looking-key" not in out


def test_config_check_hides_the_passwords_in_store_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, f'vault_key = "{TEST_VAULT_KEY_B64}"\n' + GOOD)
    monkeypatch.setenv("VEILBOT_REDIS_URL", "redis://:s3cretpw@redis.internal:6379/0")
    monkeypatch.setenv("VEILBOT_DATABASE_URL", "postgresql://veilbot:dbpw@db.internal/veilbot")
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "s3cretpw" not in out
    assert "dbpw" not in out
    assert 'redis_url = "redis://:<hidden>@redis.internal:6379/0"  # env' in out
    assert 'database_url = "postgresql://veilbot:<hidden>@db.internal/veilbot"  # env' in out


def test_config_check_refuses_a_bad_file_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BAD)
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:6: mx_tokens: unknown setting" in err


def test_config_check_without_a_file_reads_veilbot_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VEILBOT_CONFIG", str(write(tmp_path, GOOD)))
    assert main(["config", "check"]) == 0
    assert 'slack_streaming = "off"  # file' in capsys.readouterr().out


def test_the_shipped_example_is_valid_and_sets_only_what_it_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["config", "check", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "max_tokens = 1024  # file" in out
    settings = load_settings(config_file=EXAMPLE)
    assert settings.system_prompt_extra.strip().startswith("Answer in the language")


def test_bad_scopes_and_tables_are_named_with_their_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "[access]\n"
        "allow_user = ['U1']\n"
        "\n"
        '[scopes."slack:T1:C2"]\n'
        "max_tokens = 0\n"
        "provider = 'bedrok'\n"
        '[scopes."slack T1"]\n'
        "enabled = true\n"
        "[rate_limits]\n"
        "user = { turns = 0, per_seconds = 60 }\n",
    )
    message = error_of(path)
    for problem in (
        f"{path}:2: access.allow_user: unknown setting (did you mean allow_users?)",
        f'{path}:5: scopes."slack:T1:C2".max_tokens: Input should be greater than or equal',
        f"{path}:6: scopes.\"slack:T1:C2\".provider: Input should be 'anthropic', 'bedrock'",
        f'{path}:7: scopes."slack T1"',
        f"{path}:10: rate_limits.user.turns: Input should be greater than or equal to 1",
    ):
        assert problem in message


def test_a_scope_s_guardrail_changes_are_checked_with_their_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[scopes."slack:T1:C2".guardrail]\n'
        'entities_off = ["EMAIL_ADDRESS", "email"]\n'
        "thresholds = { PERSON = 1.5 }\n"
        '[scopes."slack:T1:C3".guardrail]\n'
        'entities_on = ["URL"]\n'
        'entities_off = ["URL"]\n'
        '[scopes."slack:T1:C4".guardrail]\n'
        "treshold = 0.5\n",
    )
    message = error_of(path)
    for problem in (
        f'{path}:2: scopes."slack:T1:C2".guardrail.entities_off[1]: String should match pattern',
        f'{path}:3: scopes."slack:T1:C2".guardrail.thresholds.PERSON: Input should be less than',
        f'{path}:4: scopes."slack:T1:C3".guardrail: entity types both on and off: URL',
        f'{path}:8: scopes."slack:T1:C4".guardrail.treshold: unknown setting '
        "(did you mean thresholds?)",
    ):
        assert problem in message


@pytest.mark.parametrize(
    "value",
    ["[" * 100_000 + "]" * 100_000, "{ a = " * 5_000 + "1" + " }" * 5_000],
    ids=["arrays", "inline tables"],
)
def test_a_value_nested_too_deeply_is_a_config_error_and_config_check_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    path = write(tmp_path, f"max_tokens = 900\nrate_limits = {value}\n")
    message = error_of(path)
    assert str(path) in message
    assert "nested too deeply" in message
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err
    assert "Traceback" not in err
    assert len(err.splitlines()) <= 3


def test_an_unknown_key_in_a_scope_gets_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, '[scopes."slack:T1"]\nmodle = "claude-x"\n[budgets]\nuser_used = 5\n')
    message = error_of(path)
    assert f'{path}:2: scopes."slack:T1".modle: unknown setting (did you mean model?)' in message
    assert f"{path}:4: budgets.user_used: unknown setting (did you mean user_usd?)" in message


def test_config_check_lists_several_errors_one_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BAD)
    assert main(["config", "check", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "veilbot: configuration error: invalid configuration:"
    assert f"  {path}:1: max_tokens: Input should be greater than or equal to 1" in lines
    assert f"  {path}:6: mx_tokens: unknown setting (did you mean max_tokens?)" in lines
    assert len(lines) == 9


def test_config_check_prints_what_can_be_pasted_back_and_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, GOOD + "[rate_limits]\nuser = { turns = 5, per_seconds = 60 }\n")
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f'# config = "{path}"  # the file checked' in out
    assert "# default" not in out.split(f'config = "{path}"')[1].splitlines()[0]

    pasted = write(tmp_path, out, "pasted.toml")
    again = load_settings(config_file=pasted)
    original = load_settings(config_file=path)
    assert again.model_dump(exclude={"config"}) == original.model_dump(exclude={"config"})


def test_a_scope_s_languages_are_checked_and_inherited(tmp_path: Path) -> None:
    from bot.config.scopes import build_scopes
    from bot.config.settings import load_settings

    bad = write(tmp_path, '[scopes."slack:T1".guardrail]\nlanguages = ["de", "klingon"]\n')
    assert f'{bad}:2: scopes."slack:T1".guardrail.languages[1]: Input should be' in error_of(bad)
    good = write(
        tmp_path,
        '[scopes."slack:T1".guardrail]\nlanguages = ["de", "fr", "de"]\n'
        '[scopes."slack:T1:C2".guardrail]\nentities_off = ["URL"]\n'
        '[scopes."slack:T1:C3".guardrail]\nlanguages = ["pl"]\n',
    )
    scopes = build_scopes(load_settings(config_file=good, _env_file=None))
    policy = scopes.by_id["slack:T1:C2"].policy
    assert policy is not None
    assert policy.languages == ("de", "fr")
    assert "languages: de, fr" in policy.describe()
    c3 = scopes.by_id["slack:T1:C3"].policy
    assert c3 is not None
    assert c3.languages == ("pl",)
