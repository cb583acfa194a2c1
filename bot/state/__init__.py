"""Redis state: the connection, the embedded server, history, locks, dedupe and the turn queue.

Owns ``client`` (connections that fail fast, store errors mapped onto the error tree),
``cluster`` (the Redis Cluster client ``client`` opens for a ``redis+cluster://`` URL),
``embedded`` (a real ``redis-server`` in the data directory when no URL is set), ``history``,
``locks`` (per-thread, across replicas), ``dedupe`` (platform redeliveries answered once) and
``queue`` (acked platform events that any replica answers, in order, once; ``queue_lua``).
The key names are ``bot.core.keys``, shared with the vault: every key one script or command
touches shares a hash tag, so each runs on one cluster node.

Imports ``bot.core`` and redis only; never the model, the audit log, guardrails or adapters.
"""
