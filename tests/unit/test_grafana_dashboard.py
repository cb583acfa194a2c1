"""deploy/grafana/veilbot.json asks only for series that veilbot's /metrics exposes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from bot.core.types import AuditRecord, TurnStatus
from bot.metrics import PrometheusMetrics

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "veilbot.json"
SCRAPER_LABELS = {"instance", "job", "le"}  # added by Prometheus, or the histogram's own


def exposed() -> dict[str, set[str]]:
    """Sample name -> label names, from a registry that has seen every kind of event."""
    metrics = PrometheusMetrics()
    now = datetime.now(UTC)
    metrics.turn_finished(
        AuditRecord(
            run_id="r",
            thread_id="slack:T:C:1.1",
            platform="slack",
            workspace="T",
            channel="C",
            user_id="U",
            message_id="1.1",
            started_at=now,
            finished_at=now,
            status=TurnStatus.GUARDRAIL_ERROR,
            entity_counts={"PERSON": 1},
            model="claude-x",
            input_tokens=1,
            output_tokens=1,
            cost_usd=0.01,
            latencies_ms={"total": 1.0},
            mangled_placeholders=1,
            unknown_placeholders=1,
        )
    )
    metrics.duplicate_dropped("slack")
    metrics.lock_waited(0.1, acquired=False)
    metrics.watch_spool(lambda: 0)
    metrics.queue_event("claimed")
    metrics.queue_depth(0)
    names: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for sample in family.samples:
            names.setdefault(sample.name, set()).update(sample.labels)
    return names


def expressions() -> list[str]:
    def walk(panels: list[dict[str, Any]]) -> list[str]:
        found: list[str] = []
        for panel in panels:
            found += [t["expr"] for t in panel.get("targets", [])]
            found += walk(panel.get("panels", []))
        return found

    return walk(json.loads(DASHBOARD.read_text())["panels"])


def test_every_dashboard_query_uses_exposed_metrics_and_labels() -> None:
    series = exposed()
    queries = expressions()
    assert len(queries) >= 12
    used: set[str] = set()
    for query in queries:
        for name in re.findall(r"\bveilbot_[a-z_]+", query):
            assert name in series, f"{name} is not exposed"
            used.add(name)
            labels = series[name] | SCRAPER_LABELS
            for selector in re.findall(rf"{name}\{{([^}}]*)\}}", query):
                for label in re.findall(r"([a-z_]+)\s*!?=", selector):
                    assert label in labels, f"{name} has no label {label}"
        for group in re.findall(r"by \(([^)]*)\)", query):
            grouped = {g.strip() for g in group.split(",")}
            names = re.findall(r"\bveilbot_[a-z_]+", query)
            allowed = set().union(*(series[n] for n in names)) | SCRAPER_LABELS
            assert grouped <= allowed, f"{query}: cannot group by {grouped - allowed}"

    # every series the service exposes has a panel
    def family(name: str) -> str:
        return re.sub(r"_(bucket|count|sum)$", "", name)

    required = {family(n) for n in series if not n.endswith("_created")}
    assert required <= {family(n) for n in used}
