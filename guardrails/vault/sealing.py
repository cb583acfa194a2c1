"""Sealing for data that must rest in Redis with raw user text inside (queued events).

AES-256-GCM with a random 96-bit nonce per message; the associated data binds a sealed value
to its name (a queue entry), so a value copied under another name does not open.
"""

from __future__ import annotations

import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bot.core.errors import StoreError

_NONCE = 12


class AesGcmSealer:
    """The ``Sealer`` port on AES-GCM.

    Args:
        key: 32 bytes, e.g. ``guardrails.vault.keys.derive_queue_key(master)``.
    """

    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def seal(self, name: str, data: bytes) -> bytes:
        """Encrypt ``data`` for ``name``: nonce + ciphertext and tag."""
        nonce = secrets.token_bytes(_NONCE)
        return nonce + self._aead.encrypt(nonce, data, name.encode())

    def open(self, name: str, sealed: bytes) -> bytes:
        """Decrypt what ``seal`` made for ``name``.

        Raises:
            StoreError: it was not sealed for ``name`` with this key (or was altered).
        """
        try:
            return self._aead.decrypt(sealed[:_NONCE], sealed[_NONCE:], name.encode())
        except (InvalidTag, ValueError) as exc:
            raise StoreError(f"sealed value {name}: unreadable") from exc
