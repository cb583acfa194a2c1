"""The vault on a real Redis, and its key: stable placeholders, nothing in clear, fail closed."""

import asyncio
import base64
import hashlib
import hmac
import os
import stat
import threading

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr

from bot.core.errors import ConfigError, StoreError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from guardrails.vault.keys import derive_keys, load_vault_key
from guardrails.vault.store import OFF_LOOP_VALUES, RedisVault, VaultEntry
from tests.fixtures.guardrail import TEST_VAULT_KEY, TEST_VAULT_KEY_B64
from tests.fixtures.redis_commands import command_calls, command_delta
from tests.fixtures.services import async_redis, free_port, redis_dump

pytestmark = pytest.mark.redis_cluster

T1 = ThreadId("slack:T1:C1:1700000000.000100")
T2 = ThreadId("slack:T1:C1:1700000000.000200")
SEEDED = [
    ("PERSON", "Maria Gonzalez"),
    ("EMAIL_ADDRESS", "maria.gonzalez@example.com"),
    ("PHONE_NUMBER", "+1 415 555 0123"),
    ("CREDIT_CARD", "4111 1111 1111 1111"),
    ("IBAN_CODE", "DE89 3704 0044 0532 0130 00"),
    ("PERSON", "John Smith"),
]


@pytest.fixture
async def second_vault(redis_url, guardrail_keys):
    """Another process's view of the same vault: its own client and vault object."""
    client = async_redis(redis_url)
    yield RedisVault(client, guardrail_keys, key=TEST_VAULT_KEY, ttl_seconds=3600)
    await client.aclose()


async def test_numbering_is_per_type_in_reading_order(guardrail_vault):
    placeholders = await guardrail_vault.assign(T1, SEEDED)
    assert placeholders == [
        "<PERSON_1>",
        "<EMAIL_ADDRESS_1>",
        "<PHONE_NUMBER_1>",
        "<CREDIT_CARD_1>",
        "<IBAN_CODE_1>",
        "<PERSON_2>",
    ]


async def test_same_value_same_placeholder_across_turns_and_processes(
    guardrail_vault, second_vault
):
    first = await guardrail_vault.assign(T1, [("PERSON", "Maria Gonzalez")])
    again = await guardrail_vault.assign(T1, [("PERSON", "Jane Doe"), ("PERSON", "Maria Gonzalez")])
    elsewhere = await second_vault.assign(
        T1, [("PERSON", "  MARIA   gonzalez "), ("PERSON", "Jane Doe")]
    )
    assert first == ["<PERSON_1>"]
    assert again == ["<PERSON_2>", "<PERSON_1>"]
    assert elsewhere == ["<PERSON_1>", "<PERSON_2>"]
    mapping = await second_vault.mapping(T1)
    assert mapping == {
        "<PERSON_1>": ("PERSON", "Maria Gonzalez"),
        "<PERSON_2>": ("PERSON", "Jane Doe"),
    }


async def test_lookup_fields_are_hmac_sha256_as_vaults_written_before_hold_them(
    guardrail_vault, guardrail_redis, guardrail_keys
):
    """A thread's vault outlives an upgrade: its lookup fields are HMAC-SHA256 (RFC 2104)
    of the thread and the normalized value (or name token) under the derived index key,
    whatever way veilbot computes them, so a value seen before the upgrade keeps its
    placeholder after it."""
    await guardrail_vault.assign(
        T1, [VaultEntry("PERSON", "José Müller", parts=("josé", "müller"))]
    )
    index_key = derive_keys(TEST_VAULT_KEY).index

    def field(kind: str, domain: bytes, value: str) -> str:
        message = domain + T1.encode() + b"\x00" + value.encode()
        return f"{kind}:{hmac.new(index_key, message, hashlib.sha256).hexdigest()}"

    names = {f.decode() for f in await guardrail_redis.hkeys(guardrail_keys.thread(T1, "vault"))}
    assert field("h", b"", "jose muller") in names
    assert {field("t", b"part\x01", "jose"), field("t", b"part\x01", "muller")} <= names
    # and a later mention is looked up by those fields
    assert await guardrail_vault.lookup(T1, ["JOSE MULLER"], ["müller"]) == (
        ["<PERSON_1>"],
        ["<PERSON_1>"],
    )


async def test_a_value_repeated_in_one_message_gets_one_placeholder(guardrail_vault):
    items = [("PERSON", "Jane Doe"), ("PERSON", "Bob Stone"), ("PERSON", "jane doe")]
    assert await guardrail_vault.assign(T1, items) == ["<PERSON_1>", "<PERSON_2>", "<PERSON_1>"]


async def test_concurrent_assignment_from_two_processes_agrees(guardrail_vault, second_vault):
    names = [("PERSON", f"Person Number{i}") for i in range(20)]
    calls = []
    for i in range(10):
        calls.append(guardrail_vault.assign(T1, names[i:] + names[:i]))
        calls.append(second_vault.assign(T1, list(reversed(names))))
    results = await asyncio.gather(*calls)
    by_value: dict[str, set[str]] = {}
    for order, placeholders in zip(
        [
            names[i:] + names[:i] if k % 2 == 0 else list(reversed(names))
            for i in range(10)
            for k in range(2)
        ],
        results,
        strict=True,
    ):
        for (_, value), placeholder in zip(order, placeholders, strict=True):
            by_value.setdefault(value, set()).add(placeholder)
    assert all(len(p) == 1 for p in by_value.values())  # one placeholder per value, everywhere
    issued = {p for ps in by_value.values() for p in ps}
    assert issued == {f"<PERSON_{n}>" for n in range(1, 21)}  # no gaps, no duplicates


async def test_threads_do_not_share_values(guardrail_vault):
    await guardrail_vault.assign(T1, [("PERSON", "Maria Gonzalez")])
    assert await guardrail_vault.mapping(T2) == {}
    assert await guardrail_vault.assign(T2, [("PERSON", "John Smith")]) == ["<PERSON_1>"]
    assert (await guardrail_vault.mapping(T2))["<PERSON_1>"] == ("PERSON", "John Smith")
    assert (await guardrail_vault.mapping(T1))["<PERSON_1>"] == ("PERSON", "Maria Gonzalez")


async def test_redis_never_holds_a_value_in_clear(guardrail_vault, redis_url, redis_prefix):
    await guardrail_vault.assign(T1, SEEDED)
    await guardrail_vault.assign(T2, SEEDED)
    dump = redis_dump(redis_url, redis_prefix)
    assert "<PERSON_2>" in dump
    for _, value in SEEDED:
        for form in (value, value.replace(" ", ""), value.casefold()):
            assert form not in dump
    assert "4111111111111111" not in dump


async def test_vault_expires_with_the_thread(guardrail_vault, guardrail_redis, guardrail_keys):
    await guardrail_vault.assign(T1, SEEDED[:1])
    ttl = await guardrail_redis.ttl(guardrail_keys.thread(T1, "vault"))
    assert 3500 < ttl <= 3600


async def test_a_wrong_key_gives_an_error_not_plaintext(
    guardrail_vault, guardrail_redis, guardrail_keys
):
    await guardrail_vault.assign(T1, SEEDED)
    other = RedisVault(guardrail_redis, guardrail_keys, key=bytes(32), ttl_seconds=60)
    with pytest.raises(StoreError, match="VEILBOT_VAULT_KEY") as info:
        await other.mapping(T1)
    assert not any(value in str(info.value) for _, value in SEEDED)


async def test_tampered_or_moved_ciphertext_gives_an_error(
    guardrail_vault, guardrail_redis, guardrail_keys
):
    await guardrail_vault.assign(T1, SEEDED[:1])
    key1, key2 = guardrail_keys.thread(T1, "vault"), guardrail_keys.thread(T2, "vault")
    sealed = await guardrail_redis.hget(key1, "p:<PERSON_1>")
    # The same ciphertext in another thread fails: it is bound to its thread and type.
    await guardrail_redis.hset(key2, "p:<PERSON_1>", sealed)
    with pytest.raises(StoreError):
        await guardrail_vault.mapping(T2)
    blob = bytearray(base64.b64decode(sealed))
    blob[-1] ^= 1
    await guardrail_redis.hset(key1, "p:<PERSON_1>", base64.b64encode(bytes(blob)))
    with pytest.raises(StoreError):
        await guardrail_vault.mapping(T1)


async def test_redis_down_is_store_unavailable():
    client = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1)
    vault = RedisVault(client, KeySpace("vbtest-down"), key=TEST_VAULT_KEY, ttl_seconds=60)
    with pytest.raises(StoreUnavailable) as info:
        await vault.assign(T1, SEEDED)
    assert "Maria" not in str(info.value)
    with pytest.raises(StoreUnavailable):
        await vault.mapping(T1)
    await client.aclose()


# ---------------------------------------------------------------- the key


def test_configured_key_is_used(tmp_path):
    assert load_vault_key(SecretStr(TEST_VAULT_KEY_B64), tmp_path) == TEST_VAULT_KEY


@pytest.mark.parametrize(
    "spelled",
    [
        base64.b64encode,  # openssl rand -base64 32
        base64.urlsafe_b64encode,
        lambda key: base64.urlsafe_b64encode(key).rstrip(b"="),  # secrets.token_urlsafe(32)
        lambda key: base64.b64encode(key).rstrip(b"="),
    ],
)
def test_a_key_in_either_base64_alphabet_padded_or_not_is_the_same_key(spelled, tmp_path):
    key = bytes([251, 255, 62, 63] * 8)  # a key whose base64 has + / (standard) or - _
    text = " " + spelled(key).decode() + "\n"
    assert load_vault_key(SecretStr(text), tmp_path) == key


@pytest.mark.parametrize(
    "bad",
    [
        "not base64 at all!!",
        base64.urlsafe_b64encode(b"k" * 16).decode(),  # too short
        base64.urlsafe_b64encode(b"k" * 33).decode(),  # too long
        base64.b64encode(bytes([251] * 32)).decode()[:-2] + "==",  # a byte short
        TEST_VAULT_KEY_B64 + "AAAA",
        "ünïcode-kéy",
    ],
)
def test_bad_configured_key_is_refused_without_echoing_it(bad, tmp_path):
    with pytest.raises(ConfigError, match="VEILBOT_VAULT_KEY") as info:
        load_vault_key(SecretStr(bad), tmp_path)
    assert bad not in str(info.value)
    assert info.value.__cause__ is None or bad not in str(info.value.__cause__)
    assert not (tmp_path / "vault.key").exists()


def test_key_file_is_created_private_and_reused(tmp_path):
    data_dir = tmp_path / "data"
    key = load_vault_key(None, data_dir)
    path = data_dir / "vault.key"
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_vault_key(None, data_dir) == key
    assert [p.name for p in data_dir.iterdir()] == ["vault.key"]  # no temporary left behind


def test_key_file_readable_by_others_is_refused(tmp_path):
    load_vault_key(None, tmp_path)
    os.chmod(tmp_path / "vault.key", 0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_vault_key(None, tmp_path)


def test_corrupt_key_file_is_refused(tmp_path):
    path = tmp_path / "vault.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"short\n")
    os.close(fd)
    with pytest.raises(ConfigError, match="vault key file"):
        load_vault_key(None, tmp_path)


async def test_retain_drops_every_trace_of_the_other_values_and_never_reuses_a_number(
    guardrail_vault, redis_url, guardrail_keys
):
    jane = VaultEntry("PERSON", "Jane Doe", parts=("jane", "doe"))
    john = VaultEntry("PERSON", "John Smith", parts=("john", "smith"))
    assert await guardrail_vault.assign(T1, [jane, john]) == ["<PERSON_1>", "<PERSON_2>"]

    assert await guardrail_vault.retain(T1, ["<PERSON_2>"]) == 1
    assert await guardrail_vault.mapping(T1) == {"<PERSON_2>": ("PERSON", "John Smith")}
    # No lookup or name token of Jane Doe is left: "Jane" is nobody known now, and she
    # comes back under a new number, never one that stood for someone else.
    assert (await guardrail_vault.lookup(T1, [], ["jane", "john"]))[1] == [None, "<PERSON_2>"]
    again = await guardrail_vault.assign(T1, [VaultEntry("PERSON", "Jane Doe", parts=("jane",))])
    assert again == ["<PERSON_3>"]
    client = async_redis(redis_url)
    try:
        fields = await client.hlen(guardrail_keys.thread(T1, "vault"))
    finally:
        await client.aclose()
    # two values (h:, p:, k:), three name tokens, one counter, the layout mark and Jane Doe's
    # new placeholder waiting for a retention to settle it (u:)
    assert fields == 2 * 3 + 3 + 1 + 2


class _SealingThreads(RedisVault):
    """A vault that notes which thread sealed each value."""

    sealed_on: set[int]

    def _seal(self, tid: ThreadId, entity_type: str, value: str) -> str:
        self.sealed_on.add(threading.get_ident())
        return super()._seal(tid, entity_type, value)


@pytest.mark.parametrize("count", [OFF_LOOP_VALUES, OFF_LOOP_VALUES + 1])
async def test_a_message_of_many_values_is_sealed_off_the_event_loop(
    guardrail_redis, guardrail_keys, count
):
    vault = _SealingThreads(guardrail_redis, guardrail_keys, key=TEST_VAULT_KEY, ttl_seconds=60)
    vault.sealed_on = set()
    items = [("PERSON", f"Person Number{i:03d}") for i in range(count)]
    placeholders = await vault.assign(T1, items)
    assert placeholders == [f"<PERSON_{i}>" for i in range(1, count + 1)]
    assert await vault.mapping(T1) == {p: item for p, item in zip(placeholders, items, strict=True)}
    on_loop = vault.sealed_on == {threading.get_ident()}
    assert on_loop == (count <= OFF_LOOP_VALUES)


def _shape(fields: dict[str, bytes | str]) -> list[tuple[str, str]]:
    """A vault's fields as kind and placeholder (``*``, a number): what two threads share.

    Bookkeeping (``k:`` lists, ``u:`` unsettled placeholders) aside.
    """
    return sorted(
        (name[:2], "sealed" if name.startswith("p:") else str(value))
        for name, value in fields.items()
        if not name.startswith(("k:", "u:"))
    )


async def _fill(vault: RedisVault, tid: ThreadId) -> None:
    jane = VaultEntry("PERSON", "Jane Doe", parts=("jane", "doe"))
    john = VaultEntry("PERSON", "John Doe", parts=("john", "doe"))  # "doe" is ambiguous now
    mail = VaultEntry("EMAIL_ADDRESS", "jane@example.com")
    assert await vault.assign(tid, [jane, john, mail]) == [
        "<PERSON_1>",
        "<PERSON_2>",
        "<EMAIL_ADDRESS_1>",
    ]


async def test_forget_leaves_the_vault_retain_would_and_reads_only_what_it_drops(
    redis_server, guardrail_keys
):
    client = aioredis.Redis.from_url(redis_server.url)
    vault = RedisVault(client, guardrail_keys, key=TEST_VAULT_KEY, ttl_seconds=60)
    try:
        await _fill(vault, T1)
        await _fill(vault, T2)
        before = await command_calls(client)
        assert await vault.forget(T1, ["<PERSON_1>", "<EMAIL_ADDRESS_1>"]) == 2
        assert "hgetall" not in command_delta(before, await command_calls(client))
        assert await vault.retain(T2, ["<PERSON_2>"]) == 2
        assert _shape(await vault.read(T1)) == _shape(await vault.read(T2))
        assert await vault.mapping(T1) == {"<PERSON_2>": ("PERSON", "John Doe")}
        # "doe" stays ambiguous, "jane" is nobody now, "john" still John Doe
        owners = (await vault.lookup(T1, [], ["jane", "doe", "john"]))[1]
        assert owners == [None, None, "<PERSON_2>"]
        before = await command_calls(client)
        assert await vault.forget(T1, ["<PERSON_1>"]) == 0  # already gone: nothing to do
        assert "hgetall" not in command_delta(before, await command_calls(client))
    finally:
        await client.aclose()


async def test_forget_finds_the_fields_of_a_value_stored_before_they_were_listed(
    guardrail_vault, guardrail_redis, guardrail_keys
):
    await _fill(guardrail_vault, T1)
    name = guardrail_keys.thread(T1, "vault")
    await guardrail_redis.hdel(name, "k:<PERSON_1>", "k:<PERSON_2>", "k:<EMAIL_ADDRESS_1>")
    await _fill(guardrail_vault, T2)

    assert await guardrail_vault.forget(T1, ["<PERSON_1>", "<EMAIL_ADDRESS_1>"]) == 2
    assert await guardrail_vault.retain(T2, ["<PERSON_2>"]) == 2
    assert _shape(await guardrail_vault.read(T1)) == _shape(await guardrail_vault.read(T2))
