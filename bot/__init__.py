"""veilbot: a Slack and Discord chat bot for Claude with a Presidio PII guardrail.

The packages of ``bot``, each with a docstring that says what it owns and may import:
``core`` (types, errors, ports, the turn), ``state`` (Redis), ``model`` (Claude, the echo
model, pricing), ``audit`` (the audit log), ``admin`` (the admin API and chat commands) and
``cli`` (the ``veilbot`` command). ``app``, ``stores``, ``service`` and ``settings`` are the
composition root: the only modules that pick concrete backends. Importing ``bot`` imports
nothing.
"""

__version__ = "0.1.0"
