"""Sealing with a key ring: what rests in Redis or the database with raw user data inside.

AES-256-GCM with a random 96-bit nonce per value; the associated data binds a sealed value to
its name (a queue entry, an installation's row, a vault entry's thread and type), so a value
copied under another name does not open.

A sealed value is ``VK1`` + the id of the key that sealed it (``keys.key_id``) + nonce +
ciphertext and tag. It opens with the ring's key of that id; a value sealed before key ids
existed (nonce first) opens with whichever key of the ring fits. ``veilbot vault rotate``
seals again (``SealingKeys.reseal``) what a previous key sealed.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bot.core.errors import StoreError
from guardrails.vault.keys import KEY_ID_BYTES, key_id

_NONCE = 12
MAGIC = b"VK1"
_HEADER = len(MAGIC) + KEY_ID_BYTES


class Unopened(Exception):  # noqa: N818  (a reason, turned into StoreError by the callers)
    """A sealed value no key of the ring opens.

    Attributes:
        key_id: the id the value names, when it names one the ring does not hold.
    """

    def __init__(self, key_id: bytes | None) -> None:
        super().__init__("sealed value does not open")
        self.key_id = key_id


class SealingKeys:
    """One use's AES-GCM keys, one per key of the ring, the current one first.

    Args:
        keys: ``(key id, 32-byte key)`` pairs, e.g. ``KeyRing.derived(derive_queue_key)``.
    """

    def __init__(self, keys: Sequence[tuple[bytes, bytes]]) -> None:
        if not keys:
            raise ValueError("a key ring needs a key")
        self._ring = [(kid, AESGCM(key)) for kid, key in keys]
        self._by_id = dict(self._ring)
        self.current_id = self._ring[0][0]

    def seal(self, data: bytes, aad: bytes) -> bytes:
        """Encrypt ``data`` with the current key, bound to ``aad``."""
        nonce = secrets.token_bytes(_NONCE)
        kid, aead = self._ring[0]
        return MAGIC + kid + nonce + aead.encrypt(nonce, data, aad)

    def open(self, sealed: bytes, aad: bytes) -> bytes:
        """Decrypt what ``seal`` made for ``aad`` with any key of the ring.

        Raises:
            Unopened: no key opens it (another key or ``aad``, or altered).
        """
        named = sealed[len(MAGIC) : _HEADER] if sealed.startswith(MAGIC) else None
        aead = self._by_id.get(named) if named is not None else None
        if aead is not None:
            try:
                return _decrypt(aead, sealed[_HEADER:], aad)
            except (InvalidTag, ValueError):
                pass
        for _, other in self._ring:  # sealed before key ids (its nonce may start like MAGIC)
            try:
                return _decrypt(other, sealed, aad)
            except (InvalidTag, ValueError):
                continue
        raise Unopened(named if named is not None and aead is None else None)

    def opener(self, sealed: bytes, aad: bytes) -> bytes | None:
        """The id of the key that opens ``sealed``, or ``None`` when none does."""
        for kid, aead in self._ring:
            for body in (sealed[_HEADER:], sealed) if sealed.startswith(MAGIC + kid) else (sealed,):
                try:
                    _decrypt(aead, body, aad)
                except (InvalidTag, ValueError):
                    continue
                return kid
        return None

    def is_current(self, sealed: bytes) -> bool:
        """Whether the current key sealed it (per its header: ``open`` still checks)."""
        return sealed.startswith(MAGIC + self.current_id)

    def reseal(self, sealed: bytes, aad: bytes) -> bytes | None:
        """``sealed`` sealed again with the current key, or ``None`` when it already is.

        Raises:
            Unopened: no key of the ring opens it.
        """
        if self.is_current(sealed):
            return None
        return self.seal(self.open(sealed, aad), aad)


def recorded_key(sealed: bytes) -> bytes | None:
    """The key id a sealed value records, or ``None`` (sealed before key ids)."""
    return sealed[len(MAGIC) : _HEADER] if sealed.startswith(MAGIC) else None


def _decrypt(aead: AESGCM, body: bytes, aad: bytes) -> bytes:
    return aead.decrypt(body[:_NONCE], body[_NONCE:], aad)


def unopened_reason(exc: Unopened) -> str:
    """Why a value did not open, for an error message (ids only)."""
    if exc.key_id is not None:
        return f"sealed with key {exc.key_id.hex()}, which is not configured"
    return "no configured key opens it (another key, or altered)"


class AesGcmSealer:
    """The ``Sealer`` port on AES-GCM with a key ring.

    Args:
        keys: a 32-byte key (a ring of one), or ``(key id, key)`` pairs, the current first,
            e.g. ``KeyRing.derived(derive_queue_key)``.
    """

    def __init__(self, keys: bytes | Sequence[tuple[bytes, bytes]]) -> None:
        self.keys = SealingKeys([(key_id(keys), keys)] if isinstance(keys, bytes) else keys)

    def seal(self, name: str, data: bytes) -> bytes:
        """Encrypt ``data`` for ``name`` with the current key."""
        return self.keys.seal(data, name.encode())

    def open(self, name: str, sealed: bytes) -> bytes:
        """Decrypt what ``seal`` made for ``name``, with any key of the ring.

        Raises:
            StoreError: it was not sealed for ``name`` with a key of the ring (or was altered).
        """
        try:
            return self.keys.open(sealed, name.encode())
        except Unopened as exc:
            raise StoreError(f"sealed value {name}: unreadable, {unopened_reason(exc)}") from exc

    def reseal(self, name: str, sealed: bytes) -> bytes | None:
        """``sealed`` sealed again with the current key, or ``None`` when it already is.

        Raises:
            StoreError: no key of the ring opens it.
        """
        try:
            return self.keys.reseal(sealed, name.encode())
        except Unopened as exc:
            raise StoreError(f"sealed value {name}: unreadable, {unopened_reason(exc)}") from exc
