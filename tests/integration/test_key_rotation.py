"""Vault key rotation on a real Redis and database: a key ring, the walk, the start-up check.

Threads are written by the real guardrail (Presidio, the vault's lookups and name tokens) with
the old key; after ``VaultRotation`` with the ring (new key, old key), a vault holding the new
key alone still gives the same person the same placeholder and restores every value.
"""

from __future__ import annotations

import base64
import os

import pytest
import redis.asyncio as aioredis
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from presidio_analyzer import AnalyzerEngine
from slack_sdk.oauth.installation_store import Installation

from adapters.slack.oauth.installations import SealedInstallationStore
from bot.audit.installations import SqlInstallationRows
from bot.audit.store import SqlAuditStore
from bot.core.errors import ConfigError, StoreError
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from bot.state.resealing import reseal_queue
from guardrails.presidio import PresidioGuardrail
from guardrails.vault.keys import KeyRing, derive_install_key, derive_keys, derive_queue_key, key_id
from guardrails.vault.rotation import VaultRotation, check_keys, forget_previous_keys
from guardrails.vault.sealing import MAGIC, AesGcmSealer
from guardrails.vault.store import RedisVault

pytestmark = pytest.mark.redis_cluster

OLD, NEW, OTHER = (bytes([n]) * 32 for n in (1, 2, 3))
T1 = ThreadId("slack:T1:C1:1700000000.000100")
T2 = ThreadId("discord:G1:555")
FIRST = "Please email John Smith at john.smith@example.com, or call +1 415 555 0123."
LATER = "Did john smith answer? Ask John, or try +1 (415) 555-0123 or john.smith@example.com."


def vault_on(
    redis: aioredis.Redis | aioredis.RedisCluster, keys: KeySpace, *ring: bytes
) -> RedisVault:
    return RedisVault(redis, keys, key=KeyRing(ring[0], ring[1:]), ttl_seconds=600)


def guard(analyzer: AnalyzerEngine, vault: RedisVault) -> PresidioGuardrail:
    return PresidioGuardrail(analyzer, vault)


@pytest.fixture
async def written(
    presidio_analyzer: AnalyzerEngine, guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace
) -> str:
    """Two threads written with the old key; the first message's redacted text."""
    old = guard(presidio_analyzer, vault_on(guardrail_redis, guardrail_keys, OLD))
    first = await old.anonymize(T1, FIRST, platform="slack")
    await old.anonymize(T2, "Maria Gonzalez lives in Denver.", platform="discord")
    return first.text


async def later_turn(analyzer: AnalyzerEngine, vault: RedisVault) -> tuple[str, str]:
    """The next message of the thread, redacted, and the answer's placeholders restored."""
    guardrail = guard(analyzer, vault)
    later = await guardrail.anonymize(T1, LATER, platform="slack")
    restorer = await guardrail.restorer(T1, platform="slack", private=True)
    return later.text, restorer.restore(later.text).text


async def test_a_ring_opens_and_finds_what_the_previous_key_sealed(
    presidio_analyzer: AnalyzerEngine,
    guardrail_redis: aioredis.Redis,
    guardrail_keys: KeySpace,
    written: str,
) -> None:
    assert written == "Please email <PERSON_1> at <EMAIL_ADDRESS_1>, or call <PHONE_NUMBER_1>."
    ring = vault_on(guardrail_redis, guardrail_keys, NEW, OLD)
    text, restored = await later_turn(presidio_analyzer, ring)

    assert text == (
        "Did <PERSON_1> answer? Ask <PERSON_1>, or try <PHONE_NUMBER_1> or <EMAIL_ADDRESS_1>."
    )
    assert restored == (
        "Did John Smith answer? Ask John Smith, or try +1 415 555 0123 or john.smith@example.com."
    )


async def test_after_rotation_the_new_key_alone_keeps_every_thread_working(
    presidio_analyzer: AnalyzerEngine,
    guardrail_redis: aioredis.Redis,
    guardrail_keys: KeySpace,
    written: str,
) -> None:
    ring = vault_on(guardrail_redis, guardrail_keys, NEW, OLD)
    done = await VaultRotation(ring, guardrail_keys, page=10).run()
    assert (done.threads, done.rekeyed, done.unreadable, done.left) == (2, 2, 0, 0)

    alone = vault_on(guardrail_redis, guardrail_keys, NEW)
    text, restored = await later_turn(presidio_analyzer, alone)
    assert text == (
        "Did <PERSON_1> answer? Ask <PERSON_1>, or try <PHONE_NUMBER_1> or <EMAIL_ADDRESS_1>."
    )
    assert "John Smith" in restored
    assert await alone.mapping(T2) == {
        "<PERSON_1>": ("PERSON", "Maria Gonzalez"),
        "<LOCATION_1>": ("LOCATION", "Denver"),
    }
    for tid in (T1, T2):
        sealed = [v for n, v in (await alone.read(tid)).items() if n.startswith("p:")]
        assert all(base64.b64decode(v).startswith(MAGIC + key_id(NEW)) for v in sealed)
        with pytest.raises(StoreError, match="is not configured"):
            await vault_on(guardrail_redis, guardrail_keys, OLD).mapping(tid)


async def test_a_rotation_run_again_passes_over_what_it_finished(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace, written: str
) -> None:
    ring = vault_on(guardrail_redis, guardrail_keys, NEW, OLD)
    await VaultRotation(ring, guardrail_keys).run()
    again = await VaultRotation(ring, guardrail_keys).run()
    assert (again.threads, again.rekeyed, again.values, again.lookups) == (2, 0, 0, 0)


async def test_values_sealed_before_key_ids_existed_open_and_rotate(
    presidio_analyzer: AnalyzerEngine,
    guardrail_redis: aioredis.Redis,
    guardrail_keys: KeySpace,
    written: str,
) -> None:
    """What a deployment from before key ids holds: nonce first, no key id (still read)."""
    old = vault_on(guardrail_redis, guardrail_keys, OLD)
    aead = AESGCM(derive_keys(OLD).encryption)
    vault_key = guardrail_keys.thread(T1, "vault")
    for placeholder, (entity_type, value) in (await old.mapping(T1)).items():
        nonce = os.urandom(12)
        aad = b"veilbot-vault-v1\x00" + T1.encode() + b"\x00" + entity_type.encode()
        legacy = base64.b64encode(nonce + aead.encrypt(nonce, value.encode(), aad))
        await guardrail_redis.hset(vault_key, f"p:{placeholder}", legacy)

    ring = vault_on(guardrail_redis, guardrail_keys, NEW, OLD)
    assert (await ring.mapping(T1))["<PERSON_1>"] == ("PERSON", "John Smith")
    await VaultRotation(ring, guardrail_keys).run()
    alone = vault_on(guardrail_redis, guardrail_keys, NEW)
    _, restored = await later_turn(presidio_analyzer, alone)
    assert "+1 415 555 0123" in restored


async def test_start_up_refuses_a_key_that_opens_nothing_here_and_names_it(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace, written: str
) -> None:
    # data from before the record of key ids: a few vaults are read to tell
    with pytest.raises(ConfigError, match="does not open the threads in Redis") as sampled:
        await check_keys(vault_on(guardrail_redis, guardrail_keys, OTHER), guardrail_keys)
    assert f"sealed with key {key_id(OLD).hex()}" in str(sampled.value)
    assert "VEILBOT_VAULT_PREVIOUS_KEYS" in str(sampled.value)

    await check_keys(vault_on(guardrail_redis, guardrail_keys, OLD), guardrail_keys)
    with pytest.raises(ConfigError, match=f"sealed with key {key_id(OLD).hex()}"):
        await check_keys(vault_on(guardrail_redis, guardrail_keys, OTHER), guardrail_keys)


async def test_a_key_may_change_freely_while_nothing_is_sealed_yet(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace
) -> None:
    await check_keys(vault_on(guardrail_redis, guardrail_keys, OLD), guardrail_keys)
    await check_keys(vault_on(guardrail_redis, guardrail_keys, OTHER), guardrail_keys)


async def test_a_record_whose_threads_are_all_gone_holds_no_key_back(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace, written: str
) -> None:
    await check_keys(vault_on(guardrail_redis, guardrail_keys, OLD), guardrail_keys)
    for tid in (T1, T2):  # erased, or expired
        await guardrail_redis.delete(guardrail_keys.thread(tid, "vault"))
    await check_keys(vault_on(guardrail_redis, guardrail_keys, OTHER), guardrail_keys)


async def test_the_previous_key_is_needed_until_the_rotation_has_finished(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace, written: str
) -> None:
    await check_keys(vault_on(guardrail_redis, guardrail_keys, OLD), guardrail_keys)
    ring = vault_on(guardrail_redis, guardrail_keys, NEW, OLD)
    await check_keys(ring, guardrail_keys)  # the replicas restarted with the ring
    with pytest.raises(ConfigError, match="keep it in VEILBOT_VAULT_PREVIOUS_KEYS"):
        await check_keys(vault_on(guardrail_redis, guardrail_keys, NEW), guardrail_keys)

    await VaultRotation(ring, guardrail_keys).run()
    await forget_previous_keys(ring, guardrail_keys)
    await check_keys(vault_on(guardrail_redis, guardrail_keys, NEW), guardrail_keys)
    with pytest.raises(ConfigError, match="does not open"):
        await check_keys(vault_on(guardrail_redis, guardrail_keys, OLD), guardrail_keys)


async def test_queued_events_are_sealed_again(
    guardrail_redis: aioredis.Redis, guardrail_keys: KeySpace
) -> None:
    old = AesGcmSealer(KeyRing(OLD).derived(derive_queue_key))
    payloads = guardrail_keys.queue("payloads")
    await guardrail_redis.hset(payloads, "slack:Ev1", old.seal("slack:Ev1", b"raw event"))

    ring = AesGcmSealer(KeyRing(NEW, (OLD,)).derived(derive_queue_key))
    assert await reseal_queue(guardrail_redis, guardrail_keys, ring) == (1, 0)
    assert await reseal_queue(guardrail_redis, guardrail_keys, ring) == (0, 0)
    alone = AesGcmSealer(KeyRing(NEW).derived(derive_queue_key))
    sealed = await guardrail_redis.hget(payloads, "slack:Ev1")
    assert alone.open("slack:Ev1", sealed) == b"raw event"


async def test_an_installation_sealed_with_the_old_key_works_after_rotation(
    audit_store: SqlAuditStore,
) -> None:
    rows = SqlInstallationRows(audit_store.engine)

    def store(*ring: bytes) -> SealedInstallationStore:
        sealer = AesGcmSealer(KeyRing(ring[0], ring[1:]).derived(derive_install_key))
        return SealedInstallationStore(rows, sealer)

    await store(OLD).async_save(
        Installation(team_id="T1", user_id="U1", bot_token="xoxb-old-key", bot_id="B1")
    )
    with pytest.raises(ConfigError, match="do not open"):
        await store(NEW).check_opens()
    assert await store(NEW, OLD).reseal() == (1, 0)

    await store(NEW).check_opens()
    found = await store(NEW).async_find_bot(enterprise_id=None, team_id="T1")
    assert found is not None
    assert found.bot_token == "xoxb-old-key"
