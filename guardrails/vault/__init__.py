"""The per-thread vault, its keys and the sealing of queued events.

``store`` keeps each thread's placeholders and encrypted values in Redis; ``keys`` derives
the encryption, lookup, pseudonym and queue keys from ``VEILBOT_VAULT_KEY``; ``linking`` finds
values a thread knows already ("Jane" after "Jane Doe"); ``sealing`` encrypts queued events.
``keys`` loads without Presidio or spaCy. Imports ``guardrails.text``, ``guardrails.rules``
(name tokens) and ``guardrails.restore``.
"""
