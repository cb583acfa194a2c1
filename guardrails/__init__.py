"""The PII guardrail: Presidio detection, the per-thread vault, placeholders.

Importing this package does not import Presidio or spaCy; ``build_analyzer`` does.
"""

from guardrails.engine import build_analyzer
from guardrails.placeholders import PlaceholderRestorer
from guardrails.presidio import PresidioGuardrail
from guardrails.vault import RedisVault
from guardrails.vaultkey import load_vault_key

__all__ = [
    "PlaceholderRestorer",
    "PresidioGuardrail",
    "RedisVault",
    "build_analyzer",
    "load_vault_key",
]
