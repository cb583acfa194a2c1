"""Detection: the pipeline from a message's text to its findings, and where it runs.

``detection`` runs the steps (normalize, Presidio with veilbot's rules, precision, repeats)
over one text or many; ``workers`` runs it in worker processes (or a thread), and
``batching`` hands texts that wait for a busy pool to the next free worker together.
Imports ``guardrails.text``, ``guardrails.rules``, ``engine`` and ``policy``.
"""
