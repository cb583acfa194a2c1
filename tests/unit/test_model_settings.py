"""Choosing the model provider, and refusing to start without what it needs, by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config.settings import Settings, load_settings
from bot.core.errors import ConfigError
from bot.model.bedrock import BedrockModelClient
from bot.model.build import build_model
from bot.model.claude import AnthropicModelClient
from bot.model.echo import EchoModelClient
from bot.model.openai_compat import OpenAIModelClient
from bot.model.vertex import VertexModelClient

AWS = {"aws_access_key_id": "AKIAVEILBOTTEST00001", "aws_secret_access_key": "s3cr3t/key"}


def settings(**values: Any) -> Settings:
    return Settings(**values)


@pytest.mark.parametrize(
    ("values", "kind", "model"),
    [
        ({}, EchoModelClient, "echo"),
        ({"anthropic_api_key": "sk-ant-x"}, AnthropicModelClient, "claude-sonnet-4-6"),
        ({"model_provider": "echo", "anthropic_api_key": "sk-ant-x"}, EchoModelClient, "echo"),
        (
            {"model_provider": "bedrock", "bedrock_region": "us-east-1", **AWS},
            BedrockModelClient,
            "global.anthropic.claude-sonnet-4-6",
        ),
        (
            {
                "model_provider": "vertex",
                "vertex_project_id": "p1",
                "vertex_access_token": "ya29.x",
            },
            VertexModelClient,
            "claude-sonnet-4-6",
        ),
        (
            {"model_provider": "openai", "openai_base_url": "http://llm:8000/v1", "model": "qwen3"},
            OpenAIModelClient,
            "qwen3",
        ),
    ],
)
async def test_the_provider_setting_picks_the_client(values, kind, model):
    client = build_model(settings(**values))
    assert type(client) is kind
    assert client.model == model
    await client.aclose()


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"model_provider": "anthropic"}, "ANTHROPIC_API_KEY"),
        ({"model_provider": "bedrock", **AWS}, "VEILBOT_BEDROCK_REGION"),
        (
            {
                "model_provider": "bedrock",
                "bedrock_region": "us-east-1",
                "aws_access_key_id": "AKIA1",
            },
            "AWS_SECRET_ACCESS_KEY",
        ),
        (
            {
                "model_provider": "bedrock",
                "bedrock_region": "eu-west-1",
                "aws_secret_access_key": "x1",
            },
            "AWS_ACCESS_KEY_ID",
        ),
        (
            {
                "model_provider": "bedrock",
                "bedrock_region": "eu-west-1",
                "bedrock_api_key": "k",
                **AWS,
            },
            "VEILBOT_BEDROCK_API_KEY",
        ),
        ({"model_provider": "vertex"}, "VEILBOT_VERTEX_PROJECT_ID"),
        (
            {
                "model_provider": "vertex",
                "vertex_project_id": "p",
                "vertex_credentials_file": "/nope",
            },
            "VEILBOT_VERTEX_CREDENTIALS_FILE",
        ),
        ({"model_provider": "openai", "model": "llama3"}, "VEILBOT_OPENAI_BASE_URL"),
        ({"model_provider": "openai", "openai_base_url": "http://x:1/v1"}, "VEILBOT_MODEL"),
        ({"model_price_input": 1.0}, "VEILBOT_MODEL_PRICE_OUTPUT"),
    ],
)
def test_missing_or_half_set_credentials_fail_with_the_variable_name(values, named):
    with pytest.raises(ConfigError, match=named) as info:
        build_model(settings(**values))
    for secret in ("s3cr3t", "sk-ant"):
        assert secret not in str(info.value)


def test_a_credentials_file_that_is_no_key_is_refused_by_name(tmp_path: Path):
    junk = tmp_path / "key.json"
    junk.write_text('{"private_key": "-----BEGIN nope"}')
    values = {"model_provider": "vertex", "vertex_project_id": "p", "vertex_credentials_file": junk}
    with pytest.raises(ConfigError, match="VEILBOT_VERTEX_CREDENTIALS_FILE") as info:
        build_model(settings(**values))
    assert "BEGIN" not in str(info.value)


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"VEILBOT_MODEL_PROVIDER": "azure"}, "VEILBOT_MODEL_PROVIDER"),
        ({"VEILBOT_OPENAI_BASE_URL": "ollama:11434"}, "VEILBOT_OPENAI_BASE_URL"),
        ({"VEILBOT_OPENAI_API_KEY": "changeme"}, "VEILBOT_OPENAI_API_KEY"),
        ({"AWS_SECRET_ACCESS_KEY": "changeme"}, "AWS_SECRET_ACCESS_KEY"),
        ({"VEILBOT_MODEL_PRICE_INPUT": "-1"}, "VEILBOT_MODEL_PRICE_INPUT"),
    ],
)
def test_malformed_settings_are_refused_by_name(monkeypatch, env, named):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=named) as info:
        load_settings(_env_file=None)
    assert "changeme" not in str(info.value)


def test_provider_variables_come_from_the_clouds_usual_names(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMENV000000001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "from/env/secret")
    monkeypatch.setenv("CLOUD_ML_REGION", "europe-west1")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj-env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-platform-key")  # never read: not ours
    s = load_settings(_env_file=None)
    assert (s.bedrock_region, s.aws_access_key_id) == ("eu-central-1", "AKIAFROMENV000000001")
    assert (s.vertex_region, s.vertex_project_id) == ("europe-west1", "proj-env")
    assert s.openai_api_key is None
    assert s.provider == "echo"  # cloud variables alone choose nothing


def test_a_missing_extra_is_named(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "boto3" else real(name, *a)
    )
    values = {"model_provider": "bedrock", "bedrock_region": "us-east-1", **AWS}
    with pytest.raises(ConfigError, match=r"pip install 'veilbot\[bedrock\]'"):
        build_model(settings(**values))


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ANTHROPIC_API_KEY": "changeme"}, "ANTHROPIC_API_KEY: is a placeholder value"),
        ({"VEILBOT_ANTHROPIC_API_KEY": "changeme"}, "VEILBOT_ANTHROPIC_API_KEY: is a placeholder"),
        ({"AWS_SECRET_ACCESS_KEY": "<your key>"}, "AWS_SECRET_ACCESS_KEY: is a placeholder value"),
        ({"VEILBOT_GUARDRAIL_WORKERS": "many"}, "VEILBOT_GUARDRAIL_WORKERS: Input should be"),
    ],
)
def test_the_error_names_the_variable_the_user_set(monkeypatch, env, message):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as info:
        load_settings(_env_file=None)
    assert str(info.value).startswith(f"invalid configuration: {message}")
