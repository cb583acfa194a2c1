"""Audit queries, roll-ups, purge and erasure: the same tests on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from bot.audit.store import SqlAuditStore
from bot.audit.types import FilterRejected, RunFilter, encode_cursor
from bot.core.types import TurnStatus
from tests.fixtures.audit_db import BASE_TIME, bulk_insert, run


async def seed(store: SqlAuditStore) -> dict[str, list[str]]:
    """Four users over three threads, two platforms, varied status and metadata."""
    records = [
        run(minutes=0, user_id="U1", metadata={"source": "app_mention", "tier": 1, "dm": False}),
        run(minutes=1, user_id="U1", metadata={"source": "app_mention", "dm": False}),
        run(minutes=2, user_id="U2", status=TurnStatus.MODEL_ERROR, cost_usd=None, metadata={}),
        run(
            minutes=3,
            thread_id="slack:T1:C2:200.1",
            channel="C2",
            user_id="U2",
            metadata={"source": "dm", "dm": True, "tier": "1"},
            entity_counts={"PHONE_NUMBER": 2},
        ),
        run(
            minutes=60 * 24,
            thread_id="discord:G1:555",
            platform="discord",
            workspace="G1",
            channel="555",
            user_id="777",
            metadata={"source": "slash", "tags": ["a"]},
        ),
        run(
            minutes=60 * 24 + 1,
            thread_id="discord:G1:555",
            platform="discord",
            workspace="G1",
            channel="555",
            user_id="U1",  # same id on another platform: a different person
            entity_counts={},
            metadata={"source": "message"},
        ),
    ]
    for record in records:
        await store.record(record)
    return {"all": [r.run_id for r in records]}


async def ids(store: SqlAuditStore, **kwargs: object) -> list[str]:
    page = await store.list_runs(RunFilter(**kwargs), limit=100)  # type: ignore[arg-type]
    return [r.run_id for r in page.runs]


async def test_filters_match_exactly(audit_store: SqlAuditStore) -> None:
    all_ = (await seed(audit_store))["all"]
    newest_first = list(reversed(all_))
    assert await ids(audit_store) == newest_first
    assert await ids(audit_store, thread_id="slack:T1:C2:200.1") == [all_[3]]
    assert await ids(audit_store, user_id="U1") == [all_[5], all_[1], all_[0]]
    assert await ids(audit_store, user_id="U1", platform="slack") == [all_[1], all_[0]]
    assert await ids(audit_store, workspace="G1") == [all_[5], all_[4]]
    assert await ids(audit_store, channel="C1") == [all_[2], all_[1], all_[0]]
    assert await ids(audit_store, status="model_error") == [all_[2]]
    assert await ids(audit_store, since=BASE_TIME + timedelta(minutes=1)) == newest_first[:5]
    assert await ids(audit_store, until=BASE_TIME + timedelta(minutes=2)) == [all_[1], all_[0]]
    assert await audit_store.count_runs(RunFilter(platform="discord")) == 2
    assert await audit_store.count_runs(RunFilter()) == 6


async def test_metadata_filter_is_an_and_of_exact_top_level_values(
    audit_store: SqlAuditStore,
) -> None:
    all_ = (await seed(audit_store))["all"]
    assert await ids(audit_store, metadata={"source": "app_mention"}) == [all_[1], all_[0]]
    assert await ids(audit_store, metadata={"source": "app_mention", "tier": 1}) == [all_[0]]
    assert await ids(audit_store, metadata={"tier": "1"}) == [all_[3]]  # string is not number
    assert await ids(audit_store, metadata={"tier": 1}) == [all_[0]]
    assert await ids(audit_store, metadata={"dm": True}) == [all_[3]]
    assert await ids(audit_store, metadata={"dm": False}) == [all_[1], all_[0]]
    assert await ids(audit_store, metadata={"tags": "a"}) == []  # no match inside arrays
    assert await ids(audit_store, metadata={"source": "dm", "user_id": "U2"}) == []
    assert await audit_store.count_runs(RunFilter(metadata={"source": "slash"})) == 1


@pytest.mark.parametrize(
    "bad",
    [
        {"metadata": {"a.b": "x"}},
        {"metadata": {"a b": "x"}},
        {"metadata": {"": "x"}},
        {"metadata": {"k'); DROP TABLE audit_runs; --": "x"}},
        {"metadata": {"k": {"nested": 1}}},
        {"metadata": {"k": None}},
        {"status": "fine"},
        {"thread_id": "slack:T1 C1"},
    ],
)
def test_bad_filters_are_rejected_with_a_clear_error(bad: dict[str, object]) -> None:
    with pytest.raises(FilterRejected) as info:
        RunFilter(**bad)  # type: ignore[arg-type]
    assert info.value.reason == "invalid_filter"
    assert "DROP" not in str(info.value)


async def test_keyset_pages_are_stable_and_complete(audit_store: SqlAuditStore) -> None:
    records = [run(minutes=i // 3) for i in range(25)]  # ties on started_at, broken by run_id
    await bulk_insert(audit_store, records)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await audit_store.list_runs(RunFilter(), limit=7, cursor=cursor)
        seen += [r.run_id for r in page.runs]
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
        await audit_store.record(run(minutes=100))  # newer rows do not shift later pages
    expected = sorted(records, key=lambda r: (r.started_at, r.run_id), reverse=True)
    assert seen == [r.run_id for r in expected]
    assert pages == 4


async def test_bad_cursor_and_limit_are_rejected(audit_store: SqlAuditStore) -> None:
    with pytest.raises(FilterRejected, match="cursor"):
        await audit_store.list_runs(RunFilter(), cursor="not-a-cursor!")
    with pytest.raises(FilterRejected, match="limit"):
        await audit_store.list_runs(RunFilter(), limit=0)
    last = encode_cursor(BASE_TIME, "0")
    assert (await audit_store.list_runs(RunFilter(), cursor=last)).runs == []


async def test_get_and_iterate(audit_store: SqlAuditStore) -> None:
    all_ = (await seed(audit_store))["all"]
    found = await audit_store.get_run(all_[3])
    assert found is not None
    assert found.entity_counts == {"PHONE_NUMBER": 2}
    assert await audit_store.get_run("missing") is None
    streamed = [r.run_id async for r in audit_store.iter_runs(RunFilter(platform="slack"))]
    assert streamed == [all_[3], all_[2], all_[1], all_[0]]


async def test_rollups_by_thread_user_channel_and_day(audit_store: SqlAuditStore) -> None:
    await seed(audit_store)
    by_thread = {r.key: r for r in await audit_store.rollup(RunFilter(), "thread")}
    main = by_thread["slack:T1:C1:100.1"]
    assert (main.turns, main.input_tokens, main.output_tokens) == (3, 300, 60)
    assert main.cost_usd == pytest.approx(0.002)
    assert main.entities == {"EMAIL_ADDRESS": 3, "PERSON": 3}
    assert by_thread["slack:T1:C2:200.1"].entities == {"PHONE_NUMBER": 2}
    by_user = {r.key: r.turns for r in await audit_store.rollup(RunFilter(), "user")}
    assert by_user == {"U1": 3, "U2": 2, "777": 1}
    by_channel = {r.key: r.turns for r in await audit_store.rollup(RunFilter(), "channel")}
    assert by_channel == {"C1": 3, "C2": 1, "555": 2}
    days = await audit_store.rollup(RunFilter(), "day")
    assert {r.key: r.turns for r in days} == {"2026-03-01": 4, "2026-03-02": 2}
    assert {r.key: r.entity_total for r in days} == {"2026-03-01": 8, "2026-03-02": 2}
    filtered = await audit_store.rollup(RunFilter(platform="discord"), "user")
    assert [(r.key, r.turns) for r in filtered] == [("777", 1), ("U1", 1)]


async def test_purge_deletes_only_older_runs(audit_store: SqlAuditStore) -> None:
    all_ = (await seed(audit_store))["all"]
    assert await audit_store.purge_before(BASE_TIME + timedelta(minutes=2)) == 2
    assert await ids(audit_store) == list(reversed(all_[2:]))
    assert await audit_store.purge_before(BASE_TIME + timedelta(minutes=2)) == 0


async def test_delete_and_pseudonymize_touch_only_matching_runs(
    audit_store: SqlAuditStore,
) -> None:
    all_ = (await seed(audit_store))["all"]
    slack_u1 = RunFilter(platform="slack", workspace="T1", user_id="U1")
    assert await audit_store.thread_ids(slack_u1) == ["slack:T1:C1:100.1"]
    assert await audit_store.replace_user_id(slack_u1, "hmac:abc") == 2
    assert await ids(audit_store, user_id="hmac:abc") == [all_[1], all_[0]]
    assert await audit_store.delete_runs(RunFilter(user_id="hmac:abc")) == 2
    assert await ids(audit_store) == list(reversed(all_[2:]))
    with pytest.raises(FilterRejected):
        await audit_store.delete_runs(RunFilter())


@pytest.mark.postgres
async def test_metadata_filter_uses_the_gin_index(fresh_db_url: str) -> None:
    if not fresh_db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    async with SqlAuditStore(fresh_db_url) as store:
        await bulk_insert(store, (run(metadata={"n": i}) for i in range(3000)))
        async with store.engine.connect() as conn:
            await conn.execute(sa.text("ANALYZE audit_runs"))
            plan = await conn.execute(
                sa.text("EXPLAIN SELECT * FROM audit_runs WHERE metadata @> :m"),
                {"m": '{"n": 7}'},
            )
            text = "\n".join(r[0] for r in plan)
    assert "ix_audit_runs_metadata" in text
