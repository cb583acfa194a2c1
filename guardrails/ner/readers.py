"""Labelled sentences out of the formats the NER corpora come in (pure: text in, sentences out).

A ``Sentence`` is a text with its entity spans (character offsets, label ``PERSON``, ``LOC``
or ``ORG``) and the spans whose annotation is *missing*: the corpus labels something there that
is neither plainly a person, a place nor an organization (a band, a facility), so the model is
neither rewarded nor punished for what it says about them.

- ``bio``: one token and its BIO tag a line, blank lines between sentences (the tweet corpora,
  Universal NER's ``.iob2`` with its ``# text =`` line); the text is rebuilt from the tokens
  when the file does not give it.
- ``gum``: CoNLL-U with CorefUD ``Entity=`` annotations (GUM and GENTLE): a mention of a person,
  place or organization whose head is a proper noun is a named entity, trimmed to its proper
  nouns; other proper nouns inside such mentions are missing, not negative.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

Span = tuple[int, int, str]
"""``(start, end, label)`` in a sentence's text, end exclusive."""


@dataclass(frozen=True)
class Sentence:
    """One labelled sentence: its text, entity spans and spans of missing annotation."""

    id: str
    text: str
    spans: tuple[Span, ...]
    missing: tuple[tuple[int, int], ...] = ()


MISSING = "-"
"""The label of a source tag whose annotation counts as missing."""

_NO_SPACE_BEFORE = {",", ".", "!", "?", ":", ";", "%", ")", "]", "...", "'s", "'S", "n't", "'m"}
_NO_SPACE_BEFORE |= {"'re", "'ll", "'ve", "'d"}
_NO_SPACE_AFTER = {"(", "[", "@", "#", "$"}


def detokenize(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The text of the tokens and each token's span in it.

    One space between tokens, except before closing punctuation and clitics, after an opening
    bracket and between ``@``/``#`` and the handle after it.
    """
    text, spans = "", []
    for index, token in enumerate(tokens):
        glued = index == 0 or token in _NO_SPACE_BEFORE or tokens[index - 1] in _NO_SPACE_AFTER
        text += token if glued else f" {token}"
        spans.append((len(text) - len(token), len(text)))
    return text, spans


def entities(tags: list[str]) -> Iterator[tuple[str, int, int]]:
    """``(type, first token, last token + 1)`` of each BIO entity (a stray ``I-`` opens one)."""
    start, kind = None, ""
    for index, tag in enumerate([*tags, "O"]):
        prefix, _, name = tag.partition("-")
        if start is not None and (prefix != "I" or name != kind):
            yield kind, start, index
            start = None
        if prefix in ("B", "I") and start is None:
            start, kind = index, name


@dataclass(frozen=True)
class Tagged:
    """One sentence of a BIO file: tokens, tags, and the text the file gives (if any)."""

    tokens: list[str]
    tags: list[str]
    text: str | None
    id: str | None


def tagged(content: str) -> Iterator[Tagged]:
    """The tagged sentences of a BIO file: tab or space columns, the tag last.

    Universal NER's files put the token in the second column after an index and carry
    ``# text =`` and ``# sent_id =`` lines; plain CoNLL files have the token first.
    ``-DOCSTART-`` lines are skipped.
    """
    tokens: list[str] = []
    tags: list[str] = []
    comments: dict[str, str] = {}
    for line in [*content.splitlines(), ""]:
        if line.startswith("# "):
            key, _, value = line[2:].partition(" = ")
            comments[key.strip()] = value
            continue
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) < 2 or parts[0] == "-DOCSTART-":
            if tokens:
                yield Tagged(tokens, tags, comments.get("text"), comments.get("sent_id"))
            tokens, tags, comments = [], [], {}
            continue
        indexed = parts[0].isdigit() and len(parts) >= 3 and "text" in comments
        tokens.append(parts[1] if indexed else parts[0])
        tags.append(parts[2] if indexed else parts[-1])


def bio(content: str, labels: Mapping[str, str], prefix: str) -> Iterator[Sentence]:
    """Sentences of a BIO file, source tags mapped by ``labels`` (unlisted tags are outside).

    ``labels`` maps a source tag to ``PERSON``, ``LOC``, ``ORG`` or ``MISSING``.
    """
    for index, item in enumerate(tagged(content)):
        text, offsets = _text(item)
        if text is None:
            continue
        spans: list[Span] = []
        missing: list[tuple[int, int]] = []
        for kind, first, last in entities(item.tags):
            label = labels.get(kind)
            start, end = offsets[first][0], offsets[last - 1][1]
            if label == MISSING:
                missing.append((start, end))
            elif label is not None:
                spans.append((start, end, label))
        yield Sentence(item.id or f"{prefix}:{index}", text, tuple(spans), tuple(missing))


def _text(item: Tagged) -> tuple[str | None, list[tuple[int, int]]]:
    """The sentence's text and each token's span: the file's own text where it has one."""
    if item.text is None:
        return detokenize(item.tokens)
    offsets = _aligned(item.text, item.tokens)
    return (item.text, offsets) if offsets is not None else (None, [])


GUM_TYPES = {"person": "PERSON", "place": "LOC", "organization": "ORG"}
"""GUM entity types that are named entities when their head is a proper noun."""

_ENTITY = re.compile(r"\(([^()]*)\)?|(\d+)\)")


@dataclass
class _Mention:
    kind: str
    first: int
    heads: tuple[int, ...]
    last: int = -1


@dataclass(frozen=True)
class _Token:
    form: str
    upos: str
    xpos: str
    misc: str


def gum(content: str, document: str) -> Iterator[Sentence]:
    """Sentences of a GUM/GENTLE CoNLL-U document with named people, places, organizations.

    A document whose words are withheld (GUM's Reddit texts: underscores) gives nothing.
    """
    for index, (text, tokens) in enumerate(_conllu(content)):
        if any(set(t.form) == {"_"} for t in tokens):
            return
        sentence = _gum_sentence(f"{document}:{index}", text, tokens)
        if sentence is not None:
            yield sentence


def _conllu(content: str) -> Iterator[tuple[str, list[_Token]]]:
    """Each sentence's ``# text =`` and its words (multi-word token ranges left out)."""
    tokens: list[_Token] = []
    text = ""
    for line in [*content.splitlines(), ""]:
        if not line.strip():
            if tokens:
                yield text, tokens
            tokens, text = [], ""
            continue
        if line.startswith("# text = "):
            text = line[len("# text = ") :]
        cols = line.split("\t")
        if line.startswith("#") or len(cols) < 10 or not cols[0].isdigit():
            continue  # comments, multi-word token ranges and empty nodes
        tokens.append(_Token(cols[1], cols[3], cols[4], cols[9]))


def _gum_sentence(sentence_id: str, text: str, tokens: list[_Token]) -> Sentence | None:
    offsets = _aligned(text, [t.form for t in tokens])
    if offsets is None:
        return None
    mentions = _mentions(tokens)
    spans, named = _named(tokens, mentions, offsets)
    missing = [
        offsets[i]
        for i, token in enumerate(tokens)
        if token.upos == "PROPN" and i not in named and _in_typed(i, mentions)
    ]
    plain = [s for s in spans if _name_like(text[s[0] : s[1]], s[2])]
    missing += [(s[0], s[1]) for s in spans if s not in plain]  # "d(ə)ˈvɔːrʒɑːk", "President"
    return Sentence(sentence_id, text, tuple(plain), tuple(sorted(missing)))


_NAME_TEXT = re.compile(r"[^\W\d_][\w.'’&\- ]*")
_TITLES = frozenset(
    "president god secretary petitioner respondent plaintiff defendant appellant devil queen "
    "king pope lord lady sir madam emperor prince princess senator governor mayor judge justice "
    "doctor professor chairman captain general father mother saint ta american street".split()
)
"""Words GUM gives a person's proper-noun head that name a role, not a person ("the Queen")."""


def _name_like(value: str, label: str) -> bool:
    """Whether a named mention reads as a name: letters first, no role word alone."""
    return bool(_NAME_TEXT.fullmatch(value)) and not (
        label == "PERSON" and value.casefold() in _TITLES
    )


def _aligned(text: str, forms: list[str]) -> list[tuple[int, int]] | None:
    """Each word's span in the text, found in order; ``None`` if the words do not spell it."""
    offsets, position = [], 0
    for form in forms:
        start = text.find(form, position)
        if start < 0:
            return None
        offsets.append((start, start + len(form)))
        position = start + len(form)
    return offsets


def _mentions(tokens: list[_Token]) -> list[_Mention]:
    """Every mention of the sentence with its first and last token and head tokens."""
    open_: dict[str, list[_Mention]] = {}
    done: list[_Mention] = []
    for index, token in enumerate(tokens):
        entity = next((f[7:] for f in token.misc.split("|") if f.startswith("Entity=")), "")
        for match in _ENTITY.finditer(entity):
            if match.group(2) is not None:  # "12)": a mention closes here
                stack = open_.get(match.group(2))
                if stack:
                    mention = stack.pop()
                    mention.last = index
                    done.append(mention)
                continue
            fields = match.group(1).split("-")
            if len(fields) <= 5:
                continue
            heads = tuple(int(h) - 1 for h in fields[5].split(",") if h.isdigit())
            mention = _Mention(fields[1], index, heads)
            if match.group(0).endswith(")"):
                mention.last = index
                done.append(mention)
            else:
                open_.setdefault(fields[0], []).append(mention)
    return done


def _named(
    tokens: list[_Token], mentions: list[_Mention], offsets: list[tuple[int, int]]
) -> tuple[list[Span], set[int]]:
    """Named mentions as spans (longest first where they overlap), and the tokens they cover."""
    candidates = []
    for m in mentions:
        label = GUM_TYPES.get(m.kind)
        heads = [m.first + h for h in m.heads if m.first + h <= m.last]
        proper = [h for h in heads if tokens[h].upos == "PROPN"]
        if label is None or not proper:
            continue
        if label == "PERSON" and all(tokens[h].xpos == "NNPS" for h in proper):
            continue  # "the Americans", "the Smiths": groups, not a person
        candidates.append((*_name_run(tokens, m, min(proper), max(proper)), label))
    spans: list[Span] = []
    named: set[int] = set()
    for first, last, label in sorted(candidates, key=lambda c: c[0] - c[1]):
        if not named & set(range(first, last + 1)):
            spans.append((offsets[first][0], offsets[last][1], label))
            named |= set(range(first, last + 1))
    return sorted(spans), named


def _name_run(tokens: list[_Token], m: _Mention, first: int, last: int) -> tuple[int, int]:
    """The proper nouns around a mention's head, with "of", "the", "&", "-" between them."""

    def proper(i: int) -> bool:
        return m.first <= i <= m.last and tokens[i].upos == "PROPN"

    def joins(i: int) -> bool:
        return tokens[i].upos in ("ADP", "DET") or tokens[i].form in ("&", "-")

    while first - 1 >= m.first and (proper(first - 1) or joins(first - 1) and proper(first - 2)):
        first -= 1 if proper(first - 1) else 2
    while last + 1 <= m.last and (proper(last + 1) or joins(last + 1) and proper(last + 2)):
        last += 1 if proper(last + 1) else 2
    return first, last


def _in_typed(index: int, mentions: list[_Mention]) -> bool:
    """Whether the innermost mention around a token is of a person, place or organization."""
    around = [m for m in mentions if m.first <= index <= m.last]
    if not around:
        return False
    innermost = min(around, key=lambda m: m.last - m.first)
    return innermost.kind in GUM_TYPES


Reader = Callable[[str, str], Iterator[Sentence]]
"""A reader: a file's content and an id prefix in, sentences out."""
