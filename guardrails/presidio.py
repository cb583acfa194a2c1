"""``PresidioGuardrail``: detection (``guardrails.detect.detection``) plus the per-thread vault.

Detection runs in a worker thread (spaCy is CPU bound) and any failure there fails closed with
``GuardrailError``.

The output scan (``scan_output``) is pattern-only: a second analyzer with Presidio's ``no_op``
NLP engine and the same pattern recognizers, built once from the main one, plus veilbot's own
rules without the name and address heuristics. It finds the structured identifiers that matter
when a model produces them (e-mail, phone, card, IBAN, SSN, IP, crypto, personal parts of
URLs) in about a millisecond, instead of a second spaCy pass per answer. Names and places the
model writes itself are kept: the model never saw the user's (they were placeholders), so they
are its own words, often public figures or places, and redacting them would garble the stored
history for no privacy gain. Each detected span of the user's original text is swapped for its vault
placeholder; everything between the spans, platform markup included, is kept byte for byte,
so restoring an answer that echoes the text gives the user's formatting back.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.errors import GuardrailError, InputRejected
from bot.core.scopes import PolicyOverride
from bot.core.types import EntityRef, Platform, Redaction, TextAnalysis, ThreadId
from guardrails.detect.batching import DEFAULT_CHUNK_CHARS
from guardrails.detect.workers import WARM_UP_TEXT, Detector, ThreadDetector
from guardrails.policy import Policy, default_policy
from guardrails.restore.placeholders import (
    KNOWN_TYPES,
    TYPED,
    PlaceholderRestorer,
    canonical,
    find_placeholders,
    placeholder_type,
)
from guardrails.restore.reveal import Revealed, RevealPolicy
from guardrails.rules.ocr import as_printed
from guardrails.rules.parts import name_parts
from guardrails.text.folding import fold, may_hide, mostly_hidden
from guardrails.text.language import identify, ready
from guardrails.text.normalize import GAP, normalize
from guardrails.text.spans import Detection, resolve_overlaps
from guardrails.vault.linking import identity, known_name_spans, name_tokens, value_grams
from guardrails.vault.listing import list_vault
from guardrails.vault.store import OFF_LOOP_VALUES, RedisVault, VaultEntry, VaultPeek

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

__all__ = ["Detection", "PresidioGuardrail", "resolve_overlaps"]

logger = logging.getLogger(__name__)

NAME_TYPES = frozenset({"PERSON", "LOCATION", "NRP", "ORGANIZATION"})
"""Types the name rules and the NER model give; a known value may take such a span over."""
KNOWN_VALUE, KNOWN_NAME = 0.95, 0.9
"""Scores of what the vault recognizes: above the NER model's, below validated findings."""
LINK_OFF_LOOP_CHARS = 4000
"""A longer message is looked up in the vault in a worker thread: a 40 000-character one
takes some 2 000 word runs to hash, ~25 ms that would hold every other event's ack."""
UNSETTLED_MAX = 64
"""Placeholders ``u:`` may list, all in use, before a retention that drops none empties it."""
_MAY_HOLD = re.compile(r"[\d@/%]|\b(?:at|dot)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Found:
    """What ``analyze`` found: detections in the text with typed placeholders masked."""

    masked: str
    spans: list[Detection]
    typed: list[Detection]
    policy: PolicyOverride | None = None
    printed: str | None = None
    """OCR'd text as printed (``rules.ocr``): the values go to the vault as printed."""
    language: str | None = None
    """The language the text was identified as (``None``: its scope reads English only)."""


class PresidioGuardrail:
    """The ``Guardrail`` port on Presidio and a ``RedisVault``.

    Args:
        analyzer: an analyzer from ``guardrails.engine.build_analyzer``, used in a worker
            thread; ``None`` when ``detector`` runs detection elsewhere.
        vault: the placeholder vault.
        policy: what to redact (``guardrails.policy``); the shipped default when ``None``.
        reveal: what readers see for each entity type in shared and private places.
        chunk_chars: longest text given to the NER model at once; longer ones are chunked.
        detector: where detection runs (``guardrails.detect.workers``); by default one worker
            thread on ``analyzer``.
    """

    def __init__(
        self,
        analyzer: AnalyzerEngine | None,
        vault: RedisVault,
        *,
        policy: Policy | None = None,
        reveal: RevealPolicy | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
        detector: Detector | None = None,
    ) -> None:
        self._reveal = reveal or RevealPolicy()
        self._scope_reveals: dict[PolicyOverride, RevealPolicy] = {}
        self._vault = vault
        self._policy = policy or default_policy()
        # One object for every turn: ``_refs`` is cached by (text, types), and a new but equal
        # set in each call made every cached lookup compare two sets of ~30 types.
        self._ref_types = frozenset(KNOWN_TYPES | self._policy.enabled)
        if detector is None:
            if analyzer is None:
                raise ValueError("PresidioGuardrail needs an analyzer or a detector")
            detector = ThreadDetector(analyzer, self._policy, chunk_chars)
        self._detector = detector
        self._working = False

    @property
    def working(self) -> bool:
        """Whether the last analysis succeeded (``False`` before ``warm_up``)."""
        return self._working

    async def check(self, *, within_seconds: float = 5.0) -> bool:
        """Readiness: the last analysis worked, or a tiny one works now within ``within_seconds``.

        A failed analysis marks the guardrail not working until one succeeds again, so a
        readiness probe reports a broken analyzer and recovers on its own when it works again.
        """
        if self._working:
            return True
        try:
            await asyncio.wait_for(self.warm_up(), within_seconds)
        except (GuardrailError, TimeoutError):
            return False
        return self._working

    async def warm_up(self) -> None:
        """Run one analysis, so the first user does not pay Presidio's lazy start-up.

        Raises:
            GuardrailError: the analyzer does not work.
        """
        await self._detect(WARM_UP_TEXT, "console")
        await self._detect(WARM_UP_TEXT, "console", prose=False)

    async def anonymize(
        self,
        thread_id: ThreadId,
        text: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
        ocr: bool = False,
        sent: Sequence[str] = (),
    ) -> Redaction:
        """Replace personal data in a user's text by this thread's placeholders.

        ``policy``: the scope's changes to the guardrail policy (``None``: the service's).
        ``ocr``: the text was read by OCR (see ``analyze``).
        ``sent``: texts the thread sent out holding its placeholders (a tool call's
        arguments, for a server that gets no values): a placeholder of theirs quoted back
        stays the thread's own (``<PERSON_1>``, which the restorer shows as its value), not
        a typed one (``<PLACEHOLDER_n>``, shown as typed).

        Raises:
            GuardrailError: detection could not run; nothing may be sent to the model.
            StoreError: the vault could not be read or written.
        """
        analysis = self.analyze(text, platform=platform, policy=policy, ocr=ocr)
        issued = frozenset(
            canonical(m) for t in sent for m in find_placeholders(t, self._ref_types)
        )
        redaction, _, _ = await self._anonymize(thread_id, analysis, None, issued)
        return redaction

    async def analyze(
        self,
        text: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
        ocr: bool = False,
    ) -> TextAnalysis:
        """Detection on a user's text, which reads no thread's state (``anonymize_turn``).

        Placeholder-shaped text the user typed is masked before detection and kept as typed.
        ``ocr``: the text was read from a picture by OCR; detection reads it as printed
        (``guardrails.rules.ocr``: "jane.doe@example. com" as one address), and each finding
        replaces its whole span of the OCR'd text.

        Raises:
            InputRejected: the text is mostly characters nobody sees (``guardrails.text.folding``);
                it is not analysed and nothing may be sent to the model.
            GuardrailError: detection could not run; nothing may be sent to the model.
        """
        if mostly_hidden(text):
            raise InputRejected("message is mostly invisible characters", reason="hidden")
        typed = self._typed_placeholders(text, platform, policy.on if policy else frozenset())
        ranges = [(s.start, s.end) for s in typed]
        printed = (await _as_printed(text)) if ocr else text
        masked = _mask(printed, ranges) if typed else printed
        language = None
        if policy is not None and policy.languages:
            if ready():
                language = identify(masked, policy.languages)
            else:  # the identifier's model loads once, in about a second: off the event loop
                language = await asyncio.to_thread(identify, masked, policy.languages)
            policy = dataclasses.replace(policy, language=None if language == "en" else language)
        spans = await self._detect(masked, platform, policy=policy)
        found = _Found(masked, spans, typed, policy, printed if ocr else None, language)
        return TextAnalysis(text, platform, found)

    async def anonymize_turn(
        self, thread_id: ThreadId, analysis: Awaitable[TextAnalysis], *, private: bool
    ) -> tuple[Redaction, PlaceholderRestorer]:
        """The redaction of ``analysis``, and the ``restorer`` of the vault as that left it.

        While the analysis (begun before the caller took the thread's lock) finishes, the
        vault is asked whether it exists; the known-value lookups are the message's HMACs,
        fetched by name. The restorer knows what this anonymization placed; its ``fetch``
        gets the values of the placeholders an answer uses as they arrive (sealed, unsealed
        when shown). The caller holds the thread's lock, so nothing else writes to the vault.

        Raises:
            GuardrailError: detection could not run; nothing may be sent to the model.
            StoreError: the vault could not be read or written.
        """
        placed: dict[str, tuple[str, str]] = {}
        redaction, peeked, scope = await self._anonymize(thread_id, analysis, placed)
        mapping = self._vault.recalling(thread_id)
        for placeholder, value in placed.items():
            mapping.place(placeholder, value)  # new: issued for the value that made it
        return redaction, self._restorer(
            mapping,
            private,
            self._reveal_of(scope),
            fetch=mapping.recall,
            placed=frozenset([*peeked.unsettled, *placed]),
            also=scope.on if scope else frozenset(),
        )

    def _reveal_of(self, scope: PolicyOverride | None) -> RevealPolicy:
        """The reveal policy where a scope changes it (built once per scope policy)."""
        if scope is None or not scope.reveal:
            return self._reveal
        if (known := self._scope_reveals.get(scope)) is None:
            rules = {t: {k: v for k, v in (("shared", sh), ("private", pr)) if v}
                     for t, sh, pr in scope.reveal}  # fmt: skip
            known = self._scope_reveals[scope] = self._reveal.updated(rules)
        return known

    async def _anonymize(
        self,
        tid: ThreadId,
        analysis: Awaitable[TextAnalysis],
        placed: dict[str, tuple[str, str]] | None,
        issued: frozenset[str] = frozenset(),
    ) -> tuple[Redaction, VaultPeek, PolicyOverride | None]:
        """The redaction, what the vault was before it, and the analysis's scope policy.

        ``placed`` collects the values the redaction issued new placeholders for; a typed
        placeholder in ``issued`` (canonical forms) is left as written: the thread's own.
        """
        done, peeked = await self._analysis_and_vault(tid, analysis)
        found: _Found = done.found
        spans = found.spans
        if peeked.exists:
            spans = await self._link_known(tid, found.masked, spans)
        # A typed placeholder inside a value ("<mailto:a@b.c|EMAIL_ADDRESS_1>") goes with it.
        typed = [
            t
            for t in found.typed
            if not any(_inside(t, s) for s in spans)
            and not (issued and self._issued(done.text[t.start : t.end], issued))
        ]
        if typed:
            ranges = [(s.start, s.end) for s in typed]
            spans = sorted([*(s for s in spans if not _overlaps(s, ranges)), *typed], key=_start)
        redaction = await self._redact(tid, done.text, spans, placed, found.printed)
        if found.language:
            redaction = dataclasses.replace(redaction, language=found.language)
        logger.debug(
            "anonymized thread=%s platform=%s entities=%s", tid, done.platform, redaction.counts()
        )
        return redaction, peeked, found.policy

    async def _analysis_and_vault(
        self, tid: ThreadId, analysis: Awaitable[TextAnalysis]
    ) -> tuple[TextAnalysis, VaultPeek]:
        """The analysis, and a peek at the vault while it runs; a detection failure first.

        A vault written before the layout mark is listed now, once (``vault.listing``).
        """
        reading = asyncio.ensure_future(self._vault.peek(tid))
        try:
            done = await analysis
        except BaseException:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            raise
        peeked = await reading
        if peeked.exists and not peeked.listed:
            await list_vault(self._vault, tid)
        return done, peeked

    def _issued(self, written: str, issued: frozenset[str]) -> bool:
        """Whether ``written`` (a typed placeholder) is one of ``issued`` (canonical forms)."""
        found = list(find_placeholders(written, self._ref_types))
        return len(found) == 1 and canonical(found[0]) in issued

    def _typed_placeholders(
        self, text: str, platform: Platform, also: frozenset[str] = frozenset()
    ) -> list[Detection]:
        """Placeholder-shaped text the user typed, in any form the restorer reads.

        Each becomes a value of type ``TYPED`` (kept as typed), masked before analysis: only
        the guardrail mints the placeholders the model sees, so ``who is <PERSON_1>?`` never
        reaches the model as the thread's ``<PERSON_1>`` nor comes back as its value. The
        text is read as written and as the platform shows it, so Slack's escaped
        ``&lt;person_1&gt;`` (what a user typing ``<person_1>`` sends) and a spaced or
        hidden-character ``P E R S O N _ 1`` are ones too.
        """
        types = KNOWN_TYPES | self._policy.enabled | also
        spans = [(m.start("ph"), m.end("ph")) for m in find_placeholders(text, types)]
        if may_hide(text):  # the analysis form is built on the event loop: only when it may help
            shown = fold(normalize(text, platform))
            spans += [shown.original(*m.span("ph")) for m in find_placeholders(shown.text, types)]
        kept = resolve_overlaps([_Span(a, b) for a, b in spans])
        return [Detection(TYPED, s.start, s.end) for s in kept]

    async def restorer(
        self, thread_id: ThreadId, *, platform: Platform, private: bool
    ) -> PlaceholderRestorer:
        """A restorer bound to this thread's vault and the reveal policy of the place.

        Args:
            thread_id: the thread whose placeholders may be filled (and no other's).
            platform: where the answer goes.
            private: ``True`` in a direct message; shared places may see masked values.

        Raises:
            StoreError: the vault could not be read.
        """
        return self._restorer(await self._vault.mapping(thread_id), private)

    def _restorer(
        self,
        mapping: Mapping[str, tuple[str, str]],
        private: bool,
        reveal: RevealPolicy | None = None,
        *,
        fetch: Callable[[Collection[str]], Awaitable[None]] | None = None,
        placed: Collection[str] | None = None,
        also: frozenset[str] = frozenset(),
    ) -> PlaceholderRestorer:
        shown = Revealed(mapping, reveal or self._reveal, private=private)
        # the restorer reads the thread's own types off the placeholders too, and the types a
        # scope's policy turns on (``also``) that the service's leaves off
        return PlaceholderRestorer(
            shown, known_types=self._policy.enabled | also, fetch=fetch, placed=placed
        )

    async def fill(self, thread_id: ThreadId, texts: Sequence[str]) -> tuple[list[str], set[str]]:
        """``texts`` with each placeholder replaced by this thread's value, for a tool call.

        Only this thread's vault is read, values as stored (no reveal policy: the call goes to
        a server the configuration trusts with them). A placeholder the vault lacks is left
        as written and named in the second item; the caller must not make the call then.

        Raises:
            StoreError: the vault could not be read.
        """
        types = self._ref_types | {TYPED}
        found = [[(m.span("ph"), canonical(m)) for m in find_placeholders(t, types)] for t in texts]
        wanted = {p for spans in found for _, p in spans}
        if not wanted:
            return list(texts), set()
        mapping = self._vault.recalling(thread_id)
        await mapping.recall(wanted)
        missing = {p for p in wanted if p not in mapping}
        filled = []
        for text, spans in zip(texts, found, strict=True):
            for (start, end), placeholder in reversed(spans):
                if placeholder in mapping:
                    text = text[:start] + mapping[placeholder][1] + text[end:]
            filled.append(text)
        return filled, missing

    async def scan_output(self, thread_id: ThreadId, text: str, *, platform: Platform) -> Redaction:
        """Redact identifiers the model produced itself, for the stored copy of an answer.

        Pattern-only (see the module docstring): e-mail, phone, card, IBAN, SSN, IP, crypto,
        personal parts of URLs; names and places the model writes are kept. Placeholders
        already in the answer are left alone and not counted.

        Raises:
            GuardrailError: detection could not run.
            StoreError: the vault could not be read or written.
        """
        protected = [(m.start(), m.end()) for m in find_placeholders(text)]
        masked = _mask(text, protected)
        found = await self._detect(masked, platform, prose=False) if self._may_hold(masked) else []
        spans = [s for s in found if not _overlaps(s, protected)]
        redaction = await self._redact(thread_id, text, spans)
        logger.debug(
            "scanned output thread=%s platform=%s entities=%s",
            thread_id,
            platform,
            redaction.counts(),
        )
        return redaction

    async def retain(
        self,
        thread_id: ThreadId,
        kept: Sequence[str],
        *,
        dropped: Sequence[str] | None = None,
        placed: Collection[str] = (),
    ) -> int:
        """Forget the thread's values that none of the ``kept`` texts refers to.

        The conversation calls it with the thread's kept history after every write to it, so
        a deleted or trimmed message takes the values only it introduced out of the vault.
        With ``dropped`` (the texts the write removed from the history) and ``placed`` (the
        restorer's ``placeholders``: the vault's ``u:`` as the turn began, and what the turn
        placed since) only those are candidates, and the vault forgets the ones the kept
        texts no longer use, touching their fields only: the work of what is dropped, not of
        the vault. When none is to go (and ``u:`` is short), Redis is not asked. Without
        ``dropped`` the whole vault is checked (a deleted or edited message).

        Raises:
            StoreError: the vault could not be read or written.
        """
        if dropped is None:
            return await self._vault.retain(thread_id, _used(kept, self._ref_types))
        candidates = _used(dropped, self._ref_types) | set(placed)
        if not candidates:
            return 0
        drop = candidates - _used(kept, self._ref_types)
        if not drop and len(placed) <= UNSETTLED_MAX:
            return 0  # all in use: ``u:`` waits for a retention that drops something
        # ``placed`` holds ``u:`` as the turn peeked it and all the turn added: it is settled
        return await self._vault.forget(thread_id, drop, settle=True)

    def _may_hold(self, text: str) -> bool:
        """Whether the output scan could find anything in ``text`` (else it is skipped).

        Every identifier it looks for has a digit, an ``@``, ``/`` or ``%`` or a spelled
        "at"/"dot"; deny-list terms and extra recognizers of the policy can be anything.
        """
        return bool(self._policy.deny or self._policy.recognizers or _MAY_HOLD.search(text))

    async def _detect(
        self,
        text: str,
        platform: Platform,
        *,
        prose: bool = True,
        policy: PolicyOverride | None = None,
    ) -> list[Detection]:
        """The detections of ``detect``; any failure is ``GuardrailError`` and marks us down.

        ``prose=False``: the pattern-only scan of model output (no NLP model). ``policy``: a
        scope's changes to the policy, applied by the detection worker.
        """
        try:
            found = await self._detector.detect(text, platform, prose=prose, policy=policy)
        except GuardrailError:
            self._working = False
            raise
        self._working = True
        return found

    async def _link_known(
        self, tid: ThreadId, text: str, spans: list[Detection]
    ) -> list[Detection]:
        """Add what this thread knows: its values in any case or accent, and its people's words.

        "Jane" after "Jane Doe", "jose muller" after "José Müller"; looked up in the vault by
        the HMACs of the message's word runs (``RedisVault.lookup``), never by reading it. A
        known value or person also takes over a name-model span it covers whole, whatever type
        the model gave it ("Jane" read as a place keeps Jane Doe's placeholder). Only words
        outside markup and outside validated findings are looked up. A long message is cut
        into word runs, and its findings merged, in a worker thread.
        """
        long = len(text) > LINK_OFF_LOOP_CHARS
        words = functools.partial(self._lookup_words, text, spans)
        grams, tokens = await asyncio.to_thread(words) if long else words()
        values, owners = await self._vault.lookup(
            tid, [text[a:b] for a, b in grams], [t[2] for t in tokens]
        )
        merge = functools.partial(self._merge_known, text, spans, grams, tokens, values, owners)
        return await asyncio.to_thread(merge) if long else merge()

    def _lookup_words(
        self, text: str, spans: list[Detection]
    ) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
        """The word runs to look up as known values, and the name tokens to look up."""
        blocked = _Blocked(text, [(s.start, s.end) for s in spans if s.type not in NAME_TYPES])
        grams = [g for g in value_grams(text) if not blocked(*g)]
        tokens = []
        if "PERSON" in self._policy.enabled:
            tokens = [t for t in name_tokens(text) if not blocked(t[0], t[1])]
        return grams, tokens

    def _merge_known(
        self,
        text: str,
        spans: list[Detection],
        grams: list[tuple[int, int]],
        tokens: list[tuple[int, int, str]],
        values: list[str | None],
        owners: list[str | None],
    ) -> list[Detection]:
        """The detections with the known values and people the lookups found."""
        known = [
            Detection(placeholder_type(ph), a, b, KNOWN_VALUE)
            for (a, b), ph in zip(grams, values, strict=True)
            if ph is not None and placeholder_type(ph) in self._policy.enabled
        ]
        known += [
            Detection("PERSON", a, b, KNOWN_NAME, tuple(dict.fromkeys(parts)))
            for a, b, _, parts in known_name_spans(text, tokens, owners)
        ]
        named = [s for s in spans if s.type in NAME_TYPES]
        known = [k for k in known if not any(_cuts_into(k, n) for n in named)]
        return resolve_overlaps([*spans, *known]) if known else spans

    async def _redact(
        self,
        tid: ThreadId,
        text: str,
        spans: list[Detection],
        placed: dict[str, tuple[str, str]] | None = None,
        printed: str | None = None,
    ) -> Redaction:
        """Swap each span for its vault placeholder (``placed``: each new one with its value).

        ``printed``: OCR'd text as printed, whose spans are the values (OCR's slips mended).
        """
        if not spans:
            return Redaction(text=text)
        values = [(s.type, _value(text, s, printed), s.parts) for s in spans]
        # Each value's folded identity costs ~30 us: hundreds (a long pasted log) would hold
        # the event loop, and every other event's ack, for tens of ms in one stretch.
        many = len(values) > OFF_LOOP_VALUES
        entries = await asyncio.to_thread(_entries, values) if many else _entries(values)
        issued = await self._vault.place(tid, entries)
        placeholders = [p.placeholder for p in issued]
        pieces: list[str] = []
        position = 0
        for (_, value, _), span, (placeholder, new) in zip(values, spans, issued, strict=True):
            pieces += [text[position : span.start], placeholder]
            position = span.end
            if placed is not None and new:  # a known one restores to its first value
                placed.setdefault(placeholder, (placeholder_type(placeholder), value))
        pieces.append(text[position:])
        entities = tuple(EntityRef(placeholder_type(p), p) for p in placeholders)
        where = tuple((s.start, s.end) for s in spans)
        return Redaction(text="".join(pieces), entities=entities, spans=where)


_PLAIN = re.compile(r"<[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)*_[1-9]\d{0,5}>")
"""A canonical placeholder the grammar reads back as itself wherever it is written."""


_NUMBERED = re.compile(r"_\d")
"""Every placeholder form the grammar reads has one (``_1``, ``\\_1``); a canonical one, one."""


async def _as_printed(text: str) -> str:
    """OCR'd text as printed (``rules.ocr``); a long one in a worker thread."""
    if len(text) > LINK_OFF_LOOP_CHARS:
        return await asyncio.to_thread(as_printed, text)
    return as_printed(text)


def _value(text: str, span: Detection, printed: str | None) -> str:
    """A span's value; of OCR'd text, as ``printed`` has it, less the characters OCR added."""
    if printed is None:
        return text[span.start : span.end]
    return printed[span.start : span.end].replace(GAP, "")


def _entries(values: Sequence[tuple[str, str, tuple[str, ...] | None]]) -> list[VaultEntry]:
    """The vault entries of ``(type, value, parts)``, with their identities and name parts.

    Parts the detector judged (``Detection.parts``) are kept; otherwise the value's words.
    """
    return [
        VaultEntry(t, v, identity(t, v), name_parts(t, v) if parts is None else parts)
        for t, v, parts in values
    ]


def _used(texts: Sequence[str], types: Collection[str]) -> set[str]:
    """The canonical placeholders the texts refer to, in any form the grammar reads.

    Each turn asks this of its thread's whole kept history; each text is read once while it
    is in use (``_refs``), so an old thread's turn reads only what it added.
    """
    known = frozenset(types)
    used: set[str] = set()
    for text in texts:
        used.update(_refs(text, known) if len(text) <= _CACHED_CHARS else _read_refs(text, known))
    return used


_CACHED_CHARS = 4096
"""Texts up to this long are remembered by ``_refs``: at most ~8 MB of placeholder text."""


@functools.lru_cache(maxsize=2048)
def _refs(text: str, types: frozenset[str]) -> frozenset[str]:
    return _read_refs(text, types)


def _read_refs(text: str, types: frozenset[str]) -> frozenset[str]:
    """The placeholders of one text (see ``_used``).

    A text whose every ``_<digit>`` belongs to a canonical placeholder (``_PLAIN``) holds no
    other form, and the grammar would read those back as themselves: a plain pattern says
    what it uses. Only a text with another form (an answer that wrote ``[PERSON_1]``) is read
    with the tolerant grammar.
    """
    plain = _PLAIN.findall(text)
    if len(_NUMBERED.findall(text)) > len(plain):
        return frozenset([*plain, *(canonical(m) for m in find_placeholders(text, types))])
    return frozenset(plain)


def _mask(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """The text with each range blanked out, keeping every offset."""
    chars = list(text)
    for start, end in ranges:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    score: float = 1.0


def _inside(typed: Detection, span: Detection) -> bool:
    """Whether a typed placeholder lies within a larger detected value."""
    within = span.start <= typed.start and typed.end <= span.end
    return within and (span.start, span.end) != (typed.start, typed.end)


def _overlaps(span: Detection, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(span.start < end and start < span.end for start, end in ranges)


def _start(span: Detection) -> int:
    return span.start


class _Blocked:
    """Whether a word span of a text is in ``<...>`` markup or overlaps a validated finding.

    Each answer is two binary searches: a long message has thousands of word runs and of
    findings, and testing every run against every finding (and scanning back for a ``<``)
    held the event loop for some 200 ms at 40 000 characters.
    """

    def __init__(self, text: str, fixed: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(fixed):
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]
        self._opens = [m.start() for m in re.finditer("<", text)]
        self._closes = [m.start() for m in re.finditer(">", text)] if self._opens else []

    def __call__(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` is blocked."""
        if self._opens and _last_before(self._opens, start) > _last_before(self._closes, start):
            return True  # an opening ``<`` before it is not closed yet
        first = bisect.bisect_right(self._ends, start)  # the first finding ending after start
        return first < len(self._starts) and self._starts[first] < end


def _last_before(positions: list[int], position: int) -> int:
    """The last of the sorted ``positions`` before ``position``; -1 when none is."""
    index = bisect.bisect_left(positions, position)
    return positions[index - 1] if index else -1


def _cuts_into(known: Detection, named: Detection) -> bool:
    """Whether ``known`` overlaps a name span without covering it (it would expose the rest)."""
    overlap = known.start < named.end and named.start < known.end
    return overlap and not (known.start <= named.start and named.end <= known.end)
