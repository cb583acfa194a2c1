"""The PII guardrail: Presidio detection, the per-thread vault, placeholders.

Sub-packages, each importing only those before it in this list:

- ``text``: markup normalization, link decoding and folding through one offset map; spans;
- ``restore``: the placeholder grammar, the tolerant restore and the reveal policy;
- ``ner``: the entity model: its pinned corpora, its training and the pipeline it ships as;
- ``rules``: the recognizers and their rules and data (with ``engine`` and ``policy``);
- ``vault``: the per-thread vault, its keys, known-value linking and queue sealing;
- ``detect``: the detection pipeline and the worker processes it runs in.

Beside them: ``engine`` builds Presidio's analyzer offline on that model (or another),
``policy`` reads what to redact, ``presidio`` holds ``PresidioGuardrail``
(``bot.core.ports.Guardrail``) and ``redact`` the ``veilbot redact`` command's engine.

Imports ``bot.core`` and its own SDKs (Presidio, spaCy, redis, cryptography); never the rest
of ``bot`` or ``adapters``. Importing this package imports none of its modules, so the vault
key (``guardrails.vault.keys``) loads without Presidio or spaCy; ``build_analyzer`` loads them.
"""
