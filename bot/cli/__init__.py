"""The ``veilbot`` command line: ``console``, ``run``, ``redact``, ``audit``, ``forget``, ``admin``.

Owns ``main`` (the parser and the entry point) and one module per group of commands:
``audit`` (``audit …`` and ``forget``) and ``admin`` (``admin …``).

Part of the composition root: it may import any package, and gets its components from
``bot.app`` (the service) and ``bot.stores`` (the stores alone, for the admin commands).
"""
