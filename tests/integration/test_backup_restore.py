"""The audit database backed up and restored as docs/operations.md says: ``pg_dump -Fc``, then
``pg_restore`` into a new database; a Slack installation sealed in it opens with the key.

(Redis: ``tests/e2e/test_vault_keys.py`` restores a thread from copied RDB and AOF files.)
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import asyncpg
import pytest
from slack_sdk.oauth.installation_store import Installation
from sqlalchemy.engine import make_url

from adapters.slack.oauth.installations import SealedInstallationStore
from bot.audit.installations import SqlInstallationRows
from bot.audit.store import SqlAuditStore
from guardrails.vault.keys import KeyRing, derive_install_key
from guardrails.vault.sealing import AesGcmSealer

pytestmark = pytest.mark.postgres

KEY = bytes([5]) * 32


def sealed_store(store: SqlAuditStore) -> SealedInstallationStore:
    sealer = AesGcmSealer(KeyRing(KEY).derived(derive_install_key))
    return SealedInstallationStore(SqlInstallationRows(store.engine), sealer)


async def test_a_database_restored_from_pg_dump_opens_its_installations_with_the_key(
    postgres_url: str, tmp_path: Path
) -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.fail("pg_dump and pg_restore come with PostgreSQL's client package")
    base = make_url(postgres_url)
    names = [f"vb_backup_{uuid.uuid4().hex[:10]}", f"vb_restored_{uuid.uuid4().hex[:10]}"]
    plain = f"postgresql://{base.username}@{base.host}:{base.port}"
    admin = await asyncpg.connect(f"{plain}/postgres")
    try:
        for name in names:
            await admin.execute(f'CREATE DATABASE "{name}"')
        source, target = (base.set(database=n).render_as_string(hide_password=False) for n in names)
        async with SqlAuditStore(source) as store:
            installation = Installation(team_id="T9", user_id="U9", bot_token="xoxb-kept")
            await sealed_store(store).async_save(installation)

        dump = tmp_path / "veilbot.dump"
        subprocess.run(["pg_dump", "-Fc", "-d", f"{plain}/{names[0]}", "-f", str(dump)], check=True)
        subprocess.run(
            ["pg_restore", "--no-owner", "-d", f"{plain}/{names[1]}", str(dump)], check=True
        )

        async with SqlAuditStore(target) as restored:
            bot = await sealed_store(restored).async_find_bot(enterprise_id=None, team_id="T9")
        assert bot is not None
        assert bot.bot_token == "xoxb-kept"
    finally:
        for name in names:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
