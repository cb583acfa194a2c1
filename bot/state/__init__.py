"""Redis state: the connection, the embedded server, thread history, locks and event dedupe.

Owns ``client`` (connections that fail fast, store errors mapped onto the error tree),
``embedded`` (a real ``redis-server`` in the data directory when no URL is set), ``history``,
``locks`` (per-thread, across replicas) and ``dedupe`` (platform redeliveries answered once).
The key names are ``bot.core.keys``, shared with the vault.

Imports ``bot.core`` and redis only; never the model, the audit log, guardrails or adapters.
"""
