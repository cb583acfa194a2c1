"""deploy/k8s: every overlay renders to valid Kubernetes, locked down, that fits the app it runs.

Each overlay (``overlays/slack``, ``discord``, ``slack-and-discord``, and the last with every
optional component) is rendered by ``tests.fixtures.kustomize`` (checked against ``kubectl
kustomize`` when kubectl is installed) and validated strictly against the schemas
``kubernetes-validate`` ships in its wheel (offline). The settings each pod gets (ConfigMap,
the Secret made from ``secrets/*.env.example``, its own env) are loaded by the real
``Settings``, and probe paths are checked against the routes of the real HTTP server those
settings build. Which pods a route or policy reaches is worked out as Kubernetes does it: by
label selectors.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import kubernetes_validate
import pytest
import yaml
from aiohttp import web

from bot.admin.api import add_admin_routes
from bot.config.settings import Settings
from bot.metrics import PrometheusMetrics
from bot.platforms import select_platforms
from bot.service import build_http
from bot.stores import add_console, build_admin_tokens
from guardrails.policy import parse_policy
from tests.fixtures.deploy import MOUNTED_CONFIG, settings_from, unknown_settings
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64
from tests.fixtures.kustomize import merge, render

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSIONS = ("1.29.0", "1.33.0")  # oldest supported and a current one
COMPONENTS = sorted(p.name for p in (K8S / "components").iterdir())
OVERLAYS = {"slack": ["slack"], "discord": ["discord"], "slack-and-discord": ["discord", "slack"]}
# what a user fills in for the example's placeholders, and the platform lines they uncomment
FILLED = {
    "VEILBOT_VAULT_KEY": TEST_VAULT_KEY_B64,
    "VEILBOT_REDIS_URL": "redis://redis.example:6379/0",
    "VEILBOT_DATABASE_URL": "postgresql://veilbot:pw@db.example/veilbot",
    "VEILBOT_ADMIN_TOKENS": "a" * 64,
    "ANTHROPIC_API_KEY": "sk-ant-test-key",
    "AWS_ACCESS_KEY_ID": "AKIATESTKEY",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-for-tests",
    "VEILBOT_VERTEX_PROJECT_ID": "veilbot-tests",
}
PLATFORM_SECRETS = {
    "slack": {"VEILBOT_SLACK_BOT_TOKEN": "xoxb-test", "VEILBOT_SLACK_SIGNING_SECRET": "sig-test"},
    "discord": {"VEILBOT_DISCORD_TOKEN": "discord-token-for-tests"},
}
PROVIDERS = ["anthropic", "bedrock", "vertex", "openai"]


def with_components(tmp: Path) -> Path:
    """An overlay of slack-and-discord with every optional component."""
    spec = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        # relative: kustomize refuses absolute paths
        "resources": [os.path.relpath(K8S / "overlays" / "slack-and-discord", tmp)],
        "components": [os.path.relpath(K8S / "components" / name, tmp) for name in COMPONENTS],
    }
    (tmp / "kustomization.yaml").write_text(yaml.safe_dump(spec))
    return tmp


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    found = {name: render(K8S / "overlays" / name) for name in OVERLAYS}
    found["all-components"] = render(with_components(tmp_path_factory.mktemp("full")))
    return found


def by_key(resources: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["kind"], r["metadata"]["name"]): r for r in resources}


def workloads(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in resources if r["kind"] in ("Deployment", "StatefulSet")]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def container_of(workload: dict[str, Any]) -> dict[str, Any]:
    [container] = pod_spec(workload)["containers"]
    return dict(container)


def runs_turns(workload: dict[str, Any]) -> bool:
    return container_of(workload)["args"][0] == "run"


def name_of(resource: dict[str, Any]) -> str:
    return str(resource["metadata"]["name"])


RENDERINGS = [*OVERLAYS, "all-components"]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("overlay", RENDERINGS)
def test_every_rendered_resource_validates_against_the_kubernetes_schemas(
    rendered: dict[str, list[dict[str, Any]]], overlay: str, version: str
) -> None:
    for resource in rendered[overlay]:
        if resource["kind"] == "ServiceMonitor":  # a CRD: checked below
            continue
        kubernetes_validate.validate(resource, version, strict=True)


def test_the_strict_schemas_catch_a_misspelt_field(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    broken = copy.deepcopy(by_key(rendered["slack"])[("Deployment", "veilbot-slack")])
    merge(broken, {"spec": {"template": {"spec": {"containers": [{"name": "veilbot"}]}}}})
    pod_spec(broken)["containers"][0]["securityContext"]["readOnlyRootFS"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[0], strict=True)


def normalized(value: Any) -> Any:
    """Named lists as mappings by name: kustomize and our renderer order merged items apart."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items()}
    if (
        isinstance(value, list)
        and value
        and all(isinstance(i, dict) and "name" in i for i in value)
    ):
        return {i["name"]: normalized(i) for i in value}
    if isinstance(value, list):
        return [normalized(i) for i in value]
    return value


@pytest.mark.parametrize("overlay", RENDERINGS)
def test_the_renderer_renders_what_kubectl_kustomize_renders(
    rendered: dict[str, list[dict[str, Any]]], overlay: str, tmp_path: Path
) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the renderer is not cross-checked")
    directory = K8S / "overlays" / overlay
    if overlay == "all-components":
        directory = with_components(tmp_path)
    out = subprocess.run(
        [kubectl, "kustomize", str(directory)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    theirs = by_key([d for d in yaml.safe_load_all(out.stdout) if d])
    ours = by_key(rendered[overlay])
    assert normalized(ours) == normalized(theirs)


def test_each_overlay_runs_its_platforms_and_the_admin_console(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    for overlay, platforms in OVERLAYS.items():
        commands = sorted(container_of(w)["args"] for w in workloads(rendered[overlay]))
        expected = [["admin", "serve"]]
        expected += [["run", "discord"]] if "discord" in platforms else []
        expected += [["run", "slack"], ["run", "slack"]] if "slack" in platforms else []
        assert commands == expected, overlay  # Slack twice: the ingress and worker tiers
        for resource in rendered[overlay]:
            if resource["kind"] != "Namespace":
                assert resource["metadata"]["namespace"] == "veilbot"
            for workload in workloads([resource]):
                assert container_of(workload)["image"] == "veilbot:latest"


ALL = workloads(render(K8S / "overlays" / "slack-and-discord"))


@pytest.mark.parametrize("workload", ALL, ids=name_of)
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
    if runs_turns(workload):  # the sm model's ~370 MB service process must fit the request
        assert int(resources["requests"]["memory"].removesuffix("Mi")) >= 384


def env_file(path: Path) -> dict[str, str]:
    """The KEY=value lines of an env file, as ``kubectl create secret --from-env-file``."""
    found = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            found[key.strip()] = value
    return found


def secret(provider: str, platforms: list[str]) -> dict[str, str]:
    """The Secret a user makes from the examples, every placeholder filled in."""
    values = env_file(K8S / "secrets" / "common.env.example")
    values |= env_file(K8S / "secrets" / f"{provider}.env.example")
    for platform in platforms:
        values |= PLATFORM_SECRETS[platform]
    for key, value in values.items():
        if value.startswith("<"):
            values[key] = FILLED[key]
    return values


def pod_env(
    resources: list[dict[str, Any]], workload: dict[str, Any], secret_values: dict[str, str]
) -> dict[str, str]:
    """A pod's environment: envFrom in order, then env (which wins), as the kubelet builds it."""
    index, container = by_key(resources), container_of(workload)
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(index[("ConfigMap", source["configMapRef"]["name"])]["data"])
        else:
            assert source["secretRef"]["name"] == "veilbot"
            env.update(secret_values)
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
        else:
            assert item["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
            env[item["name"]] = f"{name_of(workload)}-0"
    return env


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("overlay", list(OVERLAYS))
def test_every_pod_of_every_overlay_starts_with_every_provider(
    rendered: dict[str, list[dict[str, Any]]],
    overlay: str,
    provider: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resources = rendered[overlay]
    values = secret(provider, OVERLAYS[overlay])
    for workload in workloads(resources):
        settings = settings_from(pod_env(resources, workload, values), monkeypatch)
        assert settings.provider == provider
        assert settings.model_name, "the provider has a model"
        if runs_turns(workload):
            names = select_platforms(settings, container_of(workload)["args"][1:])
            assert names == [container_of(workload)["args"][1]]
        else:
            assert build_admin_tokens(settings), "admin serve refuses to start without tokens"


@pytest.mark.parametrize("workload", ALL, ids=name_of)
def test_secrets_come_from_the_secret_and_every_variable_is_a_setting(
    workload: dict[str, Any],
) -> None:
    container = container_of(workload)
    assert {"secretRef": {"name": "veilbot"}} in container["envFrom"]
    for item in container["env"]:
        if re.search(r"KEY|TOKEN|SECRET|PASSWORD|_URL", item["name"]):
            assert "value" not in item, item["name"]
    names = {item["name"] for item in container["env"]}
    config = render(K8S / "overlays" / "slack-and-discord")
    names |= set(by_key(config)[("ConfigMap", "veilbot-config")]["data"])
    for provider in PROVIDERS:
        names |= set(secret(provider, ["slack", "discord"]))
    assert not unknown_settings(names)


def served_paths(settings: Settings, args: list[str]) -> tuple[set[str], str, int]:
    """The paths, host and port of the HTTP server this pod's command builds."""
    if args[0] == "admin":
        app = web.Application()
        tokens = build_admin_tokens(settings)
        add_admin_routes(app, store=None, tokens=tokens, readiness=None)  # type: ignore[arg-type]
        add_console(app, settings, redis=None, audit=None, tokens=tokens, eraser=None)  # type: ignore[arg-type]
        paths = {r.canonical for r in app.router.resources()}
        return paths, settings.admin_http_host, settings.admin_http_port
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
    http = build_http(stand_in, select_platforms(settings, args[1:]))  # type: ignore[arg-type]
    return {r.canonical for r in http.app.router.resources()}, http.host, http.port


@pytest.mark.parametrize("slack_mode", ["http", "socket"])
@pytest.mark.parametrize("workload", ALL, ids=name_of)
def test_every_pod_serves_its_probes_and_metrics_on_its_port(
    workload: dict[str, Any], slack_mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = render(K8S / "overlays" / "slack-and-discord")
    values = secret("anthropic", ["slack", "discord"]) | {
        "VEILBOT_SLACK_MODE": slack_mode,
        "VEILBOT_SLACK_APP_TOKEN": "xapp-test",
    }
    container = container_of(workload)
    settings = settings_from(pod_env(resources, workload, values), monkeypatch)
    paths, host, port = served_paths(settings, container["args"])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert host == "0.0.0.0"  # noqa: S104  (a pod must listen on its interface)
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] in paths
        assert ports[get["port"]] == port
    labels = workload["spec"]["template"]["metadata"]["labels"]
    if runs_turns(workload):
        assert "/metrics" in paths
        annotations = workload["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/path"] == "/metrics"
        assert int(annotations["prometheus.io/port"]) == port
        assert labels["veilbot-metrics"] == "true"
    else:
        assert "/metrics" not in paths
        assert "veilbot-metrics" not in labels  # no scrape of a path it does not serve
        assert "/admin/" in paths


def picks(selector: dict[str, str], workload: dict[str, Any]) -> bool:
    return selector.items() <= workload["spec"]["template"]["metadata"]["labels"].items()


def selected(resources: list[dict[str, Any]], selector: dict[str, str]) -> list[str]:
    """The workloads whose pods a label selector picks, by name."""
    return sorted(name_of(w) for w in workloads(resources) if picks(selector, w))


def routes(resources: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every path of every Ingress, with the Service it sends requests to."""
    index = by_key(resources)
    return [
        (path, index[("Service", path["backend"]["service"]["name"])])
        for ingress in resources
        if ingress["kind"] == "Ingress"
        for rule in ingress["spec"]["rules"]
        for path in rule["http"]["paths"]
    ]


def test_the_ingresses_send_slack_to_ack_only_pods_and_admin_to_the_console(
    rendered: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = rendered["all-components"]
    values = secret("anthropic", ["slack", "discord"])
    index = by_key(resources)
    found = {}
    for route, service in routes(resources):
        [backend] = selected(resources, service["spec"]["selector"])
        workload = index[("Deployment", backend)]
        settings = settings_from(pod_env(resources, workload, values), monkeypatch)
        container = container_of(workload)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        [service_port] = service["spec"]["ports"]
        assert route["backend"]["service"]["port"]["name"] == service_port["name"]
        assert ports[service_port["targetPort"]] in (settings.slack_http_port, 8081)
        found[route["path"]] = (backend, settings, container["args"])
    backend, settings, args = found["/slack/events"]
    assert backend == "veilbot-slack-ingress"
    # acked once queued, answered elsewhere: no turn ever runs beside an ack
    assert settings.slack_http_path == "/slack/events"
    assert settings.queue_enabled is True
    assert settings.queue_workers == 0
    assert found["/admin"][0] == "veilbot-admin"
    assert found["/admin"][2] == ["admin", "serve"]
    for oauth in ("/slack/install", "/slack/oauth_redirect"):  # any ingress pod completes one
        assert found[oauth][0] == "veilbot-slack-ingress"
    assert set(found) == {"/slack/events", "/slack/install", "/slack/oauth_redirect", "/admin"}


def test_the_worker_tier_answers_what_the_ingress_tier_queues(
    rendered: dict[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = rendered["slack"]
    values = secret("anthropic", ["slack"])
    tiers = {
        name_of(w): settings_from(pod_env(resources, w, values), monkeypatch)
        for w in workloads(resources)
        if container_of(w)["args"] == ["run", "slack"]
    }
    assert tiers["veilbot-slack-ingress"].queue_workers == 0
    worker = tiers["veilbot-slack"]
    assert worker.queue_enabled is True
    assert worker.queue_workers > 0
    assert worker.guardrail_workers == 2
    routed = {
        n
        for _, service in routes(resources)
        for n in selected(resources, service["spec"]["selector"])
    }
    assert "veilbot-slack" not in routed  # no public request waits behind a turn


@pytest.mark.parametrize("name", ["veilbot-slack", "veilbot-slack-ingress"])
def test_each_slack_tier_scales_on_cpu_and_keeps_a_pod_through_drains(name: str) -> None:
    resources = render(K8S / "overlays" / "slack")
    deployment = by_key(resources)[("Deployment", name)]
    assert selected(resources, deployment["spec"]["selector"]["matchLabels"]) == [name]
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    for spread in pod_spec(deployment)["topologySpreadConstraints"]:
        assert selected(resources, spread["labelSelector"]["matchLabels"]) == [name]
    # a budget per tier: one that also picked the other tier's pods could let a drain take
    # every pod of this one
    [pdb] = [
        d
        for d in resources
        if d["kind"] == "PodDisruptionBudget"
        and name in selected(resources, d["spec"]["selector"]["matchLabels"])
    ]
    assert selected(resources, pdb["spec"]["selector"]["matchLabels"]) == [name]
    assert pdb["spec"]["minAvailable"] >= 1
    [hpa] = [
        d
        for d in resources
        if d["kind"] == "HorizontalPodAutoscaler" and d["spec"]["scaleTargetRef"]["name"] == name
    ]
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    [metric] = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert container_of(deployment)["resources"]["requests"]["cpu"]


def test_discord_statefulset_runs_every_shard_once_from_the_pod_ordinals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    resources = render(K8S / "overlays" / "discord")
    statefulset = by_key(resources)[("StatefulSet", "veilbot-discord")]
    values = secret("anthropic", ["discord"])
    replicas, shards = statefulset["spec"]["replicas"], []
    for ordinal in range(replicas):
        env = pod_env(resources, statefulset, values)
        env["VEILBOT_DISCORD_SHARD_POD"] = f"veilbot-discord-{ordinal}"
        settings = settings_from(env, monkeypatch)
        assert settings.discord_shard_count == replicas
        shards += settings.discord_shard_ids or []
    assert sorted(shards) == list(range(replicas))
    service = by_key(resources)[("Service", statefulset["spec"]["serviceName"])]
    assert service["spec"]["clusterIP"] == "None"


def allowed(policies: list[dict[str, Any]], workload: dict[str, Any]) -> set[tuple[str, str]]:
    """(namespace, port name) pairs the network policies let reach a workload's pods."""
    found = set()
    for policy in policies:
        if not picks(policy["spec"]["podSelector"].get("matchLabels", {}), workload):
            continue
        for rule in policy["spec"].get("ingress", []):
            for peer in rule["from"]:
                namespace = peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                found |= {(namespace, port["port"]) for port in rule["ports"]}
    return found


def test_network_policies_let_in_only_the_ingress_controller_and_prometheus(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    resources = rendered["all-components"]
    policies = [r for r in resources if r["kind"] == "NetworkPolicy"]
    for workload in workloads(resources):
        # a policy with no rules selects every pod: all else is denied
        assert any(
            picks(p["spec"]["podSelector"]["matchLabels"], workload) and "ingress" not in p["spec"]
            for p in policies
        )
        assert all(p["spec"]["policyTypes"] == ["Ingress"] for p in policies)
        expected = {("monitoring", "http")} if runs_turns(workload) else set()
        if name_of(workload) in ("veilbot-slack-ingress", "veilbot-admin"):
            expected.add(("ingress-nginx", "http"))
        assert allowed(policies, workload) == expected, name_of(workload)


def test_the_service_monitor_scrapes_every_pod_that_serves_metrics(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    resources = rendered["all-components"]
    [monitor] = [r for r in resources if r["kind"] == "ServiceMonitor"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert set(monitor["spec"]) == {"selector", "endpoints"}
    [service] = [
        r
        for r in resources
        if r["kind"] == "Service"
        and monitor["spec"]["selector"]["matchLabels"].items() <= r["metadata"]["labels"].items()
    ]
    assert service["spec"]["clusterIP"] == "None"  # each pod is scraped, not one behind a VIP
    scraped = selected(resources, service["spec"]["selector"])
    assert scraped == sorted(name_of(w) for w in workloads(resources) if runs_turns(w))
    [endpoint] = monitor["spec"]["endpoints"]
    [port] = service["spec"]["ports"]
    assert endpoint == {"port": port["name"], "path": "/metrics", "interval": "30s"}
    for name in scraped:
        workload = (
            by_key(resources)[("Deployment", name)]
            if ("Deployment", name) in by_key(resources)
            else by_key(resources)[("StatefulSet", name)]
        )
        assert port["targetPort"] in {p["name"] for p in container_of(workload)["ports"]}


def test_the_vertex_key_component_gives_every_pod_the_key_file(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    for workload in workloads(rendered["all-components"]):
        container = container_of(workload)
        env = {e["name"]: e.get("value") for e in container["env"]}
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod_spec(workload)["volumes"]}
        path = Path(env["VEILBOT_VERTEX_CREDENTIALS_FILE"])
        assert mounts["vertex-key"] == str(path.parent)
        assert volumes["vertex-key"]["secret"]["secretName"] == "veilbot-vertex-key"
    for overlay in OVERLAYS:  # optional: not there unless asked for
        for workload in workloads(render(K8S / "overlays" / overlay)):
            assert "vertex-key" not in {v["name"] for v in pod_spec(workload)["volumes"]}


def test_the_guardrail_policy_configmap_is_a_valid_policy_mounted_where_the_setting_points() -> (
    None
):
    resources = render(K8S / "overlays" / "slack-and-discord")
    index = by_key(resources)
    policy = index[("ConfigMap", "veilbot-guardrail-policy")]["data"]["policy.yaml"]
    parse_policy(policy, "k8s")
    # the shipped default, every type of it: a copy that lags leaves new types unredacted
    assert policy == (ROOT / "guardrails" / "data" / "default_policy.yaml").read_text()
    setting = index[("ConfigMap", "veilbot-config")]["data"]["VEILBOT_GUARDRAIL_POLICY_FILE"]
    for workload in workloads(resources):
        if not runs_turns(workload):
            continue
        container = container_of(workload)
        mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
        volumes = {v["name"]: v for v in pod_spec(workload)["volumes"]}
        [volume] = [n for n, v in volumes.items() if "configMap" in v]
        assert volumes[volume]["configMap"]["name"] == "veilbot-guardrail-policy"
        assert setting == f"{mounts[volume]}/policy.yaml"


def test_every_pod_mounts_the_example_config_file_where_veilbot_config_points() -> None:
    resources = render(K8S / "overlays" / "slack-and-discord")
    index = by_key(resources)
    assert index[("ConfigMap", "veilbot-config")]["data"]["VEILBOT_CONFIG"] == MOUNTED_CONFIG
    files = index[("ConfigMap", "veilbot-guardrail-policy")]["data"]
    assert files["veilbot.toml"] == (ROOT / "deploy" / "veilbot.example.toml").read_text()
    for workload in workloads(resources):
        mounts = {m["mountPath"]: m["name"] for m in container_of(workload)["volumeMounts"]}
        volumes = {v["name"]: v for v in pod_spec(workload)["volumes"]}
        volume = volumes[mounts[str(Path(MOUNTED_CONFIG).parent)]]
        assert volume["configMap"]["name"] == "veilbot-guardrail-policy", name_of(workload)


def test_the_image_runs_as_the_numeric_user_the_pods_require() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    users = [line.split()[1] for line in dockerfile.splitlines() if line.startswith("USER ")]
    assert users == ["10001:10001"]
    for workload in ALL:
        context = pod_spec(workload)["securityContext"]
        assert f"{context['runAsUser']}:{context['runAsGroup']}" == users[0]


def test_every_manifest_file_is_rendered_by_some_overlay(
    rendered: dict[str, list[dict[str, Any]]],
) -> None:
    names = {(r["kind"], name_of(r)) for found in rendered.values() for r in found}
    for path in K8S.rglob("*.yaml"):
        if path.name == "kustomization.yaml" or path.parent.name == "vertex-key":
            continue  # vertex-key holds a patch, not a resource
        for document in (d for d in yaml.safe_load_all(path.read_text()) if d):
            assert (document["kind"], name_of(document)) in names, path
