"""Detection: where the personal data of a message is, in the message's own offsets.

``detect`` is pure (no Redis, no vault): the guardrail redacts what it returns, and the
evaluation (``veilbot redact --jsonl``) scores it against labelled messages. The steps:

1. ``normalize``: platform markup out, link targets decoded, an offset map kept
   (``guardrails.text.normalize``); evasion (hidden characters, spacing, spelled digits) folded
   through the same map (``guardrails.text.folding``);
2. Presidio with veilbot's recognizers (``guardrails.rules.recognizers``), in overlapping chunks
   when the text is long, so nothing is truncated; the NER is the entity model's, which reads
   text in any letter case (``guardrails.ner``);
3. per-type thresholds, trimming and precision checks (``guardrails.rules.precision``);
4. back to original offsets; a mail or phone link with personal data in it becomes one
   entity (in a web link only the personal parts are replaced), user mentions become ``USER``
   entities, protected markup (channels, roles, emoji, timestamps) is never
   touched; link parameters typed by their key (``?dob=…``); overlaps resolved (higher score,
   then longer).

``detect_many`` gives the same answers for several messages at once: the NER model reads the
chunks of all of them in one ``nlp.pipe`` pass (cheaper per text than one call each), and the
rest runs per message. A message whose analysis fails gets its own exception in its place;
the others keep their detections.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bot.core.types import Platform
from guardrails.detect import models
from guardrails.detect.batching import DEFAULT_CHUNK_CHARS
from guardrails.engine import LANGUAGE
from guardrails.policy import Policy, default_policy
from guardrails.rules import (
    accounts,
    addresses,
    casing,
    credentials,
    lists,
    local,
    names,
    national,
    phones,
    places,
    precision,
    records,
    urls,
)
from guardrails.rules.names import (
    BEFORE_ACT,
    COMPANY_WORDS,
    INSTITUTION_WORDS,
    LEGAL_FORMS,
    OFFICE_TITLE,
    TEAM_WORDS,
)
from guardrails.rules.ocr import lookalike_digits
from guardrails.rules.parts import name_parts
from guardrails.rules.people import PeopleFinder
from guardrails.rules.recognizers import build_recognizers, gate_presidio
from guardrails.rules.repeats import handles, repeats
from guardrails.text import fields
from guardrails.text.folding import fold
from guardrails.text.language import ENGLISH
from guardrails.text.normalize import Normalized, normalize
from guardrails.text.spans import Detection, Ranges, by_range, merge_overlaps

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine, EntityRecognizer

_LINK_TYPES = {"mailto": "EMAIL_ADDRESS", "tel": "PHONE_NUMBER"}
_HANDLE = re.compile(r"\w+")


def detect(
    analyzer: AnalyzerEngine,
    text: str,
    platform: Platform,
    policy: Policy | None = None,
    *,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    prose: bool = True,
    context: str | None = None,
) -> list[Detection]:
    """Find the personal data in a message.

    Args:
        analyzer: from ``guardrails.engine.build_analyzer``.
        text: the message as the platform delivered it (markup included).
        platform: where it was written; decides which markup is understood.
        policy: what to redact; the shipped default when ``None``.
        chunk_chars: longest text given to the NER model at once (at least 200).
        prose: also the name and street-address rules (the output scan leaves them out).
        context: the heading ``text`` sits under: a table's column header, a form's or a
            document property's field name. ``text`` is read as that key's value (``Name:
            Jordan``, so the structure rules type it as they type a key's value in chat) and
            the heading's words go to Presidio's context enhancer; no finding reaches into
            the heading, and ``text`` is analysed alone, so none crosses into a neighbour.

    Returns:
        Non-overlapping detections in reading order, with offsets into ``text``.
    """
    detector = _detector(analyzer, policy or default_policy(), max(200, chunk_chars), prose)
    keyed, shift, words = _keyed(context, text)
    return _unkeyed(detector.detect(keyed, platform, words), shift)


def detect_many(
    analyzer: AnalyzerEngine,
    messages: Sequence[tuple[str, Platform]],
    policy: Policy | None = None,
    *,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    prose: bool = True,
    contexts: Sequence[str | None] | None = None,
) -> list[list[Detection] | Exception]:
    """``detect`` for each ``(text, platform)``, with one NER pass over all of them.

    ``contexts``: the heading each message sits under (``detect``'s ``context``), if any; a
    file's cells are many short texts, and one pass over them costs a third of one each.

    Returns:
        In the order of ``messages``: what ``detect`` returns for it, or the exception its
        analysis raised (the other messages are unaffected).
    """
    detector = _detector(analyzer, policy or default_policy(), max(200, chunk_chars), prose)
    return detector.detect_many(messages, contexts)


def text_recognizers(
    analyzer: AnalyzerEngine, policy: Policy | None = None, *, prose: bool = True
) -> list[EntityRecognizer]:
    """Every recognizer ``detect`` runs that reads the text alone, not the NLP model's output.

    veilbot's own (``guardrails.rules.recognizers``, as built for this analyzer and policy) and the
    analyzer's pattern recognizers: what must stay linear in its input whatever the text.
    """
    from presidio_analyzer import PatternRecognizer

    detector = _detector(analyzer, policy or default_policy(), DEFAULT_CHUNK_CHARS, prose)
    registry = analyzer.registry.get_recognizers(LANGUAGE, entities=detector.entities)
    return [*detector.recognizers, *(r for r in registry if isinstance(r, PatternRecognizer))]


@functools.lru_cache(maxsize=16)
def _detector(analyzer: AnalyzerEngine, policy: Policy, chunk_chars: int, prose: bool) -> _Detector:
    return _Detector(analyzer, policy, chunk_chars, prose)


class _Detector:
    """A policy compiled against an analyzer: recognizers and entity list built once."""

    def __init__(
        self, analyzer: AnalyzerEngine, policy: Policy, chunk_chars: int, prose: bool
    ) -> None:
        self._analyzer = analyzer
        gate_presidio(analyzer.registry.recognizers)  # Presidio's patterns skip what ours skip
        self._policy = policy
        self._chunk = chunk_chars
        self._lexicon = casing.lexicon(analyzer) if prose else None
        words = casing.lexicon(analyzer, nouns=False) if self._lexicon else None
        describing = casing.lexicon(analyzer, parts=("adj", "adv")) if self._lexicon else None
        self._describing = describing.words if describing else frozenset()
        people = (
            PeopleFinder(words, self._lexicon, places.gazetteer())
            if self._lexicon and words
            else None
        )
        towns = (
            places.PlaceCheck(self._lexicon, words, named=people.name_word)
            if self._lexicon and words and people
            else None
        )
        self._people = people
        self._towns = towns
        if self._lexicon:  # read while the detector warms up, not at a turn's first use
            casing.foreign_function_words()
        lexicon = self._lexicon
        self._english: Callable[[str], bool] = functools.lru_cache(maxsize=4)(
            lambda text: lexicon is not None and casing.reads_as_english(text, lexicon)
        )
        self.recognizers = build_recognizers(
            policy,
            prose=prose,
            towns=towns,
            lone_town=towns.alone if towns else None,
            people=functools.partial(people, language=policy.language) if people else None,
            full_name=people.is_name if people else None,
            name_word=people.user_name if people else None,
            english=people.english if people else None,
            plausible=people.plausible if people else None,
            listed=people.listed if people else None,
            first_name=people.lower_first_name if people else None,
            vocabulary=models.vocabulary(policy.language),
        )
        self.recognizers += national.recognizers(policy.language, policy.enabled)
        self._skipped = _parse_only_pipes(analyzer) if self._lexicon else []
        own = {e for r in self.recognizers for e in r.supported_entities}
        supported = set(analyzer.get_supported_entities(LANGUAGE)) | own
        self.entities = sorted(policy.enabled & supported)

    def detect(
        self, text: str, platform: Platform, context: list[str] | None = None
    ) -> list[Detection]:
        norm = fold(normalize(text, platform), lookalike_digits)
        return self._detect(text, norm, self._ner_inputs([self._windows(norm)])[0], context)

    def detect_many(
        self,
        messages: Sequence[tuple[str, Platform]],
        contexts: Sequence[str | None] | None = None,
    ) -> list[list[Detection] | Exception]:
        """``detect`` of each message, the NER of all their chunks in one pass.

        A failure of the shared pass falls back to one pass per chunk, so a message that
        breaks the model fails alone; any other failure is its own message's.
        """
        headings = contexts if contexts is not None else [None] * len(messages)
        keys = [_keyed(c, text) for (text, _), c in zip(messages, headings, strict=True)]
        norms: list[Normalized | Exception] = []
        for (text, _, _), (_, platform) in zip(keys, messages, strict=True):
            try:
                norms.append(fold(normalize(text, platform), lookalike_digits))
            except Exception as exc:  # noqa: BLE001  (handed back: fails closed upstream)
                norms.append(exc)
        chunks = [[] if isinstance(n, Exception) else self._windows(n) for n in norms]
        # A value with no letter (a phone, an amount, a date in digits) holds no name, place
        # or organization: the NER model does not read it; the rules and the heading do.
        plain = [_LETTER.search(text) is None for text, _ in messages]
        try:
            ner: list[list[Any]] | None = self._ner_inputs(chunks, plain)
        except Exception:  # noqa: BLE001  (each message's own pass below says whose it was)
            ner = None
        found: list[list[Detection] | Exception] = []
        for i, (text, shift, words) in enumerate(keys):
            norm = norms[i]
            try:
                if isinstance(norm, Exception):
                    raise norm
                inputs = ner[i] if ner is not None else list(map(self._ner_input, chunks[i]))
                found.append(_unkeyed(self._detect(text, norm, inputs, words), shift))
            except Exception as exc:  # noqa: BLE001  (handed back: fails closed upstream)
                found.append(exc)
        return found

    def _windows(self, norm: Normalized) -> list[str]:
        """The chunks of a normalized text the analysis reads (none when it is blank)."""
        if not norm.text.strip():
            return []
        return [chunk for _, chunk, _, _ in _chunks(norm.text, self._chunk)]

    def _detect(
        self, text: str, norm: Normalized, ner: list[Any], context: list[str] | None = None
    ) -> list[Detection]:
        """``detect`` given the NLP artifacts of each of ``norm``'s windows."""
        found: list[Detection] = []
        if norm.text.strip():
            for raw, by_ner in self._analyze(norm.text, ner, context):
                refined = self._refine(raw, norm, by_ner)
                if refined is not None:
                    found.append(
                        replace(
                            refined,
                            start=norm.starts[refined.start],
                            end=norm.ends[refined.end - 1],
                        )
                    )
        found += self._fields(norm)
        merged = merge_overlaps(self._markup(precision.merge_names(found, text), norm), text)
        merged = precision.merge_places(merged, text)
        listed = self._listed(merged, text, norm) + self._paired(merged, text, norm)
        if listed:
            merged = merge_overlaps([*merged, *listed], text)
        form = self._people.link_form if self._people else None
        again = repeats(
            merged, text, norm.protected, form, any_case=self._policy.language == ENGLISH
        )
        if "USERNAME" in self._policy.enabled:  # "user jsmith (John Smith)"
            again += [
                Detection("USERNAME", a, b, 0.8) for a, b in handles(merged, text, norm.protected)
            ]
        final = merge_overlaps([*merged, *again], text) if again else merged
        return [_with_parts(d, text, form) for d in final] if form else final

    def _listed(self, found: list[Detection], text: str, norm: Normalized) -> list[Detection]:
        """The items of a list of names whose other items were found (``rules.lists``).

        Not inside markup that is never redacted, nor a value the policy allows.
        """
        protected = Ranges(norm.protected)
        return [
            d
            for d in lists.complete(found, text)
            if d.type in self._policy.enabled
            and not (d.type == "PERSON" and names.role(text[d.start : d.end]))  # "Analyst"
            and not protected.overlaps(d.start, d.end)
            and not self._policy.allows(text[d.start : d.end])
        ]

    def _paired(self, found: list[Detection], text: str, norm: Normalized) -> list[Detection]:
        """First names joined to a found person by "and", "&" or "or" (``people.paired``).

        English only (the lexicon's first names are read as English reads them); not inside
        markup that is never redacted, nor a value the policy allows.
        """
        if self._people is None or self._policy.language != ENGLISH:
            return []
        protected = Ranges(norm.protected)
        people = [(d.start, d.end) for d in found if d.type == "PERSON"]
        return [
            Detection("PERSON", start, end, lists.SCORE)
            for start, end in self._people.paired(text, people)
            if not protected.overlaps(start, end) and not self._policy.allows(text[start:end])
        ]

    def _fields(self, norm: Normalized) -> list[Detection]:
        """The values of link parameters whose key says what they are (``?dob=…``)."""
        found = []
        for key, start, end in norm.fields:
            value = norm.text[start:end]
            entity_type = urls.field_type(key, value)
            if entity_type in self._policy.enabled and not self._policy.allows(value):
                found.append(Detection(entity_type, norm.starts[start], norm.ends[end - 1], 0.9))
        return found

    def _analyze(
        self, text: str, ner: list[Any], context: list[str] | None = None
    ) -> list[tuple[Detection, bool]]:
        """Presidio over the text in chunks, duplicates removed, each with whether NER found it.

        ``ner`` holds the NLP artifacts of each chunk, in order; ``context``: words Presidio's
        context enhancer takes as said near every finding (a column header's).
        """
        seen: set[tuple[Detection, bool]] = set()
        for (offset, chunk, first, last), artifacts in zip(
            _chunks(text, self._chunk), ner, strict=True
        ):
            results: list[Any] = self._analyzer.analyze(
                text=chunk,
                language=LANGUAGE,
                entities=self.entities,
                score_threshold=self._policy.min_threshold,
                ad_hoc_recognizers=self.recognizers,
                nlp_artifacts=artifacts,
                context=context or None,
            )
            tokens = getattr(artifacts, "tokens", None)  # None: Presidio ran its own pipeline
            others = _other_names(chunk, artifacts, tokens) if self._own_model() else []
            for r in results:
                start, end = int(r.start), int(r.end)
                if (not first and start == 0) or (not last and end == len(chunk)):
                    continue  # cut by the chunk edge; the neighbouring chunk has it whole
                by_ner = _recognizer(r) == "SpacyRecognizer"
                if not by_ner and self._in_other_name(chunk, start, end, r.entity_type, others):
                    continue  # "les Maple Leafs de Toronto", "la Seconde Guerre mondiale"
                if by_ner:
                    pieces = _cells(chunk, start, end, tokens)
                elif r.entity_type == "PERSON":  # a rule's name runs on into the next cell
                    pieces = _between(chunk, start, end, _CELL_EDGE)
                else:
                    pieces = [(start, end)]
                for a, b in pieces:
                    score = round(float(r.score), 2)  # a rule's tie-break off
                    found = Detection(str(r.entity_type), offset + a, offset + b, score)
                    seen.add((found, by_ner))
        return sorted(seen, key=lambda d: (d[0].start, d[0].end, d[0].type))

    def _in_other_name(
        self, text: str, start: int, end: int, entity_type: str, others: list[tuple[int, int]]
    ) -> bool:
        """Whether a rule's name lies inside a longer one the model read as no personal data.

        The lexicon's first name "Seconde" in the event "la Seconde Guerre mondiale", the
        region "Arizona" in the team "les Cardinals de l'Arizona" (``_other_names``). A name
        after a courtesy title stays one whatever the model read.
        """
        if entity_type not in ("PERSON", "LOCATION"):
            return False
        language = self._policy.language
        if language in local.LANGUAGES and local.titled(language, text, start):
            return False
        return any(a <= start and end <= b and b - a > end - start for a, b in others)

    def _ner_input(self, chunk: str) -> Any:
        """NLP artifacts of a chunk from the NER component alone.

        Detection needs entities and context words, not parses: the shared ``tok2vec``,
        tagger, attribute ruler and lemmatizer of a spaCy pipeline feed only the tagger and
        parser (the NER component embeds its own), so they are skipped, about 40 % of the
        model's time. Context words are matched on each token's normalized form, which
        Presidio's enhancer accepts as a substring match ("cards" for "card").
        ``None`` (Presidio runs its own pipeline) for an analyzer without a spaCy model.
        """
        if self._lexicon is None:
            return None
        engine: Any = self._analyzer.nlp_engine  # a SpacyNlpEngine: the lexicon came from it
        nlp, skipped = self._nlp(engine)
        return _artifacts(engine, nlp(chunk, disable=skipped))

    def _nlp(self, engine: Any) -> tuple[Any, list[str]]:
        """The spaCy pipeline to read this policy's language with, and its pipes to skip.

        The language's own entity model when one is installed (``detect.models``, loaded on
        first use), else the analyzer's English one.
        """
        own = models.model_for(self._policy.language)
        if own is not None:
            return own, []
        return engine.nlp[LANGUAGE], self._skipped

    def _ner_inputs(
        self, texts: list[list[str]], plain: Sequence[bool] | None = None
    ) -> list[list[Any]]:
        """``_ner_input`` of every chunk of every text, from one ``nlp.pipe`` pass.

        Batched, the model costs about a quarter less per chunk and finds the same entities.
        ``plain``: the texts the model is not run on (their tokens only, no entities).
        """
        if self._lexicon is None:
            return [[None] * len(chunks) for chunks in texts]
        engine: Any = self._analyzer.nlp_engine  # a SpacyNlpEngine: the lexicon came from it
        nlp, skipped = self._nlp(engine)
        tokens_only = plain if plain is not None else [False] * len(texts)
        pairs = list(zip(texts, tokens_only, strict=True))
        flat = [chunk for chunks, bare in pairs if not bare for chunk in chunks]
        docs = iter(nlp.pipe(flat, disable=skipped, batch_size=max(1, len(flat))))
        return [
            [_artifacts(engine, nlp.make_doc(c) if bare else next(docs)) for c in chunks]
            for chunks, bare in pairs
        ]

    def _refine(self, d: Detection, norm: Normalized, by_ner: bool) -> Detection | None:
        """Thresholds, trimming and the precision checks, in analysis offsets.

        ``by_ner``: whether the NER model found it (the rules' findings are not trimmed).
        """
        if d.score < self._policy.threshold(d.type):
            return None
        start, end = d.start, d.end
        if (
            d.type == "EMAIL_ADDRESS"
            and credentials.PASSWORD in self._policy.enabled
            and credentials.url_login(norm.text, start)
        ):
            return None  # "postgres://app:Pa55w0rd@db": a password and a host, no address
        if d.type == "PERSON" and (saint := places.saint_before(norm.text, start, end)) is not None:
            start, d = saint, replace(d, type="LOCATION")  # "St. [Louis]": the town
        if by_ner and d.type in precision.NAME_TYPES:
            start, end = precision.trim(norm.text, *fields.outside_keys(norm.text, start, end))
            if end <= start:
                return None
            if d.type == "PERSON" and self._people and self._people.place(norm.text[start:end]):
                d = replace(d, type="LOCATION")  # "Manchester", "Dayton NJ": read as people
            if d.type == "PERSON" and not self._lower_case_name(norm.text, start, end):
                return None  # "u kno", "smdh": chat words, no names
            if precision.is_not_a_name(norm.text[start:end]) or _identifier(norm.text, start, end):
                return None
            if records.names_an_id(norm.text, start):
                return None  # "His [Aadhaar] is 2345 …": the number's name
            if d.type == "PERSON" and precision.to_label(norm.text, start, end):
                return None  # "[Bill] to: Acme Corp"
            if d.type == "PERSON" and _legal_form(norm.text[start:end]):
                return None  # "Smith & Jones, [Co.]"
            if d.type == "LOCATION" and self._acts(norm.text, start, end):
                d = replace(d, type="PERSON")  # "Victoria will call you back"
            if d.type == "LOCATION":
                start, end = places.grown(norm.text, start, end)  # "NEW [YORK]"
                if not self._lower_case_place(norm.text, start, end):
                    return None  # "ctfu", "la nuova": chat words and other languages
                if self._acronym(norm.text, start, end):
                    if not (self._people and self._people.common_name(norm.text[start:end])):
                        return None  # "HANO", "IUCN": an organization's initials
                    d = replace(d, type="PERSON")  # "forward this to PATEL"
                if places.team(norm.text, start, end):
                    return None  # "Nigeria 1 Bosnia 0"
            if not self._own_model() and not self._plausible(d.type, norm.text, start, end):
                prefix = places.known_prefix(norm.text[start:end])
                if d.type != "LOCATION" or not prefix or _company_word(norm.text[start : d.end]):
                    return None  # "South Jersey Industries"
                end = start + prefix  # "[Miami] Shooting"
        elif d.type == "EMAIL_ADDRESS":
            domain_end = norm.text[start:end].rpartition(".")[2]
            if not domain_end.endswith("]") and _LETTER.search(domain_end) is None:
                return None  # "maps/@52.5200,13.40": Presidio's; no domain ends in a number
            if "/@" in norm.text[start:end]:
                return None  # "tiktok.com/@jane.doe88": a profile's handle, no address
            start = precision.trim_email(norm.text, start, end)
        if d.type == "PERSON" and credentials.url_host(norm.text, start - 1):
            return None  # "postgres://admin:S3cr3t!@[db.internal]": a host, not an account
        if d.type == "PERSON" and not _marked(norm.text, start):  # "@VICE" is an account
            end = _before_role(norm.text, start, end)  # "Milson Mundim[ - Associate]"
            if names.role(norm.text[start:end]):
                return None  # "Senior Vice President of": a title, though "Vice" is a surname
        if end <= start or self._policy.allows(norm.text[start:end]):
            return None
        if d.type in ("PERSON", "LOCATION") and (
            precision.is_product(norm.text[start:end])
            or precision.in_joined_product(norm.text, start, end)  # "[Marks] & Spencer"
        ):
            return None
        if d.type in ("PERSON", "LOCATION") and precision.named_storm(norm.text, start, end):
            return None
        if d.type == "PERSON" and precision.said_as_word(norm.text, start, end):
            return None  # "what does [谢谢] mean?"
        if d.type == "LOCATION" and self._misspelt_abroad(norm.text, start, end):
            return None  # "in questa", "in treno": Italian, not Quetta and Trento
        if d.type == "LOCATION" and self._credential(norm.text, start, end):
            return None  # "Harry Preuss, MD", "Maria Lopez, PA": a degree, not a state
        if d.type == "LOCATION" and places.institution(norm.text, end):
            return None  # "the [Chicago] Symphony Orchestra"
        if d.type in ("PERSON", "LOCATION") and self._organization_handle(norm.text, start, end):
            return None
        if d.type == "LOCATION" and self._people and self._people.club(norm.text, start, end):
            return None
        if d.type in ("PERSON", "LOCATION") and self._employer(d.type, norm.text, start, end):
            return None
        if (
            d.type in ("PERSON", "LOCATION")
            and self._policy.language in local.LANGUAGES
            and not _address(d.type, norm.text, start, end)
        ):
            kept = self._local(d.type, norm.text, start, end, by_ner)
            if kept is None:
                return None  # "Viele Grüße", "Cordialement", "Behandlung"
            start, end = kept
            if (
                d.type == "LOCATION"
                and self._people
                and self._people.lone_first_name(norm.text[start:end])
            ):
                d = replace(d, type="PERSON")  # "leite das an Jürgen weiter"
        if d.type in precision.NAME_TYPES:
            end = precision.closed(norm.text, start, end)
        if d.type == "PERSON" and _marked(norm.text, start):
            end = _handle_end(norm.text, end)  # "@[mike].chen": the whole handle
        if d.type == "PERSON" and self._people is not None:
            language = self._policy.language
            if language == ENGLISH:  # "ping [Mei] instead"
                end = self._people.without_trailing_words(norm.text, start, end)
            nouns = models.vocabulary(language).words if language in local.NOUNS_CAPITALISED else ()
            english = language == ENGLISH
            start, end = self._people.complete(norm.text, start, end, nouns, initial=english)
        return replace(d, start=start, end=end)

    def _own_model(self) -> bool:
        """Whether the NER that reads this message is its language's own (``_nlp``).

        Such a model read its words in their language's context: the English word and name
        checks (``_plausible``, the lone-word check of ``local.trim``) do not judge it.
        """
        return models.model_for(self._policy.language) is not None

    def _local(
        self, entity_type: str, text: str, start: int, end: int, by_ner: bool
    ) -> tuple[int, int] | None:
        """A name span of a non-English message without its language's no-name words.

        ``by_ner``: the NER found it; with the language's own entity model (``_nlp``), its
        reading of a lone word stands.
        """
        people = self._people
        language = self._policy.language
        return local.trim(
            language,
            text,
            start,
            end,
            entity_type,
            by_ner=by_ner,
            own_model=by_ner and self._own_model(),
            first_name=people.first_name if people else lambda _: True,
            listed=people.listed if people else lambda _: True,
            known_place=places.known_place,
            vocabulary=models.vocabulary(language),
        )

    def _lower_case_name(self, text: str, start: int, end: int) -> bool:
        """Whether an NER person the model read in lower case may be one.

        A lower-case span is a name only in English text when a word of it is in the name
        lexicon ("hari" is a name and Indonesian for "day"), in another language when the
        message capitalises nothing else and a word of it is a first name there in lower case
        ("sag lukas": ``local.lower_name``), or when it is a handle or hashtag, which are lower
        case by habit.
        """
        if not text[start:end].islower() or self._people is None or self._lexicon is None:
            return True
        if _marked(text, start):
            return True
        language = self._policy.language
        if language in local.LANGUAGES:
            if not local.uncapitalised(text):
                return False
            vocabulary = models.vocabulary(language)
            first = self._people.lower_first_name
            return any(
                local.lower_name(language, first, vocabulary, w) for w in text[start:end].split()
            )
        return self._english(text) and self._people.lower_case_name(text[start:end])

    def _lower_case_place(self, text: str, start: int, end: int) -> bool:
        """Whether a place the English model read in lower case may be one.

        People write known places in lower case ("london", "miramar florida", "tampa bay");
        what the gazetteer does not know, written so, is a chat word, a misspelling or another
        language's words ("ctfu", "altough", "la nuova"), unless a place word before it makes
        it the town the place rule reads ("moved from manchster"). A hashtag is lower case by
        habit.
        """
        span = text[start:end]
        if not span.islower() or self._policy.language != ENGLISH:
            return True
        if _marked(text, start):
            return True
        if places.lower_case_place(span):
            return True
        return (
            self._towns is not None and places.place_word_before(text, start) and self._towns(span)
        )

    def _misspelt_abroad(self, text: str, start: int, end: int) -> bool:
        """Whether a place is only a misspelt town, in a message that does not read as English.

        A word a letter off a large town is the town in English chat ("moved to bostn"); among
        another language's words it is one of them ("in questa", "in treno").
        """
        span = text[start:end]
        return (
            self._towns is not None
            and span.islower()
            and not self._english(text)  # cached per text: first, before the town lookup
            and self._towns.misspelling(span)
        )

    def _acronym(self, text: str, start: int, end: int) -> bool:
        """Whether a place the English model read is initials no place has ("IUCN", "HANO").

        Places go by few initials of four letters or more, and the gazetteer knows them
        ("NOLA"); three are an airport's or a city's code too often ("LAX", "ATL"). Among
        words written all in capitals (the ``_SHOUTING`` characters around it), a short word
        in capitals is no initials.
        """
        span = text[start:end]
        around = text[max(0, start - _SHOUTING) : end + _SHOUTING]
        return (
            self._policy.language == ENGLISH
            and re.fullmatch(r"[A-Z]{4,5}", span) is not None
            and not places.known_place(span)
            and any(c.islower() for c in around)
        )

    def _credential(self, text: str, start: int, end: int) -> bool:
        """Whether a place ending in a state code is a degree after a name ("Harry Preuss, MD").

        The codes that are also degrees (MD, PA, DC, ND) right after a first and last name
        (the first a first name of the lexicon, the two no known place), the place no more
        than the code or the last name and the code, no postcode after and no preposition of
        place before: "Bethesda, MD 20814", "in Chevy Chase, MD", "Washington, DC" stay places.
        """
        if self._people is None or text[end - 2 : end] not in _DEGREES:
            return False
        name = _NAME_AND_DEGREE.search(text, max(0, end - 80), end)
        if name is None or name.end() != end or start < name.start(2):
            return False
        if places.preposition_before(text, name.start()) or _POSTCODE_AFTER.match(text, end):
            return False  # "in Chevy Chase, MD", "Bethesda, MD 20814"
        town = text[name.start(1) : name.end(2)]  # "Chevy Chase, MD" is a town
        return self._people.first_name(name.group(1)) and not places.known_place(town)

    def _acts(self, text: str, start: int, end: int) -> bool:
        """Whether a place is a person's name doing what people do ("Victoria will call")."""
        acting = BEFORE_ACT.match(text, start)
        return (
            acting is not None
            and acting.end("v") == end
            and self._people is not None
            and self._people.listed(text[start:end])
        )

    def _employer(self, entity_type: str, text: str, start: int, end: int) -> bool:
        """Whether a name is an employer's ("I work for Citigroup": ``people.employer``)."""
        place = entity_type == "LOCATION"
        return self._people is not None and self._people.employer(text, start, end, place=place)

    def _organization_handle(self, text: str, start: int, end: int) -> bool:
        """Whether a span is a whole account name or hashtag of an organization.

        "@SkySports", "#BBCLincolnshire", "#mufc": a hashtag names a topic, and one made of
        an organization's words is no person.
        """
        handle = _whole_tag(text, start, end, "@#")
        if handle is None or self._people is None:
            return False
        people = self._people
        return accounts.organization_handle(handle, people.english, people.listed)

    def _plausible(self, entity_type: str, text: str, start: int, end: int) -> bool:
        """Whether an NER span can be what its type says (needs the name lexicon).

        A person is not a run of English words, nor a name a company word follows. A place
        is one when a word of it is no English word, the gazetteer knows it ("New York"), it
        names a street, park or water ("Central Park") or a state or country follows it after
        a comma ("Chevy Chase, MD"). Made of English words, the model's place still is one
        ("Attica", "Old Goa", "River Garden": the lemmatizer's nouns hold many proper names)
        unless it is a company's, an institution's or a team's name ("Loqate Inc", "the State
        Railway of Thailand", "Acme Support") or one word English describes with ("the Israeli
        air strikes", "from the North").
        """
        people = self._people
        if people is None:
            return True
        span = text[start:end]
        if entity_type == "PERSON":
            titled = (
                bool(_AFTER_TITLE.search(text[max(0, start - 16) : start]) or _TITLED.match(span))
                and span.split()[-1].strip(".").casefold() not in COMPANY_WORDS
            )
            # "Mr. Brown", "President Trump": a title makes any word a name
            return (titled or people.plausible(span)) and not people.company(text, end)
        if entity_type == "LOCATION":
            if people.company(text, end):
                return False
            if (
                people.unknown_word(span)
                or places.known_place(span)
                or places.named_feature(span)
                or places.region_after(text, end)  # "Chevy Chase, MD", "Paxton, Illinois"
            ):
                return True
            after = _CAPITALIZED_AFTER.match(text, end)  # "[Acme] Support"
            words = {
                w.casefold() for w in re.findall(r"[^\W\d_]+", span + (after[0] if after else ""))
            }
            return not (
                _company_word(span)  # "Loqate Inc"
                or span.casefold() in self._describing  # "the Israeli air strikes"
                or words & (INSTITUTION_WORDS | TEAM_WORDS)  # "State Railway", "Acme Support"
            )
        return True

    def _markup(self, found: list[Detection], norm: Normalized) -> list[Detection]:
        """Protected markup untouched, one entity per link with data in it, users as USER."""
        protected = Ranges(norm.protected)
        kept = [d for d in found if not protected.overlaps(d.start, d.end)]
        links: list[Detection] = []
        taken: set[Detection] = set()
        spans = [(start, end) for start, end, _ in norm.links]
        for (start, end, kind), overlapping in zip(norm.links, by_range(kept, spans), strict=True):
            inner = [d for d in overlapping if d not in taken]
            if kind == "url" and all(_part_of(d, start, end) for d in inner):
                continue  # the personal parts of a web link, not the whole link
            entity_type = _LINK_TYPES.get(kind)
            if entity_type not in self._policy.enabled:
                if not inner:
                    continue
                entity_type = max(inner, key=lambda d: d.score).type
            taken.update(inner)
            links.append(Detection(entity_type, start, end, 1.0))
        kept = [d for d in kept if d not in taken] + links
        if "USER" in self._policy.enabled:
            kept += [Detection("USER", start, end, 1.0) for start, end in norm.users]
        return kept


OTHER_NAME_LABELS = frozenset({"ORG", "MISC"})
"""The entity models' labels of names that are no personal data: organizations, and events,
works, products and teams (French's ``MISC``)."""


def _other_names(chunk: str, artifacts: Any, doc: Any) -> list[tuple[int, int]]:
    """The spans of a chunk the entity model read as organizations or other names.

    Each cut where it crosses into another line, cell or sentence (``_cells``), as the model's
    people and places are: the small French model reads a mail's subject line, the blank line
    and "Bonjour Monsieur Martin" as one name.
    """
    entities = getattr(artifacts, "entities", None) or []
    return [
        piece
        for e in entities
        if e.label_ in OTHER_NAME_LABELS
        for piece in _cells(chunk, e.start_char, e.end_char, doc)
    ]


def _artifacts(engine: Any, doc: Any) -> Any:
    """Presidio's NLP artifacts of a parsed chunk; context words match on normalized forms."""
    for token in doc:
        token.lemma_ = token.norm_
    return engine._doc_to_nlp_artifact(doc, LANGUAGE)  # noqa: SLF001


_LETTER = re.compile(r"[^\W\d_]")
_KEY_WORD = re.compile(r"[^\W\d_]+")
_KEY_LENGTH = 40
"""A heading longer than this is no field name: it is read only up to here."""


def _key(heading: str) -> str:
    """A heading as a one-line key: blanks folded, no trailing colon, at most ``_KEY_LENGTH``."""
    return " ".join(heading.split())[:_KEY_LENGTH].rstrip(" :=：")


def _keyed(context: str | None, text: str) -> tuple[str, int, list[str] | None]:
    """``text`` as its heading's value (``Name: Jordan``), where it starts, the heading's words.

    Without a heading: ``text`` itself, at 0, no words.
    """
    key = _key(context) if context else ""
    if not key:
        return text, 0, None
    return f"{key}: {text}", len(key) + 2, _KEY_WORD.findall(key.casefold())


def _unkeyed(found: list[Detection], shift: int) -> list[Detection]:
    """Detections of a keyed text in the value's own offsets; none reaches into the heading."""
    if not shift:
        return found
    return [
        replace(d, start=max(d.start, shift) - shift, end=d.end - shift)
        for d in found
        if d.end > shift
    ]


_FIELD_BREAK = re.compile(r"[,;](?=[^\s\d])|,,|;;|[\t|\n]")
"""Where a table's cell or a CSV field ends: a comma or semicolon with no space after it, a
tab, a pipe or a line end ("Zoë Brontë,,,Köln", "Luis Ortega;Sevilla"); "Paris, France" and
"1,000" are one span."""


_CELL_EDGE = re.compile(r"[\t|]")
"""Where a table's cell ends in every table: no name holds a tab or a bar."""


def _between(text: str, start: int, end: int, edge: re.Pattern[str]) -> list[tuple[int, int]]:
    """The pieces of ``start:end`` between the matches of ``edge``."""
    pieces, position = [], start
    for found in edge.finditer(text, start, end):
        if found.start() > position:
            pieces.append((position, found.start()))
        position = found.end()
    if end > position:
        pieces.append((position, end))
    return pieces


def _cells(text: str, start: int, end: int, doc: Any = None) -> list[tuple[int, int]]:
    """An NER span cut where it crosses from one field, cell or sentence into the next.

    ``doc``: the chunk's tokens, which say where a sentence ends (``_sentence_ends``).
    """
    breaks = [(found.start(), found.end()) for found in _FIELD_BREAK.finditer(text, start, end)]
    pieces, position = [], start
    for a, b in sorted(breaks + _sentence_ends(doc, start, end)):
        if a > position:
            pieces.append((position, a))
        position = max(position, b)
    if end > position:
        pieces.append((position, end))
    return pieces


_SENTENCE_ENDS = frozenset(".!?")


def _sentence_ends(doc: Any, start: int, end: int) -> list[tuple[int, int]]:
    """Where a sentence ends inside a span of a chunk the model read (``doc``: its tokens).

    A full stop, question or exclamation mark that the tokenizer left as a token of its own,
    after a word of four letters or more, ends a sentence ("Sag bitte [Bescheid. Nimm] dir
    Zeit": the German model, which learnt from titles and fragments, ran on over it).
    Abbreviations are short ("mr. elliott", "st. louis" in lower case, where the tokenizer
    splits them) and stay whole, as do "St. Louis" and "J. Smith" (one token each).
    """
    span = doc.char_span(start, end, alignment_mode="expand") if doc is not None else None
    if span is None:
        return []
    return [
        (t.idx, t.idx + len(t.text))
        for t in span[:-1]
        if t.text in _SENTENCE_ENDS and t.i > 0 and len(doc[t.i - 1].text) > 3
    ]


def _address(entity_type: str, text: str, start: int, end: int) -> bool:
    """Whether a place holds a street address ("Kirchgasse 8", "12 rue de la Paix").

    The language's no-name words and its lone-word check read words, and would cut the
    house number off or drop a street they take for a noun.
    """
    span = text[start:end]
    return entity_type == "LOCATION" and any(c.isdigit() for c in span) and addresses.street(span)


def _identifier(text: str, start: int, end: int) -> bool:
    """Whether a name in capitals follows a word that names an id ("build MORGA 771316")."""
    span = text[start:end]
    return span.isupper() and phones.IDENTIFIER.search(text, max(0, start - 40), start) is not None


def _before_role(text: str, start: int, end: int) -> int:
    """The end of a person's span without a job title after a spaced dash in it."""
    dash = _SPACED_DASH.search(text, start, end)
    return dash.start() if dash and names.role(text[dash.end() : end]) else end


_SPACED_DASH = re.compile(r"[ \t][-–—][ \t]")


def _legal_form(span: str) -> bool:
    """Whether a span is a company's legal form alone ("Co.", "Inc", "GmbH"): no person."""
    return span.strip(" .,").casefold() in LEGAL_FORMS


_DEGREES = frozenset({"MD", "PA", "DC", "ND"})
"""State codes that are also degrees after a name: medicine, physician assistant, chiropractic,
naturopathy."""
_NAME_AND_DEGREE = re.compile(
    rf"\b([A-Z][a-z]+)[ \t]+(?:[A-Z]\.?[ \t]+)?([A-Z][a-z'\-]+),?[ \t]+(?:{'|'.join(_DEGREES)})\b"
)
_POSTCODE_AFTER = re.compile(r"[ \t]*\d")
_CAPITALIZED_AFTER = re.compile(r"[ \t]+[A-Z][a-z]+\b")


def _company_word(span: str) -> bool:
    """Whether a span's last word is a company word ("South Jersey Industries")."""
    words = span.split()
    return bool(words) and words[-1].strip(".,").casefold() in COMPANY_WORDS


_SHOUTING = 200
"""How far around a word in capitals the text is read for lower case (a bound, so that a
long text in capitals is not scanned again for each such word)."""


def _marked(text: str, start: int) -> bool:
    """Whether a span starts a handle or a hashtag: "@" or "#" at or just before ``start``."""
    return text.startswith(("@", "#"), start) or start > 0 and text[start - 1] in "@#"


_HANDLE_REST = re.compile(r"[\w.\-]*[\w]")


def _handle_end(text: str, end: int) -> int:
    """Where a handle a person's span begins ends: over its dots, dashes and underscores.

    "@mike.chen", "@lily.rose_": the model reads the first name, and the surname after the
    dot stayed in clear. Not a sentence's full stop after it ("ask @mike.").
    """
    rest = _HANDLE_REST.match(text, end)
    return rest.end() if rest is not None else end


def _whole_tag(text: str, start: int, end: int, marks: str) -> str | None:
    """The word of a span that is one whole handle or hashtag after one of ``marks``."""
    start += text.startswith(tuple(marks), start)
    whole = _HANDLE.match(text, start)
    if start == 0 or text[start - 1] not in marks or whole is None or whole.end() != end:
        return None
    return text[start:end]


def _with_parts(d: Detection, text: str, form: Callable[[str], str]) -> Detection:
    """A person with the name tokens a later mention may use alone, in their lookup forms."""
    if d.type != "PERSON":
        return d
    return replace(d, parts=name_parts(d.type, text[d.start : d.end], form))


def _part_of(d: Detection, start: int, end: int) -> bool:
    """Whether a detection lies within ``[start, end)`` without covering all of it."""
    return start <= d.start and d.end <= end and (d.start, d.end) != (start, end)


def _parse_only_pipes(analyzer: Any) -> list[str]:
    """Pipes NER does not read: the shared tok2vec, its listeners and the POS/lemma pipes."""
    nlp = analyzer.nlp_engine.nlp[LANGUAGE]
    if "ner" not in nlp.pipe_names or "tok2vec" not in nlp.pipe_names:
        return []
    if "ner" in nlp.get_pipe("tok2vec").listening_components:
        return []  # this model's NER reads the shared tok2vec: nothing can be skipped
    return [p for p in nlp.pipe_names if p in _PARSE_PIPES]


_PARSE_PIPES = frozenset({"tok2vec", "tagger", "morphologizer", "attribute_ruler", "lemmatizer"})


_AFTER_TITLE = re.compile(rf"{OFFICE_TITLE}$")
"""A title just before a span the model read as a person: a courtesy title, an office or a
rank ("President Trump", "Professor Eastman": a surname English also knows)."""
_TITLED = re.compile(rf"{OFFICE_TITLE}[A-ZÀ-ÖØ-Þ]")
"""A span the model read as a person that starts with a title and a capitalized word
("Professor Eastman", not "Professor of Medicine")."""


def _recognizer(result: Any) -> str:
    metadata = result.recognition_metadata or {}
    return str(metadata.get("recognizer_name", ""))


def _chunks(text: str, size: int) -> Iterator[tuple[int, str, bool, bool]]:
    """``(offset, chunk, is_first, is_last)`` windows of at most ``size`` characters.

    Windows overlap by a tenth of ``size`` and are cut at whitespace where possible, so
    an entity shorter than the overlap is whole in at least one window.
    """
    overlap = size // 10
    start = 0
    while True:
        end = min(start + size, len(text))
        if end < len(text):
            space = text.rfind(" ", start + size - overlap // 2, end)
            end = space if space > start else end
        yield start, text[start:end], start == 0, end == len(text)
        if end == len(text):
            return
        start = end - overlap
