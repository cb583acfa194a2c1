"""deploy/k8s: every manifest is valid Kubernetes, locked down, and fits the app it runs.

The schemas are the ones ``kubernetes-validate`` ships in its wheel (offline). The settings
each workload gives veilbot are loaded by the real ``Settings``, and the probe paths are
checked against the routes of the real HTTP server those settings build.

Slack runs as two tiers (the README, "Slack" and "Deploying"): ingress pods with
``VEILBOT_QUEUE_WORKERS=0`` take every request from the Ingress and only ack and queue, and
worker pods answer from the queue. Which pods a route reaches is worked out the way
Kubernetes does it: the Ingress names a Service, whose selector picks the pods whose labels
it matches.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import kubernetes_validate
import pytest
import yaml
from pydantic import SecretStr

from bot.metrics import PrometheusMetrics
from bot.service import build_http, select_platforms
from bot.settings import load_settings
from guardrails.policy import parse_policy
from guardrails.vaultkey import load_vault_key
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
WORKLOADS = [d for (kind, _), d in RESOURCES.items() if kind in ("Deployment", "StatefulSet")]


def name_of(resource: dict[str, Any]) -> str:
    name: str = resource["metadata"]["name"]
    return name


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


def test_every_platform_runs_in_the_kustomization() -> None:
    commands = sorted(container_of(w)["args"] for w in WORKLOADS)
    # Slack twice: the ingress tier and the worker tier
    assert commands == [["run", "discord"], ["run", "slack"], ["run", "slack"]]


@pytest.mark.parametrize("workload", WORKLOADS, ids=name_of)
def test_pods_run_locked_down_with_sized_resources(workload: dict[str, Any]) -> None:
    pod, container = pod_spec(workload), container_of(workload)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] >= 1000
    assert pod["automountServiceAccountToken"] is False
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    # kubelet restarts a hung pod and takes an unready one out of its Services
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["startupProbe"]["httpGet"]["path"] == "/healthz"
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


@pytest.mark.parametrize("workload", WORKLOADS, ids=name_of)
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
        settings=settings,
        audit=None,
        redis=None,
        eraser=None,
        readiness=None,
        metrics=PrometheusMetrics(),
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


@pytest.mark.parametrize("workload", WORKLOADS, ids=name_of)
def test_every_pod_serves_its_probes_and_metrics_on_its_port(
    workload: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    container = container_of(workload)
    settings = settings_of(workload, monkeypatch, f"{name_of(workload)}-0")
    names = select_platforms(settings, container["args"][1:])
    assert settings.guardrail_policy_file is not None
    paths, host, port = probe_routes(settings, names)
    check_probes(container, paths, host, port)
    annotations = workload["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert int(annotations["prometheus.io/port"]) == port


def selected(selector: dict[str, str], kinds: tuple[str, ...] = ("Deployment",)) -> list[str]:
    """The workloads whose pods a label selector picks, by name."""
    return [
        name_of(w)
        for w in WORKLOADS
        if w["kind"] in kinds
        and selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()
    ]


SLACK = [w for w in WORKLOADS if container_of(w)["args"] == ["run", "slack"]]


def slack_tiers(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Each Slack Deployment's settings, by name."""
    return {name_of(w): settings_of(w, monkeypatch, f"{name_of(w)}-abc") for w in SLACK}


def routes() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every path of every Ingress, with the Service it sends requests to."""
    found = []
    for (kind, _), ingress in RESOURCES.items():
        if kind != "Ingress":
            continue
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                found.append((path, RESOURCES[("Service", path["backend"]["service"]["name"])]))
    return found


def test_the_ingress_sends_slack_only_to_pods_that_ack_and_queue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tiers = slack_tiers(monkeypatch)
    [(route, service)] = routes()
    backends = selected(service["spec"]["selector"])
    assert backends == ["veilbot-slack-ingress"]
    for name in backends:
        settings = tiers[name]
        assert select_platforms(settings, ["slack"]) == ["slack"]
        assert settings.slack_mode == "http"
        # acked once queued, answered elsewhere: no turn ever runs beside an ack
        assert settings.queue_enabled is True
        assert settings.queue_workers == 0
        # the one public path is Slack's (probes, metrics and admin stay private)
        assert route["path"] == settings.slack_http_path
        assert route["pathType"] == "Exact"
        container = container_of(RESOURCES[("Deployment", name)])
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        [service_port] = service["spec"]["ports"]
        assert ports[service_port["targetPort"]] == settings.slack_http_port
        assert route["backend"]["service"]["port"]["name"] == service_port["name"]


def test_the_worker_tier_answers_what_the_ingress_tier_queues(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tiers = slack_tiers(monkeypatch)
    ingress = {n: s for n, s in tiers.items() if s.queue_workers == 0}
    workers = {n: s for n, s in tiers.items() if s.queue_workers > 0}
    assert list(ingress) == ["veilbot-slack-ingress"]
    assert list(workers) == ["veilbot-slack"]
    routed = {n for _, service in routes() for n in selected(service["spec"]["selector"])}
    assert not routed & set(workers)  # no public request waits behind a turn
    for settings in workers.values():
        assert settings.queue_enabled is True
        assert settings.guardrail_workers == 2  # the README's recommendation
        # what an ingress pod seals and queues, a worker must find and open
        for queued in ingress.values():
            for setting in ("redis_url", "redis_prefix", "database_url"):
                assert getattr(settings, setting) == getattr(queued, setting), setting
            assert settings.vault_key is not None
            assert queued.vault_key is not None
            assert settings.vault_key.get_secret_value() == queued.vault_key.get_secret_value()


@pytest.mark.parametrize("deployment", SLACK, ids=name_of)
def test_each_slack_tier_scales_on_cpu_and_keeps_a_pod_through_drains(
    deployment: dict[str, Any],
) -> None:
    name = name_of(deployment)
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert selected(deployment["spec"]["selector"]["matchLabels"]) == [name]
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    for spread in pod_spec(deployment)["topologySpreadConstraints"]:
        assert selected(spread["labelSelector"]["matchLabels"]) == [name]
    # a budget per tier: one that also picked the other tier's pods could let a drain take
    # every pod of this one
    [pdb] = [
        d
        for (kind, _), d in RESOURCES.items()
        if kind == "PodDisruptionBudget" and name in selected(d["spec"]["selector"]["matchLabels"])
    ]
    assert selected(pdb["spec"]["selector"]["matchLabels"], ("Deployment", "StatefulSet")) == [name]
    assert pdb["spec"]["minAvailable"] >= 1
    [hpa] = [
        d
        for (kind, _), d in RESOURCES.items()
        if kind == "HorizontalPodAutoscaler" and d["spec"]["scaleTargetRef"]["name"] == name
    ]
    assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    [metric] = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    # utilization is measured against the request, so there must be one
    assert container_of(deployment)["resources"]["requests"]["cpu"]


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


def vault_key_recipes() -> list[str]:
    """The shell commands the secret example gives for ``VEILBOT_VAULT_KEY``."""
    text = (K8S / "secret.example.yaml").read_text()
    found = re.findall(r"made with: (.+)$", text, flags=re.M)
    found += re.findall(r"\(or: (.+)\)\. ", text)
    return [cmd.replace("python3 ", f"{sys.executable} ") for cmd in found]


def test_every_vault_key_recipe_in_the_secret_example_makes_keys_veilbot_accepts(
    tmp_path: Path,
) -> None:
    recipes = vault_key_recipes()
    assert len(recipes) == 2
    for recipe in recipes:
        if recipe.startswith("openssl") and shutil.which("openssl") is None:
            continue
        for _ in range(12):  # random keys: a wrong alphabet fails about 3 times in 4
            made = subprocess.run(  # noqa: S602  (the documented command, as a user runs it)
                recipe, shell=True, capture_output=True, text=True, check=True
            ).stdout
            assert len(load_vault_key(SecretStr(made), tmp_path)) == 32
