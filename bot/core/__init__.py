"""The core: value types, the error tree, the ports, and the guarded turn written against them.

Owns ``types``, ``errors``, ``ports``, ``conversation`` (the turn), ``window`` (the context
window: the history that fits one request), ``budgets`` (monthly spending budgets, and
``budget_watch`` around the model call), ``text`` (input hygiene, the replies users see),
``keys`` (the Redis key names the history and the vault share) and ``logsafe`` (logging
failures without their text).

Imports nothing else of veilbot and no third-party package: every other package depends on
the core, and the core on none of them.
"""
