"""The PII guardrail: Presidio detection, the per-thread vault, placeholders.

Owns detection (``engine``, ``detection``, ``recognizers``, ``normalize``, ``linkdecode``,
``folding``, the precision and name rules, ``workers``), the per-thread vault (``vault``,
``vaultkey``), the sealing of the turn queue's events (``sealing``), the placeholder grammar
and restore (``placeholders``, ``reveal``) and ``PresidioGuardrail`` (``presidio``), which
implements ``bot.core.ports.Guardrail``.

Imports ``bot.core`` and its own SDKs (Presidio, spaCy, redis, cryptography); never the rest
of ``bot`` or ``adapters``. Importing this package imports none of its modules, so the vault
key (``guardrails.vaultkey``) loads without Presidio or spaCy; ``build_analyzer`` loads them.
"""
