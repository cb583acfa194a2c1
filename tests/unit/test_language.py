"""Language per message: identified among a scope's languages, English by default."""

from __future__ import annotations

from typing import get_args

import pytest

from bot.core.scopes import Language
from guardrails.text.language import READABLE, identify

ALL = ("de", "fr", "es", "it", "nl", "pt", "pl")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Von: Anna Schmidt\nBetreff: Rechnung März\n\nViele Grüße", "de"),
        ("Bonjour, je vous envoie le contrat demain. Cordialement", "fr"),
        ("Hola, ¿puedes revisar la factura? Saludos", "es"),
        ("Ciao, puoi controllare la fattura? Cordiali saluti", "it"),
        ("Hoi, kun je de factuur nakijken? Met vriendelijke groet", "nl"),
        ("Olá, podes verificar a fatura? Obrigado", "pt"),
        ("Cześć, możesz sprawdzić fakturę? Pozdrawiam", "pl"),
        ("can you check the invoice before Friday?", "en"),
    ],
)
def test_a_message_is_read_in_its_own_language(text: str, language: str) -> None:
    assert identify(text, ALL) == language


def test_only_the_scope_s_languages_and_english_can_come_out() -> None:
    spanish = "Hola, ¿puedes revisar la factura antes del viernes? Saludos"
    assert identify(spanish, ALL) == "es"
    assert identify(spanish, ("de",)) in ("de", "en")
    assert identify(spanish, ()) == "en"


@pytest.mark.parametrize(
    "text",
    ["ok", "", "👍", "<@U024BE7LH> 12:30", "https://intranet.example.com/rechnung/2024", "a@b.de"],
)
def test_a_message_with_too_few_letters_to_tell_is_english(text: str) -> None:
    assert identify(text, ALL) == "en"


def test_links_and_mentions_do_not_decide_the_language() -> None:
    text = "<https://example.fr/la-facture-de-mars|link> please check this before the call"
    assert identify(text, ALL) == "en"


def test_every_language_a_scope_may_name_can_be_identified() -> None:
    assert set(get_args(Language)) == set(READABLE)
