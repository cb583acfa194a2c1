"""The vault's master keys: from ``VEILBOT_VAULT_KEY`` or a private key file in the data dir.

A master key is 32 random bytes. Subkeys are derived from it with HKDF-SHA256, one for each
use (AES-GCM encryption of vault values, the HMAC that indexes them, queued events, Slack
installations, audit pseudonyms), so no use can weaken another.

A key ring (``KeyRing``) is the current key, which seals everything new, and the keys before
it (``VEILBOT_VAULT_PREVIOUS_KEYS``), which still open what they sealed until ``veilbot vault
rotate`` has sealed it again with the current one. Every sealed value records the id of the
key that sealed it (``key_id``: 4 bytes derived from the key, which tell nothing of it).
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pydantic import SecretStr

from bot.core.errors import ConfigError

logger = logging.getLogger(__name__)

KEY_SETTING = "VEILBOT_VAULT_KEY"
PREVIOUS_SETTING = "VEILBOT_VAULT_PREVIOUS_KEYS"
KEY_FILE_NAME = "vault.key"
KEY_BYTES = 32
_HKDF_SALT = b"veilbot-vault-v1"


@dataclass(frozen=True, slots=True)
class VaultKeys:
    """The two subkeys of the vault, derived from one master key.

    Attributes:
        encryption: AES-256-GCM key for vault values.
        index: HMAC-SHA256 key for value lookups.
    """

    encryption: bytes
    index: bytes

    def __repr__(self) -> str:
        return "VaultKeys(<hidden>)"


def _subkey(master: bytes, purpose: bytes) -> bytes:
    """One subkey of the 32-byte master key; ``ConfigError`` for a key of another length."""
    if len(master) != KEY_BYTES:
        raise ConfigError(f"the vault key must be {KEY_BYTES} bytes, got {len(master)}")
    return _hkdf(master, purpose)


def derive_keys(master: bytes) -> VaultKeys:
    """Derive the encryption and HMAC subkeys from a 32-byte master key.

    Raises:
        ConfigError: the master key is not 32 bytes long.
    """
    return VaultKeys(encryption=_subkey(master, b"encryption"), index=_subkey(master, b"index"))


def derive_pseudonym_key(master: bytes) -> bytes:
    """The HMAC key that replaces a forgotten user's id in the audit runs ``forget`` keeps.

    Raises:
        ConfigError: the master key is not 32 bytes long.
    """
    return _subkey(master, b"audit-pseudonym")


def derive_queue_key(master: bytes) -> bytes:
    """The AES-GCM key that seals queued platform events (raw user text) in Redis.

    Raises:
        ConfigError: the master key is not 32 bytes long.
    """
    return _subkey(master, b"turn-queue")


def derive_install_key(master: bytes) -> bytes:
    """The AES-GCM key that seals Slack installations (OAuth tokens) in the audit database.

    Raises:
        ConfigError: the master key is not 32 bytes long.
    """
    return _subkey(master, b"slack-installations")


def key_id(master: bytes) -> bytes:
    """The 4-byte id a sealed value records of the master key that sealed it."""
    return _subkey(master, b"key-id")[:KEY_ID_BYTES]


KEY_ID_BYTES = 4


@dataclass(frozen=True, slots=True)
class KeyRing:
    """The current master key and the previous ones that still open what they sealed.

    Attributes:
        current: seals everything new.
        previous: older keys, newest first; they open, never seal.
    """

    current: bytes
    previous: tuple[bytes, ...] = ()

    @property
    def keys(self) -> tuple[bytes, ...]:
        """Every key, the current one first."""
        return (self.current, *self.previous)

    @property
    def ids(self) -> tuple[bytes, ...]:
        """Every key's id (``key_id``), the current one first."""
        return tuple(key_id(k) for k in self.keys)

    def derived(self, derive: Callable[[bytes], bytes]) -> list[tuple[bytes, bytes]]:
        """``(key id, subkey)`` of every key for one use, e.g. ``derive_queue_key``."""
        return [(key_id(k), derive(k)) for k in self.keys]

    def __repr__(self) -> str:
        return f"KeyRing(ids={[i.hex() for i in self.ids]})"


def load_key_ring(
    configured: SecretStr | None, previous: SecretStr | None, data_dir: Path
) -> KeyRing:
    """The key ring: ``load_vault_key`` as the current key, ``previous`` after it.

    Args:
        configured: ``VEILBOT_VAULT_KEY`` (unset: the key file in ``data_dir``).
        previous: ``VEILBOT_VAULT_PREVIOUS_KEYS``: keys in base64, separated by commas or
            blanks, newest first; one equal to the current key is left out.
        data_dir: where the key file lives.

    Raises:
        ConfigError: a key is malformed (the message says which, never the key).
    """
    current = load_vault_key(configured, data_dir)
    older: list[bytes] = []
    raw = previous.get_secret_value() if previous is not None else ""
    for number, text in enumerate(raw.replace(",", " ").split(), start=1):
        key = _decode(text, f"key {number} of {PREVIOUS_SETTING}")
        if key != current and key not in older:
            older.append(key)
    return KeyRing(current, tuple(older))


def _hkdf(master: bytes, info: bytes) -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=_HKDF_SALT, info=info)
    return hkdf.derive(master)


def generate_key() -> str:
    """A new master key, in the form ``VEILBOT_VAULT_KEY`` expects (urlsafe base64)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii")


def load_vault_key(configured: SecretStr | None, data_dir: Path) -> bytes:
    """The vault's 32-byte master key.

    Args:
        configured: ``VEILBOT_VAULT_KEY``, base64 of 32 bytes (either alphabet), or ``None``.
        data_dir: where ``vault.key`` is read from, or created (mode 0600) when missing.

    Returns:
        The raw master key; pass it to ``RedisVault`` (or ``derive_keys``).

    Raises:
        ConfigError: the configured key is malformed, or the key file is unreadable, malformed
            or readable by group or others. Messages never contain key material.
    """
    if configured is not None:
        return _decode(configured.get_secret_value(), KEY_SETTING)
    path = data_dir / KEY_FILE_NAME
    try:
        return _read_key_file(path)
    except FileNotFoundError:
        pass
    try:
        return _create_key_file(path)
    except FileExistsError:  # another process created it first: use theirs
        return _read_key_file(path)


_TO_URLSAFE = str.maketrans("+/", "-_")


def _decode(raw: str, source: str) -> bytes:
    """A key in base64 of 32 bytes: url-safe or standard alphabet, padded or not.

    The two alphabets differ only in the characters for 62 and 63 (``-_`` and ``+/``), so
    reading both gives every key one meaning; what ``openssl rand -base64 32`` and
    ``secrets.token_urlsafe(32)`` print are both accepted.
    """
    text = raw.strip().translate(_TO_URLSAFE)
    text += "=" * (-len(text) % 4)
    try:
        key = base64.urlsafe_b64decode(text.encode("ascii"))
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise ConfigError(
            f"{source} is not base64 of {KEY_BYTES} bytes; create one with: openssl rand -base64 32"
        ) from None
    if len(key) != KEY_BYTES or base64.urlsafe_b64encode(key).decode("ascii") != text:
        raise ConfigError(f"{source} must be base64 of exactly {KEY_BYTES} bytes")
    return key


def _read_key_file(path: Path) -> bytes:
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(
                f"vault key file {path} is accessible by group or others; "
                f"run: chmod 600 {path} (or set {KEY_SETTING})"
            )
        raw = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read vault key file {path}") from exc
    return _decode(raw, f"vault key file {path}")


def _create_key_file(path: Path) -> bytes:
    key = secrets.token_bytes(KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Write under a temporary name, then link into place, so a reader never sees a
        # half-written key and the final name appears atomically (O_EXCL semantics).
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(base64.urlsafe_b64encode(key).decode("ascii") + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.link(tmp, path)  # FileExistsError when another process won the race
        finally:
            tmp.unlink(missing_ok=True)
    except FileExistsError:
        raise
    except OSError as exc:
        raise ConfigError(f"cannot create vault key file {path} (or set {KEY_SETTING})") from exc
    logger.warning("created a new vault key at %s; back it up or the vault is unreadable", path)
    return key
