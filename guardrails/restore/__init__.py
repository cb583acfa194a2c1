"""Placeholders and the way back: their grammar, the tolerant restore and the reveal policy.

``placeholders`` reads and writes ``<TYPE_n>`` in every form models return it; ``reveal``
decides per entity type whether a value comes back, masked or not at all. Imports nothing else
of ``guardrails``.
"""
