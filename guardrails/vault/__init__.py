"""The per-thread vault, its keys, key rotation and the sealing of queued events.

``store`` keeps each thread's placeholders and encrypted values in Redis (``scripts``: its Lua
steps; ``opened``: a turn's values, unsealed when read; ``listing``: a vault written before its
values were listed, listed once); ``keys`` derives the encryption, lookup, pseudonym and
queue keys from ``VEILBOT_VAULT_KEY`` and holds the key ring; ``sealing`` seals with the
ring; ``rotation`` seals the vaults again with the current key and checks at start that the
ring opens them; ``linking`` finds values a thread knows already ("Jane" after "Jane Doe").
``keys`` loads without Presidio or spaCy. Imports ``guardrails.text``, ``guardrails.rules``
(name tokens) and ``guardrails.restore``.
"""
