"""deploy/k8s: every manifest is valid Kubernetes, locked down, and fits the app it runs.

The schemas are the ones ``kubernetes-validate`` ships in its wheel (offline). The settings
each workload gives veilbot are loaded by the real ``Settings``, and the probe paths are
checked against the routes of the real HTTP server those settings build.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bot.metrics import PrometheusMetrics
from bot.service import build_http, select_platforms
from bot.settings import load_settings
from guardrails.policy import parse_policy
from tests.fixtures.deploy import unknown_settings
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSIONS = ("1.29.0", "1.33.0")  # oldest supported and a current one
SECRET_VALUES = {
    "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
    "ANTHROPIC_API_KEY": "sk-ant-test-key",
    "VEILBOT_REDIS_URL": "redis://redis.example:6379/0",
    "VEILBOT_DATABASE_URL": "postgresql://veilbot:pw@db.example/veilbot",
    "VEILBOT_SLACK_BOT_TOKEN": "xoxb-test-token",
    "VEILBOT_SLACK_SIGNING_SECRET": "signing-secret-for-tests",
    "VEILBOT_DISCORD_TOKEN": "discord-token-for-tests",
    "VEILBOT_ADMIN_TOKENS": "",
}


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
KUSTOMIZATION = yaml.safe_load((K8S / "kustomization.yaml").read_text())
RESOURCES = {
    (d["kind"], d["metadata"]["name"]): d
    for name in KUSTOMIZATION["resources"]
    for d in documents(K8S / name)
}
WORKLOADS = [
    RESOURCES[("Deployment", "veilbot-slack")],
    RESOURCES[("StatefulSet", "veilbot-discord")],
]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_validates_against_the_kubernetes_schemas(path: Path, version: str) -> None:
    for document in documents(path):
        kubernetes_validate.validate(document, version, strict=True)


def test_the_strict_schemas_catch_a_misspelt_field() -> None:
    broken = documents(K8S / "slack-deployment.yaml")[0]
    container = broken["spec"]["template"]["spec"]["containers"][0]
    container["securityContext"]["readOnlyRootFS"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[0], strict=True)


def test_the_kustomization_lists_every_manifest_but_the_secret_example() -> None:
    listed = set(KUSTOMIZATION["resources"])
    assert listed == {p.name for p in MANIFESTS} - {"secret.example.yaml"}
    namespaced = [d for d in RESOURCES.values() if d["kind"] != "Namespace"]
    assert all("namespace" not in d["metadata"] for d in namespaced)  # set by kustomize


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def container_of(workload: dict[str, Any]) -> dict[str, Any]:
    [container] = pod_spec(workload)["containers"]
    return dict(container)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w["metadata"]["name"])
def test_pods_run_locked_down_with_sized_resources(workload: dict[str, Any]) -> None:
    pod, container = pod_spec(workload), container_of(workload)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] >= 1000
    assert pod["automountServiceAccountToken"] is False
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    # the read-only root leaves the data dir and /tmp writable, as emptyDirs
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes[mounts["/data"]]
    assert "emptyDir" in volumes[mounts["/tmp"]]
    resources = container["resources"]
    assert set(resources["requests"]) == set(resources["limits"]) == {"cpu", "memory"}
    # the sm model's ~370 MB service process must fit the request
    assert resources["requests"]["memory"].endswith("Mi")
    assert int(resources["requests"]["memory"][:-2]) >= 384


def settings_of(workload: dict[str, Any], monkeypatch: pytest.MonkeyPatch, pod_name: str) -> Any:
    """The Settings a pod of ``workload`` gets from its ConfigMap, env and Secret."""
    container = container_of(workload)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(RESOURCES[("ConfigMap", source["configMapRef"]["name"])]["data"])
    for item in container["env"]:
        if "value" in item:
            env[item["name"]] = item["value"]
            continue
        ref = item["valueFrom"]
        if "secretKeyRef" in ref:
            env[item["name"]] = SECRET_VALUES[ref["secretKeyRef"]["key"]]
        else:
            assert ref["fieldRef"]["fieldPath"] == "metadata.name"
            env[item["name"]] = pod_name
    for name in list(os.environ):
        if name.startswith("VEILBOT_"):
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(_env_file=None)


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w["metadata"]["name"])
def test_secrets_come_from_the_secret_and_every_variable_is_a_setting(
    workload: dict[str, Any],
) -> None:
    container = container_of(workload)
    for item in container["env"]:
        if any(w in item["name"] for w in ("KEY", "TOKEN", "SECRET", "_URL")):
            assert "secretKeyRef" in item.get("valueFrom", {}), item["name"]
            assert item["valueFrom"]["secretKeyRef"]["name"] == "veilbot"
    names = {item["name"] for item in container["env"]}
    names |= set(RESOURCES[("ConfigMap", "veilbot-config")]["data"])
    assert not unknown_settings(names)
    example = documents(K8S / "secret.example.yaml")[0]
    assert set(example["stringData"]) == set(SECRET_VALUES)


def probe_routes(settings: Any, platforms: list[str]) -> tuple[set[str], str, int]:
    """The paths, host and port of the HTTP server ``veilbot run`` builds from ``settings``."""
    stand_in = SimpleNamespace(
        settings=settings, audit=None, readiness=None, metrics=PrometheusMetrics()
    )
    http = build_http(stand_in, platforms)  # type: ignore[arg-type]
    paths = {r.canonical for r in http.app.router.resources()}
    return paths, http.host, http.port


def check_probes(container: dict[str, Any], paths: set[str], host: str, port: int) -> None:
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert host == "0.0.0.0"  # noqa: S104  (a pod must listen on its interface)
    for probe, path in (
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
        ("startupProbe", "/healthz"),
    ):
        get = container[probe]["httpGet"]
        assert get["path"] == path
        assert get["path"] in paths
        assert ports[get["port"]] == port
    assert "/metrics" in paths


def test_slack_deployment_serves_events_probes_and_metrics_on_its_port(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deployment = RESOURCES[("Deployment", "veilbot-slack")]
    container = container_of(deployment)
    assert deployment["spec"]["replicas"] >= 2
    assert container["args"] == ["run", "slack"]
    settings = settings_of(deployment, monkeypatch, "veilbot-slack-abc")
    assert select_platforms(settings, ["slack"]) == ["slack"]
    assert settings.slack_mode == "http"
    assert settings.guardrail_policy_file is not None
    paths, host, port = probe_routes(settings, ["slack"])
    check_probes(container, paths, host, port)

    labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= labels.items()
    service = RESOURCES[("Service", "veilbot-slack")]
    assert service["spec"]["selector"].items() <= labels.items()
    [service_port] = service["spec"]["ports"]
    assert service_port["targetPort"] == "http"
    pdb = RESOURCES[("PodDisruptionBudget", "veilbot-slack")]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = RESOURCES[("HorizontalPodAutoscaler", "veilbot-slack")]
    assert hpa["spec"]["scaleTargetRef"]["name"] == "veilbot-slack"
    assert hpa["spec"]["minReplicas"] >= 2
    ingress = RESOURCES[("Ingress", "veilbot-slack")]
    [rule] = ingress["spec"]["rules"]
    [route] = rule["http"]["paths"]
    assert route["path"] == settings.slack_http_path
    assert route["pathType"] == "Exact"  # probes, metrics and admin stay private
    assert route["backend"]["service"]["name"] == service["metadata"]["name"]


def test_discord_statefulset_runs_every_shard_once_from_the_pod_ordinals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    statefulset = RESOURCES[("StatefulSet", "veilbot-discord")]
    container = container_of(statefulset)
    assert container["args"] == ["run", "discord"]
    name, replicas = statefulset["metadata"]["name"], statefulset["spec"]["replicas"]
    shards: list[int] = []
    for ordinal in range(replicas):
        settings = settings_of(statefulset, monkeypatch, f"{name}-{ordinal}")
        assert select_platforms(settings, ["discord"]) == ["discord"]
        assert settings.discord_shard_count == replicas
        shards += settings.discord_shard_ids
    assert sorted(shards) == list(range(replicas))
    paths, host, port = probe_routes(settings, ["discord"])
    check_probes(container, paths, host, port)
    service = RESOURCES[("Service", statefulset["spec"]["serviceName"])]
    assert service["spec"]["clusterIP"] == "None"


def test_the_guardrail_policy_configmap_is_a_valid_policy_mounted_where_the_setting_points() -> (
    None
):
    policy = RESOURCES[("ConfigMap", "veilbot-guardrail-policy")]["data"]["policy.yaml"]
    parse_policy(policy, "veilbot-guardrail-policy")
    setting = RESOURCES[("ConfigMap", "veilbot-config")]["data"]["VEILBOT_GUARDRAIL_POLICY_FILE"]
    for workload in WORKLOADS:
        container = container_of(workload)
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod_spec(workload)["volumes"]}
        [volume] = [n for n, v in volumes.items() if "configMap" in v]
        assert volumes[volume]["configMap"]["name"] == "veilbot-guardrail-policy"
        assert setting == f"{mounts[volume]}/policy.yaml"


def test_the_image_runs_as_the_numeric_user_the_pods_require() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    users = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users == ["10001:10001"]
    for workload in WORKLOADS:
        context = pod_spec(workload)["securityContext"]
        assert f"{context['runAsUser']}:{context['runAsGroup']}" == users[0]
