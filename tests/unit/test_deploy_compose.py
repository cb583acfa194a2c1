"""deploy/compose.yml with the root's .env.example: `veilbot run` configured from one env file
for any provider and platform, on a port bound to 127.0.0.1, started once its stores are
healthy, restarted when it dies, and checked by a healthcheck on a path its server serves."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from bot.config.settings import Settings
from bot.metrics import PrometheusMetrics
from bot.platforms import select_platforms
from bot.service import build_http
from tests.fixtures.deploy import MOUNTED_CONFIG, settings_from, unknown_settings
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"


def services() -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    return found


def example(uncomment: str = "") -> dict[str, str]:
    """.env.example's settings, with the commented lines under ``uncomment``'s heading on."""
    found: dict[str, str] = {}
    section = ""
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.startswith("# ---"):
            section = line
        match = re.match(r"^(#\s)?([A-Z][A-Z0-9_]*)=(.*)$", line)
        if match and (not match.group(1) or (uncomment and uncomment in section)):
            found[match.group(2)] = match.group(3)
    return found


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default} and ${VAR:?error} from the --env-file."""

    def one(match: re.Match[str]) -> str:
        name, op, rest = match.group(1), match.group(2), match.group(3)
        if env.get(name):
            return env[name]
        assert op != ":?", f"compose stops: {rest}"
        return rest if op == ":-" else ""

    return re.sub(r"\$\{([A-Z_]+)(?:(:[-?])([^}]*))?\}", one, value)


def container_env(env_file: dict[str, str]) -> dict[str, str]:
    """The veilbot container's environment: the env_file, then `environment` over it."""
    veilbot = services()["veilbot"]
    env = {k: v for k, v in env_file.items() if v}
    env |= {k: interpolate(str(v), env_file) for k, v in veilbot["environment"].items()}
    return env


FILLED = {"POSTGRES_PASSWORD": "pw-for-tests", "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64}


def test_veilbot_reads_the_env_file_and_every_name_in_it_is_a_setting() -> None:
    veilbot = services()["veilbot"]
    assert veilbot["command"] == ["run"]
    assert veilbot["env_file"] == "../.env"  # beside .env.example, from deploy/
    named = set(example("")) | set(example("-")) | set(veilbot["environment"])
    assert not unknown_settings(named - {"POSTGRES_PASSWORD"})
    assert {"POSTGRES_PASSWORD", "VEILBOT_VAULT_KEY"} <= set(example())
    # every provider's credentials are in the example; none is required by the file
    for name in ("ANTHROPIC_API_KEY", "VEILBOT_BEDROCK_REGION", "VEILBOT_VERTEX_PROJECT_ID"):
        assert name in example("The model")
    assert not any(re.search(r"ANTHROPIC|TOKEN|SECRET|_KEY", k) for k in veilbot["environment"])
    assert veilbot["build"]["args"]["VEILBOT_EXTRAS"] == "providers"


@pytest.mark.parametrize(
    ("section", "provider"),
    [
        ("Anthropic's API", "anthropic"),
        ("Amazon Bedrock", "bedrock"),
        ("Google Vertex AI", "vertex"),
    ]
    + [("An OpenAI-compatible", "openai")],
)
def test_every_provider_works_from_the_env_file_alone(
    section: str, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = ENV_EXAMPLE.read_text()
    block = lines[lines.index(f"# {section}") :].split("\n\n")[0]
    env = {**example(""), **FILLED}
    for name, value in re.findall(r"^# ([A-Z][A-Z0-9_]*)=(.*)$", block, flags=re.M):
        env[name] = value or f"{name.lower()}-for-tests"
    env["VEILBOT_MODEL_PROVIDER"] = provider
    settings = settings_from(container_env(env), monkeypatch)
    assert settings.provider == provider
    assert settings.model_name


def served(settings: Settings) -> tuple[set[str], str, int]:
    stand_in = SimpleNamespace(
        settings=settings,
        audit=None,
        readiness=None,
        timings=None,
        metrics=PrometheusMetrics(),
        redis=None,
        eraser=None,
        ledger=None,
    )
    http = build_http(stand_in, select_platforms(settings, []))  # type: ignore[arg-type]
    return {r.canonical for r in http.app.router.resources()}, http.host, http.port


PLATFORMS = {
    "slack over HTTP": {"VEILBOT_SLACK_BOT_TOKEN": "xoxb-t", "VEILBOT_SLACK_SIGNING_SECRET": "s"},
    "slack in socket mode": {
        "VEILBOT_SLACK_BOT_TOKEN": "xoxb-t",
        "VEILBOT_SLACK_MODE": "socket",
        "VEILBOT_SLACK_APP_TOKEN": "xapp-t",
    },
    "discord": {"VEILBOT_DISCORD_TOKEN": "discord-token-for-tests"},
}


@pytest.mark.parametrize("platform", list(PLATFORMS))
def test_the_healthcheck_and_the_published_port_reach_the_server_in_every_mode(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {**example(""), **FILLED, **PLATFORMS[platform], "ANTHROPIC_API_KEY": "sk-ant-t"}
    settings = settings_from(container_env(env), monkeypatch)
    paths, host, port = served(settings)
    assert host == "0.0.0.0"  # noqa: S104  (reachable from the published port)
    veilbot = services()["veilbot"]
    [published] = veilbot["ports"]
    bind, outside, inside = published.split(":")
    assert bind == "127.0.0.1"  # not on every interface of the host
    assert int(inside) == port
    command = " ".join(veilbot["healthcheck"]["test"])
    [url] = re.findall(r"http://127\.0\.0\.1:(\d+)(/\w+)", command)
    assert (int(url[0]), url[1]) == (port, "/healthz")
    assert url[1] in paths
    assert "/metrics" in paths
    assert settings.redis_url == "redis://redis:6379/0"
    assert settings.database_url == "postgresql://veilbot:pw-for-tests@postgres/veilbot"


def test_veilbot_starts_after_healthy_stores_and_everything_restarts() -> None:
    found = services()
    assert found["veilbot"]["depends_on"] == {
        "redis": {"condition": "service_healthy"},
        "postgres": {"condition": "service_healthy"},
    }
    for name, service in found.items():
        assert service["restart"] == "unless-stopped", name
        check = service["healthcheck"]
        assert check["test"][0] in ("CMD", "CMD-SHELL"), name
        assert check["retries"] >= 3, name
        assert not any(
            ":" in p and not p.startswith("127.0.0.1:") for p in service.get("ports", [])
        )
    veilbot = found["veilbot"]
    assert veilbot["read_only"] is True
    assert "/tmp" in veilbot["tmpfs"]
    assert any(v.endswith(":/data") for v in veilbot["volumes"])


def test_a_veilbot_service_answers_what_is_queued() -> None:
    # `veilbot run` acks a Slack event once it is queued; with VEILBOT_QUEUE_WORKERS=0 in every
    # process, every event would be acked and none answered
    default = Settings.model_fields["queue_workers"].default
    answering = [
        name
        for name, service in services().items()
        if service.get("command", [None])[0] == "run"
        and int(service["environment"].get("VEILBOT_QUEUE_WORKERS", default)) > 0
    ]
    assert answering == ["veilbot"]


def test_the_build_context_leaves_out_the_virtualenv_git_data_and_secrets() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", ".env", "data", "*.sqlite", "vault.key"} <= set(ignored)
    assert "!.env.example" in ignored
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (?!--from)(\S+)", dockerfile, flags=re.M)
    for source in copied:  # what the image needs is not ignored
        assert source not in ignored
    assert dockerfile.count("\nFROM ") + dockerfile.startswith("FROM ") >= 2  # multi-stage
    assert "resolve_model('auto')" in dockerfile  # the build fails without the spaCy model


def test_the_image_can_read_screenshots_and_scanned_pages() -> None:
    # Without Tesseract in the running image every image and scanned page is refused.
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    runtime = dockerfile.rsplit("\nFROM ", 1)[1]
    installs = re.findall(r"apt-get install [^\n]*", runtime)
    assert any("tesseract-ocr" in line and "jbig2dec" in line for line in installs)


def test_the_example_config_file_is_mounted_where_veilbot_config_points() -> None:
    veilbot = services()["veilbot"]
    assert veilbot["environment"]["VEILBOT_CONFIG"] == MOUNTED_CONFIG
    sources = {v.split(":")[1]: v.split(":")[0] for v in veilbot["volumes"]}
    source = COMPOSE.parent / sources[MOUNTED_CONFIG]
    assert source.samefile(ROOT / "deploy" / "veilbot.example.toml")
