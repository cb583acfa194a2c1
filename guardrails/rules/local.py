"""What is no name in a language other than English: its function words, greetings, headers.

The English entity model, which reads a language without a model of its own, takes the
capitalised words chat and e-mail begin with in another language for people and places: "De",
"La", "Nie", "Von", "Betreff", "Viele Grüße", "Cordialement", "Bedankt", "Pozdrawiam". In a
message identified as one of the scope's languages (``guardrails.text.language``), a person or
place is trimmed of such words at both ends, and dropped when nothing is left:

- the language's stop words (spaCy's lists in ``spacy.lang.<code>.stop_words``: no model);
- its salutations, closings, thanks and e-mail header words (``NOT_NAMES``);
- its weekdays and months, also abbreviated ("Mo.", "Juni");
- its courtesy titles ("Herr", "Madame", "Pani"), which stay outside the name;
- in German, a verb's imperative that opens a sentence before an object pronoun, an article
  or a particle of a request ("Schick mir", "Schick das", "Sag bitte": ``IMPERATIVE_NEXT``);
- in French, a lone word after a determiner is no person ("la Révolution": ``DETERMINERS``);
- in French, Spanish and Portuguese, a town that ends a team's name is no place ("les Yankees
  de New York": ``team_town``);
- a word of chat (``common_word``) that opens a sentence, or is in lower case, and that no
  lexicon knows as a name ("Wczoraj", "Mieszkam", "chiamo", "jutro": ``_chat_word``);
- in German, a noun of the training text after an article ("am Tor": ``ARTICLES``).

A name given as one's own is a person however rare ("ich heiße Volkbert", "ik heet Sjoerdje":
``INTRODUCTIONS``), and the words it is given with stay outside it ("[chamo-me] Deolinda").
A Polish name declined ("z Tomkiem", "Markowi") is the lexicon's name (``_declined``), and in
a message written without capitals a first name in lower case is a name ("dile a javi":
``lower_names``).

A lone word the model or a rule calls a person is one only after such a title, beside a
German word of saying ("Lippelt betonte", "mit Vogts gesprochen": ``_SPEECH``), or when the
name lexicon lists it (in German: as a common first name, since many German nouns are also
surnames), and one called a place only when it is a known place, accents aside ("Cádiz"). This
holds in German for every such word, as German capitalises every noun ("Behandlung", "Konto",
"Rechnung"); in the other languages for a word in lower case and for one that begins a line,
sentence or header value ("Factura", "Onderwerp"), as a capital letter elsewhere in them
still says "name" ("habló con Aznar"). A lone word the language's own entity model
(``guardrails.detect.models``) calls a name is kept, as that model read it in its context,
unless it is a header's value ("Asunto: Factura"). A capitalised article or a particle before
a capitalised word begins the name ("La Coruña", "van Dijk"; a rule's capitalised article
only where it does not open a sentence: "En France" is no person), and a capitalised stop
word that ends a name is part of it ("Dirk De Wilde").
"""

from __future__ import annotations

import functools
import gzip
import importlib
import re
import unicodedata
from collections.abc import Callable
from importlib import resources

from guardrails.engine import Vocabulary
from guardrails.rules.places import exonyms

_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*\.?")

TITLES: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "de": "herr herrn frau fräulein hr hr. fr. dr dr. prof prof.",
        "fr": "monsieur madame mademoiselle m. mme mme. mlle mlle. me dr dr. pr",
        "es": "señor señora señorita sr sr. sra sra. srta srta. don doña dr dr. dra dra.",
        "it": "signor signore signora signorina sig sig. sig.ra dott dott. dottor dottore "
        "dottoressa avv avv. ing ing. prof prof.",
        "nl": "meneer mevrouw heer dhr dhr. mevr mevr. mr mr. dr dr. prof prof.",
        "pt": "senhor senhora sr sr. sra sra. dr dr. dra dra. doutor doutora prof prof.",
        "pl": "pan pani panie panu panią państwo dr dr. mgr mgr. prof prof. inż inż.",
    }.items()
}
"""Courtesy and academic titles: a lone word after one is a name."""

NOT_NAMES: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "de": "von an cc bcc betreff betr betr. datum gesendet antwort aw wg weitergeleitet anhang "
        "anlage hallo hi hey na liebe lieber sehr geehrte geehrter geehrtes viele grüße gruß "
        "grüßen herzliche herzlichen beste besten freundliche freundlichen mfg lg vg danke dank "
        "vielen bitte tschüss servus moin konto telefon tel tel. fax handy mo mo. di di. mi mi. do "
        "do. fr fr. sa sa. so so. montag dienstag mittwoch donnerstag freitag samstag sonntag "
        "januar februar märz april mai juni juli august september oktober november dezember",
        "fr": "de à a objet envoyé cc cci date re tr pj bonjour bonsoir salut coucou écoute tiens "
        "cher chère chers cordialement salutations sincères sincèrement bien bonne journée merci "
        "amicalement bises respectueusement lundi mardi mercredi jeudi vendredi samedi dimanche "
        "janvier février mars avril mai juin juillet août septembre octobre novembre décembre tél "
        "tél.",
        "es": "de para asunto enviado cc cco fecha re rv adjunto hola oye vale venga buenos buenas "
        "días tardes estimado estimada estimados querido querida saludos saludo cordiales "
        "atentamente un abrazo gracias muchas lunes martes miércoles jueves viernes sábado domingo "
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre "
        "tel tel.",
        "it": "da a oggetto inviato cc ccn data r i allegato ciao ehi senti baci bacioni "
        "buongiorno buonasera gentile gentili egregio egregia caro cara cari cordiali saluti "
        "distinti un abbraccio grazie mille lunedì martedì mercoledì giovedì venerdì sabato "
        "domenica gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
        "novembre dicembre tel tel.",
        "nl": "van aan cc bcc onderwerp verzonden datum re fw bijlage hallo hoi hé hey beste "
        "geachte lieve met vriendelijke groet groeten hartelijke dank bedankt alvast maandag "
        "dinsdag woensdag donderdag vrijdag zaterdag zondag januari februari maart april mei juni "
        "juli augustus september oktober november december tel tel.",
        "pt": "de para assunto enviado cc cco data re enc anexo olá ola oi olha bom boa dia tarde "
        "caro cara prezado prezada estimado estimada cumprimentos atenciosamente saudações abraço "
        "abraços beijos obrigado obrigada segunda terça quarta quinta sexta sábado domingo feira "
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro "
        "tel tel.",
        "pl": "od do dw udw temat wysłano data odp pd załącznik dzień dobry dobrý witam hej siema "
        "słuchaj cześć szanowny szanowna szanowni drogi droga pozdrawiam pozdrowienia serdecznie "
        "serdeczne z poważaniem dziękuję dzięki poniedziałek wtorek środa czwartek piątek sobota "
        "niedziela styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik "
        "listopad grudzień tel tel.",
    }.items()
}
"""Greetings, closings, thanks, e-mail header words, weekdays and months: never a name."""

LANGUAGES = frozenset(NOT_NAMES)


@functools.cache
def _stop_words(language: str) -> frozenset[str]:
    module = importlib.import_module(f"spacy.lang.{language}.stop_words")
    return frozenset(w.casefold() for w in module.STOP_WORDS)


def _key(word: str) -> str:
    return word.casefold().rstrip(":,;")


def _greeting(language: str, word: str) -> bool:
    """Whether ``word`` is a greeting, closing or thanks ("Hi", "Hallo", "Danke").

    The no-name words that are no stop words: not a header's preposition ("von", "de"),
    which stands before surnames that are nouns too ("eine Mail von Schneider").
    """
    key = _key(word)
    return key in NOT_NAMES[language] and key not in _stop_words(language)


def no_name(language: str, word: str) -> bool:
    """Whether ``word`` is never a name in ``language`` (stop word, greeting, header, title)."""
    key = _key(word)
    bare = key.rstrip(".")
    words = NOT_NAMES[language] | TITLES[language]
    return key in words or bare in words or bare in _stop_words(language)


@functools.cache
def _common_words(language: str) -> frozenset[str]:
    path = resources.files("guardrails").joinpath(f"data/common-words/{language}.txt.gz")
    return frozenset(gzip.decompress(path.read_bytes()).decode("utf-8").split("\n")) - {""}


def common_word(language: str, word: str) -> bool:
    """Whether people write ``word`` at least ten times per million words in ``language``.

    Frequencies across subtitles, news, books, the web and social media (``wordfreq``'s),
    shipped as ``data/common-words/<language>.txt.gz``, which ``data/build_common_words.py``
    writes, read per language on first use: "wczoraj", "chiamo" are written more often,
    surnames and towns in the news less ("Menem", "Chełm"). Names are among them too
    ("maria", "kraków"): this says "a word of the language" only beside the name lexicon
    and the gazetteer.
    """
    return _key(word) in _common_words(language)


def _chat_word(
    language: str,
    word: str,
    names: Callable[[str], bool],
    known_place: Callable[[str], bool],
    vocabulary: Vocabulary,
    *,
    rare: bool = False,
) -> bool:
    """Whether a word that opens a sentence, or one in lower case, is a word of chat.

    Capitalised for its place only, common in the language (``common_word``; of any
    frequency with ``rare``), and no name of the lexicon (``names``), the training text or
    the gazetteer: "Wczoraj", "Mieszkam", "Domani" open chat sentences in languages that drop
    the pronoun, where models learnt on news and Wikipedia read a capitalised first word as
    a name.
    """
    return (
        word[1:].islower()
        and (rare or common_word(language, word))
        and not names(word)
        and word not in vocabulary.names
        and not _known_place(language, known_place, vocabulary, word)
    )


@functools.cache
def _place_names(language: str) -> frozenset[str]:
    from babel import Locale  # CLDR's names, shipped in the package: nothing is downloaded

    return frozenset(_key(name) for name in Locale.parse(language).territories.values())


def place_name(language: str, word: str) -> bool:
    """Whether ``word`` is ``language``'s own name of a country, continent or world region.

    "Italien", "Kolumbien", "Südasien", "Włochy", "Zuid-Azië": the gazetteer of
    ``guardrails.rules.places`` knows places by their English and local names, not by what
    another language calls them; the Unicode CLDR does, as the Babel package ships it.
    """
    return _key(word) in _place_names(language)


def _known_place(
    language: str, known_place: Callable[[str], bool], vocabulary: Vocabulary, word: str
) -> bool:
    """Whether a lone word is a known place in ``language``, as it is or in the genitive."""
    return _known_as_is(language, known_place, vocabulary, word) or _genitive_place(
        language, known_place, vocabulary, word
    )


def _known_as_is(
    language: str, known_place: Callable[[str], bool], vocabulary: Vocabulary, word: str
) -> bool:
    """Whether a word is a known place, accents aside ("Cadiz").

    Known to the gazetteer (``known_place``) or by the language's own name
    (``place_name``), or a large town's name in another language ("Genf", "Mailand":
    ``places.exonyms``) that the language's training text does not write as a word ("Tor",
    "Gente").
    """
    if known_place(word) or place_name(language, word) or _exonym(vocabulary, word):
        return True
    return not word.isascii() and known_place(_ascii(word))


def _genitive_place(
    language: str, known_place: Callable[[str], bool], vocabulary: Vocabulary, word: str
) -> bool:
    """Whether a German word is a known place in the genitive.

    "Kanadas", "Griechenlandes", "Bremens"; not one the training text writes in people's
    names ("Davids").
    """
    if language != "de" or len(word) < 6 or word[-1] != "s" or word in vocabulary.names:
        return False
    bare = (word[:-1], word[:-2]) if word.endswith("es") else (word[:-1],)
    return any(_known_as_is(language, known_place, vocabulary, w) for w in bare)


def _surname(vocabulary: Vocabulary, listed: Callable[[str], bool], word: str) -> bool:
    """Whether a word no noun of the training text is a name there or in the name lexicon."""
    return word not in vocabulary.words and (
        word in vocabulary.names or bool(vocabulary.words) and listed(word)
    )


def _genitive_person(
    language: str, listed: Callable[[str], bool], vocabulary: Vocabulary, word: str
) -> bool:
    """Whether a German word is a person's name in the genitive ("Roddicks", "Becks").

    The word is no noun of the training text, and without its "s" it is a name there or in
    the name lexicon and no noun ("Bauers": "Bauer" is a farmer too). ``lone_names`` takes
    one only beside the noun it belongs to ("Zabels Entscheidung", "der Sieg Roddicks"):
    alone, such a word is as often a plural ("die Promis", "den Nazis").
    """
    if language != "de" or len(word) < 5 or word[-1] != "s" or word in vocabulary.words:
        return False
    return _surname(vocabulary, listed, word[:-1])


def _exonym(vocabulary: Vocabulary, word: str) -> bool:
    """Whether ``word`` is a town's name in some language and no word of this one."""
    key = _key(word)
    return key in exonyms() and word not in vocabulary.words and key not in vocabulary.lower


def article(language: str, word: str) -> bool:
    """Whether ``word`` is a no-name word of ``language`` that begins no name.

    Its stop words, greetings and headers (``no_name``), but for the particles that begin
    surnames ("De Prins", "Del Bosque", "La Fontaine"; ``PARTICLES``).
    """
    return no_name(language, word) and _key(word) not in PARTICLES[language]


_ROLE_WORDS = (
    "minister(?:in)?|trainer(?:in)?|präsident(?:in)?|kanzler(?:in)?|bürgermeister(?:in)?"
    "|direktor(?:in)?|chef(?:in)?|kolleg(?:e|in)|anwalt|anwältin|richter(?:in)?"
    "|pfarrer(?:in)?|vorsitzender?|stürmer(?:in)?|torwart|torhüter(?:in)?|spieler(?:in)?"
    "|kapitän(?:in)?|leiter(?:in)?|professor(?:in)?|kommissar(?:in)?|manager(?:in)?"
    "|geschäftsführer(?:in)?|verteidiger(?:in)?|bischof|bischöfin|abgeordneter?|senator(?:in)?"
    "|botschafter(?:in)?|regisseur(?:in)?|sänger(?:in)?|autor(?:in)?"
    "|sprecher(?:in)?|sekretär(?:in)?|seelsorger(?:in)?|mitarbeiter(?:in)?|nachbar(?:in)?"
    "|arzt|ärztin|doktor|lehrer(?:in)?|kandidat(?:in)?|journalist(?:in)?|intendant(?:in)?"
    "|dirigent(?:in)?|komponist(?:in)?|pianist(?:in)?|schriftsteller(?:in)?|dichter(?:in)?"
    "|gouverneur(?:in)?|könig(?:in)?|prinz(?:essin)?|graf|gräfin|papst|coach|vorstand"
    "|landrat|landrätin|stadtrat|stadträtin|oberst|major|leutnant|politiker(?:in)?"
    "|aktivist(?:in)?|inspektor(?:in)?|berater(?:in)?|sportler(?:in)?|unternehmer(?:in)?"
    "|forscher(?:in)?|wissenschaftler(?:in)?|historiker(?:in)?|künstler(?:in)?|musiker(?:in)?"
)
ROLES: dict[str, re.Pattern[str]] = {
    "de": re.compile(rf"(?i:(?:[^\W\d_]+-)*[^\W\d_]*(?:{_ROLE_WORDS})(?:s|es|n|en|nen)?)")
}
"""Offices, jobs and roles a German name follows ("Bundestrainer Vogts", "Kollegin Weber"):
a word after one is a person, as after a courtesy title; compounds end with them, also
after a hyphen ("SPD-Kultusminister"), and they may be declined ("des Trainers Saftig",
"dem Präsidenten Rau")."""


def role(language: str, word: str) -> bool:
    """Whether ``word`` is a role of ``language`` (``ROLES``) that a name may follow.

    Not a no-name word: "Richter" and "Kanzler" alone are surnames too.
    """
    pattern = ROLES.get(language)
    return pattern is not None and pattern.fullmatch(word) is not None


_SPEECH: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "de": (
        frozenset(
            "sagt sagte meint meinte betont betonte erklärt erklärte schreibt schrieb fragt"
            " fragte antwortet antwortete berichtet berichtete erzählt erzählte ergänzt"
            " ergänzte kritisiert kritisierte fordert forderte warnt warnte beklagt beklagte"
            " bestätigt bestätigte widerspricht widersprach behauptet behauptete".split()
        ),
        frozenset("gesprochen telefoniert geredet geschrieben gesagt gefragt".split()),
    )
}
"""German words of saying that a surname stands beside in chat and reports: a finite verb
right after a name that opens a sentence or clause ("Lippelt betonte", "…, Fröhder sagte") or
right before it ("sagte Vogts", "beklagt Eppenstein"), and a participle after "mit" and the
name ("mit Vogts gesprochen"). A capitalised word there that the training text never writes
as a word is a person, as after a role; not a noun after an article ("durch den
Nachrichtendienst berichtet"), where the verb's forms are participles."""
_CLAUSE_OPENS = re.compile(r"(?:^|[.!?:;,\n\"„“”»«'])[ \t]*$")


def _spoken(language: str, text: str, start: int, neighbours: Neighbours) -> bool:
    """Whether the word at ``start`` stands beside a word of saying (``_SPEECH``)."""
    if language not in _SPEECH:
        return False
    finite, participles = _SPEECH[language]
    before, after = neighbours
    said = after.group(1).lower() if after is not None else ""
    if before is not None and before.group(1).lower() in finite:
        return True  # "sagte Vogts"
    if before is None:
        opens = _CLAUSE_OPENS.search(text, max(0, start - 40), start) is not None
        return opens and said in finite  # "Lippelt betonte"
    return before.group(1).lower() == "mit" and said in participles  # "mit Vogts gesprochen"


def titled(language: str, text: str, start: int) -> bool:
    """Whether a courtesy title or a role of ``language`` stands right before ``start``."""
    before = text[max(0, start - 40) : start].split()
    return bool(before) and (_key(before[-1]) in TITLES[language] or role(language, before[-1]))


NOUNS_CAPITALISED = frozenset({"de"})
"""Languages that capitalise every noun: a lone capitalised word there says nothing anywhere."""


def _char_before(text: str, start: int) -> str:
    """The character before ``start`` and the blanks before it ("" at the text's start).

    Read backwards: the rules ask this of many words of a long message, and copying the text
    before each one made that quadratic.
    """
    i = start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return text[i - 1] if i > 0 else ""


def _opens(text: str, start: int) -> bool:
    """Whether ``start`` begins the text, a line, a sentence or a header's value."""
    before = _char_before(text, start)
    return not before or before in "\n.!?:;¡¿\"'«“-–—•*>"


def _starts_sentence(text: str, start: int) -> bool:
    """Whether ``start`` begins the text, a line or a sentence.

    Not a quotation, a header's value, nor a word after an elided article
    ("dell'Inghilterra"), which ``_opens`` counts.
    """
    before = _char_before(text, start)
    return not before or before in "\n.!?¡¿"


def _ascii(word: str) -> str:
    """``word`` without its accents ("Cádiz" as the gazetteer writes it, "Cadiz")."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


PARTICLES: dict[str, frozenset[str]] = {
    "de": frozenset({"von", "zu", "vom"}),
    "fr": frozenset({"de", "du", "des", "le", "la"}),
    "es": frozenset({"de", "del", "la", "las", "los", "el"}),
    "it": frozenset({"di", "da", "de", "del", "della", "lo", "la"}),
    "nl": frozenset({"van", "de", "den", "der", "ter", "ten", "te"}),
    "pt": frozenset({"de", "da", "do", "dos", "das"}),
    "pl": frozenset(),
}
"""Words that begin names and places in lower case ("van Dijk", "de la Fuente")."""


DETERMINERS: dict[str, frozenset[str]] = {
    "fr": frozenset("le la les l' l’ du des au aux un une ce cet cette son sa ses".split()),
}
"""Determiners no person's name follows in a language: in French a place, a work, an
institution or a common noun does ("la France", "le Monde", "la Révolution", "le Maire"),
never a person ("Marie", not "la Marie")."""


ARTICLES: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "de": "der die das dem den des ein eine einem einen einer eines am ans im ins vom zum "
        "zur beim aufs ums",
        "fr": "le la les l' l’ un une du des au aux",
        "es": "el la los las un una unos unas al del",
        "it": "il lo la i gli le l' l’ un uno una un' del della dei degli delle al alla",
        "nl": "de het een 't",
        "pt": "o a os as um uma uns umas do da dos das no na nos nas",
        "pl": "",
    }.items()
}
"""Articles, alone or joined to a preposition ("am", "ins", "del"): a noun of the training
text after one is that noun ("am Tor", "neben dem Tor"), whatever first name it also is, and a
capitalised one opening a sentence begins the name after it ("Het Leven", "El Salvador")."""


def _determined(
    language: str, text: str, start: int, determiners: dict[str, frozenset[str]] = DETERMINERS
) -> bool:
    """Whether one of ``determiners`` of the language stands right before ``start``."""
    if language not in determiners:
        return False
    before = _LAST_WORD.search(text[max(0, start - 12) : start])
    return before is not None and before.group(1).casefold() in determiners[language]


_LAST_WORD = re.compile(r"([^\W\d_]+['’]?)\s*$")


_TEAM_BEFORE: dict[str, re.Pattern[str]] = {
    language: re.compile(rf"\b(?i:{plural})[ \t]+(?:[A-Z][\w'’.\-]*[ \t]+){{1,3}}(?:{of})[ \t]*$")
    for language, plural, of in (
        ("fr", "les|des|aux", "de|du|d['’][ \t]*(?:l['’][ \t]*)?|de[ \t]+l['’][ \t]*"),
        ("es", "los|de los|a los", "de|del"),
        ("pt", "os|dos|aos", "de|do|da"),
    )
}
"""A team's name before its town, as these languages name North American clubs: "les Yankees
de New York", "aux Cardinals de l'Arizona", "los Medias Rojas de Boston", "os Lakers de Los
Angeles": the town is part of the club's name, not a place someone is."""


def team_town(language: str, text: str, start: int) -> bool:
    """Whether a place at ``start`` ends a team's name (``_TEAM_BEFORE``)."""
    pattern = _TEAM_BEFORE.get(language)
    return pattern is not None and pattern.search(text, max(0, start - 60), start) is not None


IMPERATIVE_NEXT: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "de": (
        frozenset("mir mich dir dich uns euch ihm ihr ihn das den die dem ein eine einen".split()),
        frozenset({"mal", "bitte"}),
    ),
}
"""Words after a verb's imperative that opens a sentence ("Schick mir", "Schick das", "Sag
mal"): object pronouns and articles, which no name stands before, and particles of a
request, which a surname may ("Müller bitte zurückrufen")."""


def _imperative(
    language: str,
    text: str,
    word: tuple[int, int],
    first_name: Callable[[str], bool],
    listed: Callable[[str], bool],
) -> bool:
    """Whether a span's first word is a verb's imperative that opens a sentence.

    Before an object pronoun or an article it is one unless it is a common first name ("Gib
    mir", "Schick das", but "Thomas mir", "Anna das"); before a courtesy title always ("Ruf
    Herrn Keßler an"); before a particle of a request, unless
    the name lexicon lists it at all ("Sag bitte", but "Lisa mal", "Müller bitte"). German's
    entity model, which learnt from Wikipedia titles and news that a capitalised word opening
    a text names something, took such verbs for people in chat.
    """
    if language not in IMPERATIVE_NEXT or not _opens(text, word[0]):
        return False
    after = text[word[1] : word[1] + 16]
    following = after.split()
    if not after.startswith(" ") or not following:
        return False
    pronouns, particles = IMPERATIVE_NEXT[language]
    verb, next_word = text[word[0] : word[1]], _key(following[0]).rstrip(".!?")
    if next_word in pronouns:
        return not first_name(verb)
    if next_word in TITLES[language]:
        return True  # "Ruf Herrn Keßler an": no name stands right before a title
    return next_word in particles and not listed(verb)


def _ends_off(language: str, word: str, count: int) -> bool:
    """Whether a span's last word is cut off.

    A greeting, header word or title always; a stop word in lower case or alone ("Dirk De
    Wilde" keeps "Wilde", Dutch for "wanted").
    """
    if not no_name(language, word):
        return False
    key = _key(word)
    if key in NOT_NAMES[language] or key in TITLES[language] or key.rstrip(".") in TITLES[language]:
        return True
    return word.islower() or count == 1


def _of_name(
    language: str, text: str, words: list[tuple[int, int]], *, articles: bool = True
) -> bool:
    """Whether a span's first word begins the name after it rather than the sentence.

    A particle of the language ("van Dijk"), or outside German a capitalised article
    ("La Coruña", "Den Haag", "El Salvador") when ``articles``, right before a capitalised
    word; never a greeting or header word followed by a colon. ``trim`` says ``articles``
    for an entity model's span, read in context, and for a rule's span whose article does not
    open a sentence: at one, the name lexicon's rules take "En France" for a first and last
    name.
    """
    if len(words) < 2:
        return False
    (a, b), (c, _) = words[0], words[1]
    word, gap = text[a:b], text[b:c]
    if gap != " " or not text[c].isupper() or len(word) > 4:
        return False
    if word.islower():
        return word in PARTICLES[language]
    return (
        articles and language not in NOUNS_CAPITALISED and word.casefold() in _stop_words(language)
    )


def _chat_edge(
    language: str,
    listed: Callable[[str], bool],
    first_name: Callable[[str], bool],
    vocabulary: Vocabulary,
    text: str,
    word: tuple[int, int],
    beside: tuple[int, int],
) -> bool:
    """Whether a name's first or last word, beside a name, is a word of chat.

    Beside a capitalised word or a first name in lower case ("sag lukas": ``lower_name``), a
    common word of the language (``common_word``) that the model's training text never
    writes in lower case, no particle and no name of the lexicon: the verbs and adverbs of
    chat ("chiamo", "jutro"), not the nouns and adjectives that Wikipedia and news write
    in names ("oceano Pacifico", "Asia centrale"). Not in a language without that text
    (French, read by an official model: "l'île Manitoulin", "l'Afrique centrale").
    """
    value = text[word[0] : word[1]]
    return (
        bool(vocabulary.lower)
        and value.islower()
        and (
            text[beside[0]].isupper()
            or lower_name(language, first_name, vocabulary, text[beside[0] : beside[1]])
        )
        and value not in vocabulary.lower
        and _key(value) not in PARTICLES[language]
        and common_word(language, value)
        and not named(language, listed, value)
    )


def trim(
    language: str,
    text: str,
    start: int,
    end: int,
    entity_type: str,
    *,
    by_ner: bool = True,
    own_model: bool = False,
    first_name: Callable[[str], bool],
    listed: Callable[[str], bool],
    known_place: Callable[[str], bool],
    vocabulary: Vocabulary | None = None,
) -> tuple[int, int] | None:
    """A person or place span without the no-name words at its ends; ``None``: no name left.

    Args:
        language: the message's language (one of ``LANGUAGES``).
        text: the message (its analysis form).
        start: where the span begins.
        end: where it ends.
        entity_type: ``PERSON`` or ``LOCATION``.
        by_ner: an entity model found the span (else a rule: a capitalised article that
            opens a sentence is no part of the name).
        own_model: the language's own entity model found the span, having read the word in
            its context: a lone word it calls a name is kept, unless it is a header's value
            ("Asunto: Factura"; the model learned from running text, not headers) or what is
            left after a request's verb ("[Sag bitte Bescheid]": it misread the span).
        first_name: whether a word is a common first name of the name lexicon (German: its
            nouns are often surnames too, "Steuer", "Konto").
        listed: whether a word is a first or last name of the lexicon (the other languages).
        known_place: whether a text is a known town, country or region.
        vocabulary: what the language's model's training text says of capitalised words
            (``guardrails.ner.words``): in German too, a lone word that text writes in
            people's names, or a listed surname it never writes as a word, is a person
            ("Matschke"; "Steuer" is a noun).
    """
    known = vocabulary or Vocabulary()
    named_or_declined = functools.partial(named, language, listed)
    introduced = _introduction_pattern(language).match(text, start)
    if introduced is not None:
        if introduced.start("v") >= end:
            return None  # "[Chamo]-me Deolinda"
        start = introduced.start("v")  # "[chamo-me] Deolinda"
    words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(text[start:end])]
    while words and role(language, text[words[0][0] : words[0][1]]):
        after = _WORD_AFTER.match(text, words[0][1])
        if len(words) == 1 and not (after and after.group(1)[0].isupper()):
            break  # "Richter hat angerufen": a surname too
        words.pop(0)  # "[Bundestrainer] Vogts": the role stays, as a title does
    stop_name = functools.partial(_stop_name, text, language)
    greeted = False  # the span began with a greeting or a header word: "[Hi] Team"
    while words and no_name(language, text[words[0][0] : words[0][1]]):
        if _of_name(language, text, words, articles=by_ner or not _opens(text, words[0][0])):
            break  # "La Coruña", "De Vries", "van Dijk"
        if entity_type == "PERSON" and stop_name(words[0]):
            break  # "do Ani"
        if (
            len(words) > 1
            and entity_type == "LOCATION"
            and _known_as_is(language, known_place, known, text[words[0][0] : words[-1][1]])
        ):
            break  # "Den Haag", "Las Vegas" in German: the article is the town's
        greeted = greeted or _greeting(language, text[words[0][0] : words[0][1]])
        words.pop(0)
    edge = functools.partial(_chat_edge, language, listed, first_name, known, text)
    while len(words) > 1 and edge(words[0], words[1]):
        words.pop(0)  # "[chiamo] Giulia": a verb the model read into the name
    while len(words) > 1 and edge(words[-1], words[-2]):
        words.pop()  # "Marek [jutro]"
    if (
        entity_type == "PERSON"
        and len(words) > 1
        and _opening_word(language, listed, known_place, known, text, words[0])
    ):
        words.pop(0)  # "[Powiedz] Michałowi", "[Sag] Jonas"
        while len(words) > 1 and _key(text[words[0][0] : words[0][1]]) in TITLES[language]:
            words.pop(0)  # "[Schreib Herrn] Müller": the title stays, as elsewhere
    if words and _imperative(language, text, words[0], first_name, listed):
        words.pop(0)  # "Schick mir", "Sag bitte"
        while words and no_name(language, text[words[0][0] : words[0][1]]):
            words.pop(0)
        own_model = False  # it misread the span's start: "[Sag bitte Bescheid]"
    while words and _ends_off(language, text[words[-1][0] : words[-1][1]], len(words)):
        if entity_type == "PERSON" and stop_name(words[-1]):
            break
        words.pop()
    if not words:
        return None
    new_start, new_end = words[0][0], words[-1][1]
    if text[new_end - 1] == "." and new_end - words[-1][0] > 2:
        new_end -= 1  # the sentence's full stop ("Weber."), not an initial's ("J.")
    word = text[new_start:new_end]
    before = _WORD_BEFORE.search(text, max(0, new_start - 40), new_start)
    greeted = greeted or before is not None and _greeting(language, before.group(1))
    if greeted and len(words) == 1 and word in known.words:
        own_model = False  # it misread a greeting and a noun as a name: "[Hi] Team"
    header_value = text[:new_start].rstrip(" \t").endswith(":")
    if entity_type == "LOCATION" and team_town(language, text, new_start):
        return None  # "les Yankees de [New York]"
    if (
        len(words) == 1
        and not titled(language, text, new_start)
        and (
            word.islower()
            and (known.lower and word not in known.lower or language in NOUNS_CAPITALISED)
            or _starts_sentence(text, new_start)
        )
        and _chat_word(language, word, named_or_declined, known_place, known)
    ):
        return None  # "[Wczoraj] rozmawiałem", "[Mieszkam] w Krakowie", "Anna und [wohne]"
    if (
        entity_type == "PERSON"
        and len(words) == 1
        and word in known.words
        and _determined(language, text, new_start, ARTICLES)
    ):
        return None  # "am [Tor]", "im [Park]"
    if (
        entity_type == "PERSON"
        and len(words) == 1
        and not own_model
        and _determined(language, text, new_start)
        and not titled(language, text, new_start)
    ):
        return None  # "la Révolution", "le Maire", "l' Autorité"
    if (
        len(words) == 1
        and (not own_model or header_value)
        and (language in NOUNS_CAPITALISED or _opens(text, new_start) or word.islower())
    ):
        is_name = first_name if language in NOUNS_CAPITALISED else named_or_declined
        surname = _surname(known, listed, word) or _genitive_person(language, listed, known, word)
        if entity_type == "PERSON" and not (
            is_name(word)
            or surname
            or titled(language, text, new_start)
            or _spoken(language, text, new_start, (before, _WORD_AFTER.match(text, new_end)))
        ):
            return None  # "Behandlung", "Factura": a capital letter alone makes no name
        if entity_type == "LOCATION" and not _known_place(language, known_place, known, word):
            return None
    return new_start, new_end


_NAME_RUN = r"(?P<v>[^\W\d_][\w'’-]*(?:[ \t]+[^\W\d_][\w'’-]*){0,2})"
TITLED_SCORE = 0.7
"""Above the PERSON threshold, below the entity model's own findings."""
INTRODUCTIONS: dict[str, tuple[str, ...]] = {
    "de": ("ich heiße", "ich heisse", "mein name ist", "mein name lautet", "nenn mich",
           "nennt mich", "man nennt mich"),
    "fr": ("je m'appelle", "je m’appelle", "mon nom est", "mon prénom est", "appelle-moi",
           "appelez-moi"),
    "es": ("me llamo", "mi nombre es", "llámame", "llamadme"),
    "it": ("mi chiamo", "il mio nome è", "chiamami", "mi chiamano"),
    "nl": ("ik heet", "mijn naam is", "noem me", "noem mij"),
    "pt": ("me chamo", "chamo-me", "meu nome é", "chama-me", "me chame de"),
    "pl": ("nazywam się", "mam na imię", "na imię mi", "mów mi"),
}  # fmt: skip
"""How one gives one's name in each language ("ich heiße", "ik heet", "nazywam się"): the
capitalised words after one are a name however rare, as after "my name is" in English."""
INTRODUCED_SCORE = 0.9
"""Above a place the entity model read there ("nazywam się [Bożydar]", "je m'appelle
[Guillemette Ribaucourt]" were places)."""


@functools.cache
def _titled_pattern(language: str) -> re.Pattern[str]:
    titles = sorted((t.rstrip(".") for t in TITLES[language]), key=len, reverse=True)
    words = "|".join(re.escape(t) for t in dict.fromkeys(titles))
    return re.compile(rf"(?i:\b(?:{words})\b\.?)[ \t]+{_NAME_RUN}")


@functools.cache
def _introduction_pattern(language: str) -> re.Pattern[str]:
    phrases = sorted(INTRODUCTIONS[language], key=len, reverse=True)
    words = "|".join(re.escape(p).replace("\\ ", "[ \t]+") for p in phrases)
    return re.compile(rf"(?i:(?<![\w'’-])(?:{words}))[ \t]+{_NAME_RUN}")


def titled_names(language: str, text: str) -> list[tuple[int, int, float]]:
    """``(start, end, score)`` of the capitalised names after a title or an introduction.

    The courtesy titles of ``language`` and the words one gives one's name with
    (``INTRODUCTIONS``): "Frau Kowalczyk", "Madame Anne Dubois", "pani Nowak", "ich heiße
    Volkbert Keßler". The name runs over capitalised words that are no stop word, greeting or
    title ("Herr Weber war" ends at "Weber").
    """
    found = []
    for pattern, score in (
        (_titled_pattern(language), TITLED_SCORE),
        (_introduction_pattern(language), INTRODUCED_SCORE),
    ):
        for match in pattern.finditer(text):
            end = match.start("v")
            for word in _WORD.finditer(match.group("v")):
                value = word.group().rstrip(".")
                if not value[0].isupper() or no_name(language, value):
                    break
                end = match.start("v") + word.start() + len(value)
            if end > match.start("v"):
                found.append((match.start("v"), end, score))
    return found


_CASE_ENDINGS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "pl": (
        ("iego", ("i",)),
        ("iemu", ("i",)),
        ("owi", ("", "a")),
        ("iem", ("",)),
        ("iej", ("a",)),
        ("ego", ("y",)),
        ("emu", ("y",)),
        ("im", ("i",)),
        ("ym", ("y",)),
        ("em", ("",)),
        ("ie", ("", "a")),
        ("e", ("", "a")),
        ("ą", ("a",)),
        ("ę", ("a",)),
        ("y", ("a",)),
        ("i", ("a", "ia")),
        ("u", ("",)),
        ("a", ("",)),
        ("o", ("a",)),
    ),
}
"""A declined name's endings, longest first, with the endings of the name they come from:
"Markowi", "Tomkiem", "Anną", "Magdę", "Agnieszki", "Piotrze" ("Marek", "Tomek", "Anna",
"Magda", "Agnieszka", "Piotr"); surnames and first names declined as adjectives:
"Kowalskiego", "Kowalskiej", "Jerzemu" ("Kowalski", "Kowalska", "Jerzy")."""
_STEM_CHANGES = (
    ("dz", "d"),
    ("dz", "g"),
    ("c", "k"),
    ("rz", "r"),
    ("l", "ł"),
    ("ci", "t"),
)
"""Consonants that change before a Polish ending, as found and as in the name: "Magdzie",
"Oldze", "Agnieszce", "Piotrze", "Pawle", "Agacie" ("Magda", "Olga", "Agnieszka", "Piotr",
"Paweł", "Agata")."""


def _declined(
    language: str, listed: Callable[[str], bool], word: str, *, as_name: bool = False
) -> bool:
    """Whether a word is a name of the lexicon in another grammatical case.

    Polish declines names, and chat writes them so more often than not ("z Tomkiem",
    "Markowi", "widziałem Annę", "u Jacka"); the lexicon lists them as they are named. A
    stem with each ending taken off gets back the name's own ending, its changed consonant
    ("Magdzie": "Magda") and the "e" it loses ("Tomka": "Tomek", "Pawła": "Paweł"). A stem
    of two letters only when the word is no common word of the language ("Olę", "Ewę"; not
    "idę", "I go", for "Ida"), or when it is written as a name (``as_name``: capitalised
    inside a sentence, "do Ani", where "ani", "nor", would be in lower case).
    """
    if language not in _CASE_ENDINGS:
        return False
    short = common_word(language, word) and not as_name
    for ending, bases in _CASE_ENDINGS[language]:
        if not word.endswith(ending) or len(word) - len(ending) < (3 if short else 2):
            continue
        stem = word[: -len(ending)]
        stems = {stem, stem[:-1] + "e" + stem[-1]}
        stems |= {stem[: -len(a)] + b for a, b in _STEM_CHANGES if stem.endswith(a)}
        stems |= {s[:-1] + "e" + s[-1] for s in list(stems) if s[-1] in "łlkcn"}
        if any(listed(s + base) for s in stems for base in bases if len(s + base) >= 3):
            return True
    return False


STOP_WORD_NAMES = {"pl": frozenset({"ani"})}
"""Stop words that, capitalised inside a sentence, are declined names: "do Ani" (Ania's
genitive), where "ani" ("nor") would be in lower case. Polite pronouns are capitalised there
too ("Tobie", "Ciebie"), so no stop word is read as a name by its ending alone."""


def _stop_name(text: str, language: str, word: tuple[int, int]) -> bool:
    """Whether a stop word capitalised inside a sentence is a name (``STOP_WORD_NAMES``)."""
    value = text[word[0] : word[1]]
    return (
        value[0].isupper()
        and value[1:].islower()
        and _key(value) in STOP_WORD_NAMES.get(language, ())
        and not _opens(text, word[0])
    )


def declined_first_name(
    language: str, first_name: Callable[[str], bool], text: str, start: int, end: int
) -> bool:
    """Whether the word at ``start:end`` is a first name of the lexicon, declined.

    "Zadzwoń do Marka Nowaka", "Spotkałem Annę Nowak": the name lexicon finds a first and
    last name when the first is as it is named. Not a common word that opens a sentence
    ("Marka Nike", "the brand Nike").
    """
    word = text[start:end]
    opening = _starts_sentence(text, start)
    if opening and common_word(language, word):
        return False
    return _declined(language, first_name, word, as_name=not opening)


LONE_SCORE = 0.6
"""Above the PERSON threshold, below a courtesy title's name and the entity model's."""
_LONE = re.compile(r"(?<![\w@#/.'’\-])[^\W\d_]{3,}(?![\w@'’\-]|\.\w)")
_WORD_BEFORE = re.compile(r"([^\W\d_][\w'’\-]*)[ \t]$")
_WORD_AFTER = re.compile(r"[ \t]([^\W\d_][\w'’\-]*)")
_QUOTES = "\"'„“”«»‚‘’"
_QUOTE_BEFORE = re.compile(rf"[{_QUOTES}][ \t]*$")
_QUOTE_AFTER = re.compile(rf"[ \t]*[{_QUOTES}]")


_INSTITUTIONS = re.compile(
    r"(?i:universität|hochschule|schule|akademie|institut|gymnasium|college|klub|club|verein"
    r"|stadion|rallye)$"
)
"""What ends a German institution's, club's or event's name before its town ("Universität
Bern", "Sportverein Zwickau", "Rallye Dakar"): the town there names the institution."""


Neighbours = tuple[re.Match[str] | None, re.Match[str] | None]
"""The words right before and after a word (``_WORD_BEFORE``, ``_WORD_AFTER``), if any."""


def _beside_nouns(language: str, vocabulary: Vocabulary, neighbours: Neighbours) -> bool:
    """Whether the capitalised words right beside a German word are nouns, not names.

    Nouns the training text writes as words ("die Regierung Kanadas", "Becks Absichten"),
    not a club's words ("Go Ahead Eagles Deventer") nor an article opening a sentence ("Die
    Promis").
    """
    if language not in NOUNS_CAPITALISED:
        return False
    return all(
        m is None or not m.group(1)[0].isupper() or _noun(language, vocabulary, m.group(1))
        for m in neighbours
    )


def _noun(language: str, vocabulary: Vocabulary, word: str) -> bool:
    """Whether a capitalised word is a noun of the training text, no stop word ("Die")."""
    return word in vocabulary.words and _key(word) not in _stop_words(language)


def _noun_place(
    language: str,
    known_place: Callable[[str], bool],
    vocabulary: Vocabulary,
    word: str,
    neighbours: Neighbours,
) -> bool:
    """Whether a German place beside capitalised nouns (``_beside_nouns``) is a place there.

    It is a known place in the genitive, which stands beside the noun it belongs to ("die
    Regierung Kanadas", "Bremens Bürgermeister"), or a town after a noun of four letters or
    more and before no capitalised word ("die Filiale Mailand", "der Poststempel
    Wuppertal"), but not after an institution's word ("Universität Bern") or an
    abbreviation ("FC Porto"). Not a place's own name that ends in "s" ("Nantes").
    """
    before, after = neighbours
    if not _known_as_is(language, known_place, vocabulary, word) and _genitive_place(
        language, known_place, vocabulary, word
    ):
        return True
    if before is None or after is not None and after.group(1)[0].isupper():
        return False
    noun = before.group(1)
    return len(noun) >= 4 and noun[1:].islower() and not _INSTITUTIONS.search(noun)


def _opening_word(
    language: str,
    listed: Callable[[str], bool],
    known_place: Callable[[str], bool],
    vocabulary: Vocabulary,
    text: str,
    word: tuple[int, int],
    *,
    rare: bool = False,
) -> bool:
    """Whether a capitalised word opens a sentence as a word of chat ("Zapytaj Magdę").

    Not an article, which begins the name after it ("Het Leven", "El Salvador"). ``rare``:
    a word of any frequency that no lexicon, training text or gazetteer knows as a name;
    rarer verbs than the common words open chat sentences before a declined name, which
    needs no preposition ("Przekaż Michałowi").
    """
    value = text[word[0] : word[1]]
    if not _starts_sentence(text, word[0]) or _key(value) in ARTICLES[language]:
        return False
    names = functools.partial(named, language, listed)
    return _chat_word(language, value, names, known_place, vocabulary, rare=rare)


def named(
    language: str, listed: Callable[[str], bool], word: str, *, as_name: bool = False
) -> bool:
    """Whether a word is a name of the lexicon, as it is or declined (``_declined``)."""
    return listed(word) or _declined(language, listed, word, as_name=as_name)


def lower_names(
    language: str,
    first_name: Callable[[str], bool],
    listed: Callable[[str], bool],
    vocabulary: Vocabulary,
    text: str,
) -> list[tuple[int, int, float]]:
    """``(start, end, score)`` of the names written in lower case in a message.

    Chat often leaves capitals out ("dile a javi que me llame", "powiedz kasi", "sag lukas"),
    and the language's entity model, which learnt names capitalised, leaves such words. In a
    message that capitalises nothing but its sentences' first words (``uncapitalised``), a
    lower-case word is a name when it is a first name of the lexicon common enough
    (``first_name``), as it is or declined, that the model's training text never writes in
    lower case (its words that are names too are: "rosa", "luz", "chiara", "marco" in
    Spanish), and no stop word, greeting or title of the language; with the surnames of the
    lexicon (``listed``) after it that text does not write in lower case either ("giulia
    rossi", "anna nowak"). Not in a language without that text (French, read by an official
    model).
    """
    if not uncapitalised(text):
        return []
    found = []
    for match in _LONE.finditer(text):
        if not lower_name(language, first_name, vocabulary, match.group()):
            continue
        end = match.end()
        while (after := _WORD_AFTER.match(text, end)) is not None:
            word, word_end = after.group(1), after.end()
            while word in PARTICLES[language] and (
                following := _WORD_AFTER.match(text, word_end)
            ):  # "jan de vries"
                word, word_end = following.group(1), following.end()
            if not word.islower() or word in vocabulary.lower or no_name(language, word):
                break
            if not named(language, listed, word):
                break
            end = word_end
        found.append((match.start(), end, LONE_SCORE))
    return found


_WORD_START = re.compile(r"(?<![\w'’\-])[^\W\d_]+")


def uncapitalised(text: str) -> bool:
    """Whether a message capitalises no word but those that open a sentence (and acronyms).

    Who writes so leaves names in lower case too; who capitalises names elsewhere in the
    message writes a lower-case word as a word ("la gloria del toreo", "ein Tom").
    """
    return all(
        not m.group()[0].isupper() or m.group().isupper() or _starts_sentence(text, m.start())
        for m in _WORD_START.finditer(text)
    )


def lower_name(
    language: str, first_name: Callable[[str], bool], vocabulary: Vocabulary, word: str
) -> bool:
    """Whether a word in lower case is a first name in ``language`` (``lower_names``)."""
    return (
        bool(vocabulary.lower)
        and word.islower()
        and word not in vocabulary.lower
        and not no_name(language, word)
        and named(language, first_name, word)
    )


def lone_names(
    language: str,
    listed: Callable[[str], bool],
    known_place: Callable[[str], bool],
    vocabulary: Vocabulary,
    text: str,
    *,
    places: bool = False,
) -> list[tuple[int, int, float]]:
    """``(start, end, score)`` of the lone names in a message of ``language``.

    A capitalised word that no other capitalised word stands beside (but a German noun
    beside a place: "die Regierung Kanadas", "die Filiale Mailand"; ``_noun_place``) and
    that the language's model's training text never writes as a word (``vocabulary``,
    ``guardrails.ner.words``);
    no stop word, greeting or title. With ``places`` the known places among them ("el acuerdo
    con Valencia"), without it the others that the name lexicon lists (``listed``) or that
    text writes in people's names ("sagte Matschke", "wie Heidenreich meinte") or that stand
    beside a German word of saying (``_SPEECH``: "Lippelt betonte").
    Not a word in quotation marks (a title: "Shepherd's Pie", " Milk "), nor one opening a
    sentence that the text writes in lower case elsewhere ("Durante", "Acho"). After a role
    (``ROLES``: "Kollegin Brandtner") any word that text does not write as a word.
    """
    found = []
    for match in _LONE.finditer(text):
        word = match.group()
        if not word[0].isupper() or not word[1:].islower():
            continue
        start, end = match.span()
        before = _WORD_BEFORE.search(text, max(0, start - 40), start)
        after = _WORD_AFTER.match(text, end)
        after_role = before is not None and role(language, before.group(1))
        capital_before = (
            before is not None
            and before.group(1)[0].isupper()
            and not after_role
            and not _opening_word(
                language,
                listed,
                known_place,
                vocabulary,
                text,
                before.span(1),
                rare=not places and language in _CASE_ENDINGS,  # "Przekaż Michałowi"
            )
        )
        beside = capital_before or after is not None and after.group(1)[0].isupper()
        nouns = beside and _beside_nouns(language, vocabulary, (before, after))
        genitive = nouns and not places and _genitive_person(language, listed, vocabulary, word)
        if beside and not (
            genitive
            or nouns
            and places
            and _noun_place(language, known_place, vocabulary, word, (before, after))
        ):
            continue  # part of a longer name, or a noun's: "Bayer Leverkusen", "Rote Karte"
        if _QUOTE_BEFORE.search(text, max(0, start - 40), start) or _QUOTE_AFTER.match(text, end):
            continue
        opening = _opens(text[max(0, start - 40) : start], min(start, 40))
        # "do Ani" (and not Ani, the ancient town)
        stop_name = not places and _stop_name(text, language, (start, end))
        if (word in vocabulary.words or no_name(language, word)) and not stop_name:
            continue
        if opening and word.lower() in vocabulary.lower and word not in vocabulary.names:
            continue
        if not (
            places
            or after_role
            or genitive
            or _spoken(language, text, start, (before, after))
            or word in vocabulary.names
            or named(language, listed, word, as_name=not opening)  # declining costs: last
        ):
            continue
        if _known_place(language, known_place, vocabulary, word) != places and not stop_name:
            continue
        found.append((start, end, LONE_SCORE))
    return found
