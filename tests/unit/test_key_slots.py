"""Redis Cluster: every key a Lua script or multi-key command touches lives in one hash slot.

A script in Redis Cluster runs on one node and may only touch keys of one slot: the keys it is
given must hash to one slot (redis-py refuses to send them otherwise), and it must touch no
key it was not given. The first is checked here on the key names, and at run time by the
cluster variants of the integration tests; the second on the scripts' text.
"""

from __future__ import annotations

import re
from types import ModuleType

import pytest
from redis.crc import key_slot

from bot.core.errors import InputRejected
from bot.core.keys import KeySpace
from bot.core.types import ThreadId, thread_id
from bot.state import budgets, history, locks, queue_lua, resealing
from bot.state.queue import shard_of, shard_tags
from guardrails.vault import scripts as vault

THREADS = [
    thread_id("slack", "T024BE7LD", "C02A1B2C3", "1700000000.000100"),
    thread_id("discord", "dm", "1180000000000000001"),
    thread_id("console", "demo"),
]
KEYS = KeySpace("veilbot-prod.eu-1")


def slot(key: str) -> int:
    return int(key_slot(key.encode()))


@pytest.mark.parametrize("tid", THREADS)
def test_a_threads_keys_share_one_slot(tid: ThreadId) -> None:
    """History append refreshes the vault's TTL in its script; erase deletes both at once."""
    keys = [*KEYS.thread_keys(tid), KEYS.thread(tid, "lock")]
    assert {slot(k) for k in keys} == {slot(KEYS.thread(tid, "history"))}


def test_threads_spread_over_the_slots() -> None:
    many = [thread_id("slack", "T1", "C1", f"1700000000.{n:06d}") for n in range(200)]
    assert len({slot(KEYS.thread(t, "history")) for t in many}) > 150


def test_every_queue_key_shares_one_slot() -> None:
    """A put touches the payloads, the schedule, a delivery's mark, a thread's list and a
    platform's stream in one script; one read covers every platform's stream."""
    kinds = ["payloads", "scheduled", "attempts", "tokens:slack", "tokens:discord"]
    kinds += [f"thread:{t}" for t in THREADS] + ["seen:slack:T1:C1:1700000000.000100"]
    assert len({slot(KEYS.queue(kind)) for kind in kinds}) == 1


@pytest.mark.parametrize("part", ["{queue}", "a}b", "x{y"])
def test_a_thread_id_cannot_break_its_hash_tag(part: str) -> None:
    with pytest.raises(InputRejected):
        thread_id("slack", "T1", part, "1.1")


SCRIPT_MODULES: list[ModuleType] = [history, locks, queue_lua, budgets, vault, resealing]
CALL = re.compile(r"redis\.call\(\s*'(?P<command>[A-Z]+)'\s*,\s*(?P<key>[^,)]+)")
FUNCTION = re.compile(r"local function (?P<name>\w+)\((?P<params>[^)]*)\)")


def scripts() -> list[tuple[str, str]]:
    """Every Lua script in the modules that keep them: (module.name, source).

    A fragment that scripts include (``queue_lua.OWNS``) is checked as part of them.
    """
    found = [
        (f"{module.__name__}.{name}", value)
        for module in SCRIPT_MODULES
        for name, value in vars(module).items()
        if isinstance(value, str) and "redis.call(" in value
    ]
    sources = [source for _, source in found]
    return [(n, s) for n, s in found if not any(s in other and s != other for other in sources)]


def given_keys_only(source: str) -> list[str]:
    """The key arguments of ``redis.call`` that are not ``KEYS[...]`` nor a local function's
    parameter that every call of the function fills with ``KEYS[...]``."""
    passed_keys: set[str] = set()
    for function in FUNCTION.finditer(source):
        params = [p.strip() for p in function["params"].split(",")]
        body_calls = list(re.finditer(rf"(?<!function ){function['name']}\(([^)]*)\)", source))
        for position, param in enumerate(params):
            args = [call[1].split(",")[position].strip() for call in body_calls]
            if args and all(arg.startswith("KEYS[") for arg in args):
                passed_keys.add(param)
    return [
        call["key"]
        for call in CALL.finditer(source)
        if not call["key"].strip().startswith("KEYS[") and call["key"].strip() not in passed_keys
    ]


def test_the_walk_finds_every_script() -> None:
    names = {name.rsplit(".", 1)[1] for name, _ in scripts()}
    assert names >= {"_APPEND", "_REMOVE_USER", "_RENEW", "_RELEASE", "PUT", "BEGIN", "DONE"}
    assert names >= {"TOUCH", "ASSIGN_LUA", "RETAIN_LUA", "FORGET_LUA", "REKEY_LUA"}


@pytest.mark.parametrize(("name", "source"), scripts(), ids=[n for n, _ in scripts()])
def test_a_script_touches_only_the_keys_it_is_given(name: str, source: str) -> None:
    assert given_keys_only(source) == [], f"{name} builds a key name itself"


def test_the_check_catches_a_key_the_script_builds_or_is_passed_by_value() -> None:
    built = "redis.call('DEL', KEYS[1]); redis.call('GET', 'veilbot:' .. ARGV[1])"
    assert given_keys_only(built) == ["'veilbot:' .. ARGV[1]"]
    passed = "local function f(k)\n redis.call('GET', k)\nend\nf(KEYS[1])\nf(ARGV[2])"
    assert given_keys_only(passed) == ["k"]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 16])
def test_the_queue_shards_lie_in_different_parts_of_the_slot_range(count: int) -> None:
    tags = shard_tags(count)
    assert tags[0] == "queue"  # one shard keeps the key names a queue always had
    assert sorted(slot(KEYS.queue("payloads", t)) * count // 16384 for t in tags) == list(
        range(count)
    )
    for tag in tags:  # each shard's keys share its slot
        kinds = ["payloads", "scheduled", "tokens:slack", f"thread:{THREADS[0]}"]
        assert len({slot(KEYS.queue(kind, tag)) for kind in kinds}) == 1


def test_a_thread_goes_to_one_shard_and_threads_spread_over_all() -> None:
    many = [thread_id("slack", "T1", "C1", f"1700000000.{n:06d}") for n in range(300)]
    assert {shard_of(t, 3) for t in many} == {0, 1, 2}
    assert all(shard_of(t, 3) == shard_of(ThreadId(str(t)), 3) for t in many)
