"""The core: value types, the error tree, the ports, and the guarded turn written against them.

Owns ``types``, ``errors``, ``ports``, ``conversation`` (the turn), ``budget`` (the context
budget), ``text`` (input hygiene, the replies users see) and ``logsafe`` (logging failures
without their text). It imports nothing else of veilbot and no third-party package: every
other package depends on it, and it depends on none of them.
"""
