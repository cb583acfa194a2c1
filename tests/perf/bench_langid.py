"""Benchmark: offline language identifiers on chat-sized messages, speed and accuracy.

The candidates from the package index that install here (py3langid, lingua, langdetect), each
restricted to the eight languages veilbot reads where the library allows it, on short chat
messages written for this benchmark (eight per language, 3 to 15 words, no personal data of
anyone real). Speed is microseconds per message (the median of ``--runs`` passes over all
messages, one thread); accuracy is the share of messages given their own language, overall
and for the ones of five words or fewer.

    .venv/bin/python -m tests.perf.bench_langid [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "pl")

MESSAGES: dict[str, list[str]] = {
    "en": [
        "can you check the deploy logs",
        "Thanks, that fixed it!",
        "the meeting moved to Thursday afternoon, is that ok for you?",
        "Please send the invoice to Maria before Friday",
        "where is the latest version of the contract",
        "ok",
        "I will call the customer back tomorrow morning",
        "Summarise this thread for the weekly report please",
    ],
    "de": [
        "kannst du die Logs vom Deployment prüfen",
        "Danke, das hat geholfen!",
        "Das Meeting ist auf Donnerstag verschoben, passt dir das?",
        "Bitte schick die Rechnung vor Freitag an Frau Weber",
        "wo ist die neueste Version des Vertrags",
        "Viele Grüße",
        "Ich rufe den Kunden morgen früh zurück",
        "Fass bitte diesen Thread für den Wochenbericht zusammen",
    ],
    "fr": [
        "tu peux vérifier les journaux du déploiement",
        "Merci, ça a marché !",
        "la réunion est déplacée à jeudi après-midi, ça te va ?",
        "Merci d'envoyer la facture à Mme Dubois avant vendredi",
        "où est la dernière version du contrat",
        "Cordialement",
        "je rappelle le client demain matin",
        "Résume ce fil pour le rapport de la semaine s'il te plaît",
    ],
    "es": [
        "puedes revisar los registros del despliegue",
        "Gracias, ¡eso lo arregló!",
        "la reunión se movió al jueves por la tarde, ¿te viene bien?",
        "Por favor envía la factura a la señora García antes del viernes",
        "dónde está la última versión del contrato",
        "Saludos cordiales",
        "Llamaré al cliente mañana por la mañana",
        "Resume este hilo para el informe semanal por favor",
    ],
    "it": [
        "puoi controllare i log del rilascio",
        "Grazie, ha funzionato!",
        "la riunione è spostata a giovedì pomeriggio, ti va bene?",
        "Per favore manda la fattura alla signora Rossi entro venerdì",
        "dov'è l'ultima versione del contratto",
        "Cordiali saluti",
        "Richiamo il cliente domani mattina",
        "Riassumi questa discussione per il rapporto settimanale per favore",
    ],
    "nl": [
        "kun je de logs van de uitrol bekijken",
        "Bedankt, dat werkte!",
        "de vergadering is verplaatst naar donderdagmiddag, is dat goed?",
        "Stuur de factuur alsjeblieft voor vrijdag naar mevrouw de Vries",
        "waar is de nieuwste versie van het contract",
        "Met vriendelijke groet",
        "Ik bel de klant morgenochtend terug",
        "Vat deze draad samen voor het weekrapport alsjeblieft",
    ],
    "pt": [
        "podes verificar os registos da implantação",
        "Obrigado, isso resolveu!",
        "a reunião passou para quinta à tarde, pode ser?",
        "Por favor envie a fatura à senhora Ferreira antes de sexta",
        "onde está a versão mais recente do contrato",
        "Atenciosamente",
        "Vou ligar ao cliente amanhã de manhã",
        "Resume esta conversa para o relatório semanal, por favor",
    ],
    "pl": [
        "możesz sprawdzić logi wdrożenia",
        "Dzięki, to pomogło!",
        "spotkanie przeniesiono na czwartek po południu, pasuje ci?",
        "Proszę wysłać fakturę do pani Nowak przed piątkiem",
        "gdzie jest najnowsza wersja umowy",
        "Z poważaniem",
        "Zadzwonię do klienta jutro rano",
        "Podsumuj ten wątek do cotygodniowego raportu proszę",
    ],
}


def _py3langid() -> Callable[[str], str]:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE)
    identifier.set_languages(list(LANGUAGES))
    return lambda text: str(identifier.classify(text)[0])


def _lingua() -> Callable[[str], str]:
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, code.upper()) for code in LANGUAGES]
    detector = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()

    def identify(text: str) -> str:
        found = detector.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found else "?"

    return identify


def _langdetect() -> Callable[[str], str]:
    from langdetect import DetectorFactory, detect

    DetectorFactory.seed = 0  # its answers are random otherwise

    def identify(text: str) -> str:
        try:
            return str(detect(text))
        except Exception:  # noqa: BLE001  (no features in the text)
            return "?"

    return identify


CANDIDATES: dict[str, Callable[[], Callable[[str], str]]] = {
    "py3langid 0.4.0": _py3langid,
    "lingua 2.1.1": _lingua,
    "langdetect 1.0.9": _langdetect,
}


def measure(identify: Callable[[str], str], runs: int) -> tuple[float, float, float]:
    """Microseconds per message, accuracy on all messages, accuracy on those of ≤ 5 words."""
    cases = [(lang, text) for lang, texts in MESSAGES.items() for text in texts]
    for _, text in cases:
        identify(text)  # warm: lazy model parts load on first use
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        for _, text in cases:
            identify(text)
        times.append((time.perf_counter() - began) / len(cases) * 1e6)
    right = [identify(text) == lang for lang, text in cases]
    short = [ok for ok, (_, text) in zip(right, cases, strict=True) if len(text.split()) <= 5]
    return statistics.median(times), sum(right) / len(right), sum(short) / len(short)


def main() -> None:
    """Print one row per candidate."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    count = sum(len(t) for t in MESSAGES.values())
    print(f"{count} messages, {len(LANGUAGES)} languages")
    print("| identifier | load ms | µs per message | accuracy | accuracy, ≤ 5 words |")
    print("|---|---|---|---|---|")
    for name, build in CANDIDATES.items():
        began = time.perf_counter()
        try:
            identify = build()
        except ImportError:
            print(f"| {name} | not installed | | | |")
            continue
        load = (time.perf_counter() - began) * 1000
        micros, accuracy, short = measure(identify, args.runs)
        print(f"| {name} | {load:.0f} | {micros:.0f} | {accuracy:.1%} | {short:.1%} |")


if __name__ == "__main__":
    main()
