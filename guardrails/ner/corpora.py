"""The human-labelled corpora the entity model learns from and is measured on, pinned.

Each ``Corpus`` names its repository and the commit its files are read at, its licence, its
own train / dev / test parts (a corpus's test part is never trained on, nor tuned on), and how
its tags become the model's labels (``PERSON``, ``LOC``, ``ORG``, or missing annotation).

Files come from a sources folder (``Store``): a clone or bare mirror of the repository
(``owner+name/repo`` or ``owner+name``, read at the pinned commit with ``git show``) or a copy
of the file (``owner+name/<commit>/<path>``); a file found in neither is downloaded from
GitHub at the pinned commit into that copy. Nothing of the corpora is kept in this repository.

Left out on purpose: WNUT 2017's training tweets are WNUT 2016's tweets labelled again (its
test half included), and its dev and test files are held out by others to measure veilbot.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from guardrails.ner import readers
from guardrails.ner.readers import MISSING, Sentence

SPLITS = ("train", "dev", "test")


class CorpusMissing(LookupError):
    """A corpus file is not in the sources folder and could not be downloaded."""


@dataclass(frozen=True)
class Store:
    """The sources folder corpus files are read from (and downloaded into)."""

    root: Path
    download: bool = True

    def read(self, repo: str, commit: str, path: str, encoding: str = "utf-8") -> str:
        """The text of ``path`` at ``commit`` of ``repo`` (``owner/name``), in ``encoding``.

        Raises:
            CorpusMissing: not in the folder, and not downloadable (or ``download`` is off).
        """
        folder = self.root / repo.replace("/", "+")
        for checkout in (folder / "repo", folder):
            if (checkout / "HEAD").exists() or (checkout / ".git").exists():
                shown = subprocess.run(  # noqa: S603 - fixed git arguments, local repository
                    ["git", "-C", str(checkout), "show", f"{commit}:{path}"],  # noqa: S607
                    capture_output=True,
                    check=False,
                )
                if shown.returncode == 0:
                    return shown.stdout.decode(encoding)
        copy = folder / commit / path
        if not copy.exists():
            self._fetch(repo, commit, path, copy)
        return copy.read_text(encoding=encoding)

    def _fetch(self, repo: str, commit: str, path: str, copy: Path) -> None:
        url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
        if not self.download:
            raise CorpusMissing(f"{copy} missing (from {url})")
        try:
            with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 - https
                data = response.read()
        except OSError as exc:
            raise CorpusMissing(f"could not download {url}: {exc}") from exc
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(data)


Read = Callable[[Store, str], Iterator[Sentence]]
"""Sentences of one split of a corpus."""


@dataclass(frozen=True)
class Corpus:
    """A pinned corpus: where it is, under what licence, and how to read each split."""

    name: str
    repo: str
    commit: str
    licence: str
    about: str
    splits: tuple[str, ...]
    read: Read
    language: str = "en"

    def sentences(self, store: Store, split: str) -> Iterator[Sentence]:
        """The labelled sentences of one of this corpus's splits (none if it has no such)."""
        return self.read(store, split) if split in self.splits else iter(())


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pinned(
    store: Store, corpus: str, repo: str, commit: str, path: str, sha: str, encoding: str = "utf-8"
) -> str:
    """A file's text, checked against the digest its text had when the corpus was pinned."""
    text = store.read(repo, commit, path, encoding)
    if _digest(text) != sha:
        raise CorpusMissing(f"{corpus}: {path} at {commit[:12]} is not the pinned file")
    return text


# The tweet corpora: handles are account names, which the guardrail hides on its own; the BTC
# labels some of them as people and WNUT 2016 none, so in training they are missing.
_HANDLE = re.compile(r"@\w+")


def _tweets(sentence: Sentence) -> Sentence:
    """A tweet with every ``@handle`` (and any entity over one) as missing annotation."""
    handles = [m.span() for m in _HANDLE.finditer(sentence.text)]
    if not handles:
        return sentence
    spans = tuple(s for s in sentence.spans if not any(a < s[1] and s[0] < b for a, b in handles))
    return replace(sentence, spans=spans, missing=tuple(sorted({*sentence.missing, *handles})))


BTC_REPO, BTC_COMMIT = "GateNLP/broad_twitter_corpus", "0c45ef7b1924a6b8115bceab388781590b1b553a"
BTC_FILES = {
    "a": "ac824cc13c88283fe3cca05343e46c79ec4cd5b174429f27bf8fe0ebdc1bbf33",
    "b": "504a094a0398e03fd7b394510e313b8fc844407102252182d90aea23f53cc322",
    "e": "77aca745cdc28ae0fafbcf36a93ccfd15357a8db97c21d91083592dd85e348c5",
    "f": "3bd2387dfc98ebc9d8b77d8b9c59826262e9beadce71ce8edde272821b9c87c8",
    "g": "d53a27645cabc4e63313d573498b48b0cc5ed780d280edfbdc4fedefe23479da",
    "h": "7f31215a79f3131526236203907c8d003b8e0f8ee6eef2a216ebb685340ebe39",
}
BTC_LABELS = {"PER": "PERSON", "LOC": "LOC", "ORG": "ORG"}


def btc_split(section: str, index: int) -> str:
    """The split of a BTC tweet, as the corpus recommends: F is test, H's second half dev."""
    if section == "f":
        return "test"
    return "dev" if section == "h" and index >= 1000 else "train"


def _btc(store: Store, split: str) -> Iterator[Sentence]:
    for section, sha in BTC_FILES.items():
        text = _pinned(store, "btc", BTC_REPO, BTC_COMMIT, f"{section}.conll", sha)
        for index, sentence in enumerate(readers.bio(text, BTC_LABELS, f"btc:{section}")):
            if btc_split(section, index) == split:
                yield _tweets(sentence)


WNUT16_REPO = "aritter/twitter_nlp"
WNUT16_COMMIT = "65f3d77134c40d920db8d431c5c6faef1c051c94"
WNUT16_FILES = {
    "train": "5ec9db29c87fbf424860688fff08a485f6112137b930bb4799288399db9e153d",
    "dev": "d555eff2d24f05b032a17d892dda766f8e4dc0436404c17f4c1c6841472928fd",
    "test": "4d96d1908d4fdda27f3738bfb83d26e9b9e0996e22d8e0788de7c11c25af6896",
}
WNUT16_LABELS = {
    "person": "PERSON",
    "geo-loc": "LOC",
    "company": "ORG",
    "sportsteam": "ORG",
    "facility": MISSING,  # venues, shops, stations: places to some, organizations to others
    "musicartist": MISSING,  # a singer or a band
}


def _wnut16(store: Store, split: str) -> Iterator[Sentence]:
    path = f"data/annotated/wnut16/data/{split}"
    text = _pinned(store, "wnut16", WNUT16_REPO, WNUT16_COMMIT, path, WNUT16_FILES[split])
    for sentence in readers.bio(text, WNUT16_LABELS, f"wnut16:{split}"):
        yield _tweets(sentence)


TWEEBANK_REPO = "mit-ccc/TweebankNLP"
TWEEBANK_COMMIT = "442697870da961db2b3c5a9442ca17beb5fdbfd9"
TWEEBANK_FILES = {
    "train": "d5928a7e2af0abb0b7a0e035481094aad1bad5ad87df9694109a78efa21df425",
    "dev": "bb6629ee2e753b4e179852150d6f9429fd9d41fab37731dbf68c71b2919a539b",
    "test": "418fa8e75b3d875ec71dbb65098f93c1f865db92b7a02aaea2d265ffdfe66e9e",
}
CONLL_LABELS = {"PER": "PERSON", "LOC": "LOC", "ORG": "ORG"}


def _tweebank(store: Store, split: str) -> Iterator[Sentence]:
    path = f"Tweebank-NER-v1.0/{split}.bio"
    sha = TWEEBANK_FILES[split]
    text = _pinned(store, "tweebank", TWEEBANK_REPO, TWEEBANK_COMMIT, path, sha)
    for sentence in readers.bio(text, CONLL_LABELS, f"tweebank:{split}"):
        yield _tweets(sentence)


UNER_REPO = "UniversalNER/UNER_English-EWT"
UNER_COMMIT = "8ed072de2fd24022cc62458997fe96a8fe191ea4"
UNER_FILES = {
    "dev": "0cafd881cf31d39897b6d588420fab8fbbe4423d271725c59921ac9dd49c0713",
    "test": "821ad826d5f503ac03b4edc3fbc2174f21fbb005ec25863caf2051c434616d6e",
}


def _uner(name: str, repo: str, commit: str, treebank: str, files: dict[str, str]) -> Read:
    """A Universal NER treebank's ``<treebank>-ud-<split>.iob2`` files, each pinned by SHA-256."""

    def read(store: Store, split: str) -> Iterator[Sentence]:
        path = f"{treebank}-ud-{split}.iob2"
        text = _pinned(store, name, repo, commit, path, files[split])
        return readers.bio(text, CONLL_LABELS, f"{name}:{split}")

    return read


GUM_REPO, GUM_COMMIT = "amir-zeldes/gum", "72ce5ac14978a324c2fd18d49484e65292cbe316"


def gum_documents(store: Store, split: str) -> list[str]:
    """The documents of a GUM split from its ``splits.md`` (GENTLE's are ``test2``)."""
    listing = store.read(GUM_REPO, GUM_COMMIT, "splits.md")
    heading, documents = "", dict[str, list[str]]()
    for line in listing.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        elif line.strip().startswith("* ") and heading:
            documents.setdefault(heading, []).append(line.strip()[2:].strip())
    return documents.get(split, [])


def _gum_split(store: Store, split: str, listed: str, name: str) -> Iterator[Sentence]:
    for document in gum_documents(store, listed):
        text = store.read(GUM_REPO, GUM_COMMIT, f"dep/{document}.conllu")
        for sentence in readers.gum(text, document):
            yield replace(sentence, id=f"{name}:{sentence.id}")


def _gum(store: Store, split: str) -> Iterator[Sentence]:
    return _gum_split(store, split, split, "gum")


def _gentle(store: Store, split: str) -> Iterator[Sentence]:
    return _gum_split(store, split, "test2", "gentle")


CONLL02_REPO = "YaxinCui/conll"
CONLL02_COMMIT = "0e6f90354523a663ddaca3253f8072d885142075"
CONLL02_FILES = {
    ("es", "train"): (
        "esp.train",
        "a20d95cab7d88a19a86f8c1ad6329325c99fbd9529ed978cbd7e31d4b01b4008",
    ),
    ("es", "dev"): (
        "esp.testa",
        "85c17793b77881c53d19017d9d0f1e6fb98b7ddcab54a5f24b05ed1793103c87",
    ),
    ("es", "test"): (
        "esp.testb",
        "1f8f7a392c6d4979a5592a5794eed43d7869b46da6851bbcde99714149f1d016",
    ),
    ("nl", "train"): (
        "ned.train",
        "0a419dcb356b62c8cff38515675550b3d5dbea9f45a1c4956328dbd5cc7fcdbc",
    ),
    ("nl", "dev"): (
        "ned.testa",
        "51259d4bfe52462f211d3d0b67173a7ecbfa296e199f6c6bd0895f4c78155057",
    ),
    ("nl", "test"): (
        "ned.testb",
        "8a694e3b1bd809e8ed4b3fe9f4949aaaee04df9ee019f20cf06635112adf50db",
    ),
}
"""CoNLL-2002: ``testa`` is the shared task's development part, ``testb`` its test part."""
CONLL02_LABELS = {"PER": "PERSON", "LOC": "LOC", "ORG": "ORG", "MISC": MISSING}
"""MISC (events, works, nationalities) is neither reward nor penalty, as elsewhere."""


def _conll02(language: str) -> Read:
    def read(store: Store, split: str) -> Iterator[Sentence]:
        path, sha = CONLL02_FILES[(language, split)]
        name = f"conll02-{language}"
        text = _pinned(store, name, CONLL02_REPO, CONLL02_COMMIT, path, sha)
        return readers.bio(text, CONLL02_LABELS, f"{name}:{split}")

    return read


UNER_PT_REPO = "UniversalNER/UNER_Portuguese-Bosque"
UNER_PT_COMMIT = "f2c2ad67aed900385fbe5d655af41f439c9b3333"
UNER_PT_FILES = {
    "train": "1d8762040667fc15f4ec83801e20d14d10ebea2b90c16c312f3ba03da2d1f860",
    "dev": "0e6cb1db280e6677e2fd4380d695039791b5cb70bb5100376166aae5690da01a",
    "test": "45cf232ff7677cb6f4020dad96dbf8412d1f2cca38d81164ac96ee8c03b6b09f",
}


WIKINEURAL_REPO = "Babelscape/wikineural"
WIKINEURAL_COMMIT = "d2e28c770cba2b285e742529ae18ed849e336c65"
CONLL03_DE_TRAIN = (
    "data/conll/de/train.conllu",
    "4c8801ef7e77c97de802d7e9826b4281014e8bee8dbe5c851c1487b333c16ad4",
)
"""CoNLL-2003 German's training part as WikiNEuRal's repository carries it."""
_CONLL03_DE_LETTERS = str.maketrans(
    {
        "ь": "ü", "д": "ä", "ц": "ö", "я": "ß", "№": "Ü", "ƒ": "Ä", "÷": "Ö",
        "й": "é", "и": "è", "б": "á", "у": "ó", "т": "ò", "к": "ê", "з": "ç", "м": "ì",
    }
)  # fmt: skip
"""That copy's Latin-1 letters were decoded in Cyrillic code pages (``Erzдhlung``); each
stands for one letter, so the text is put back letter by letter."""
CONLL03_DE_ORIGINAL_REPO = "MaviccPRP/ger_ner_evals"
CONLL03_DE_ORIGINAL_COMMIT = "f6e99318379a6a3bb6dfeb53079a5c3abbc1d5f2"
CONLL03_DE_ORIGINAL_FILES = {
    "dev": (
        "corpora/conll2003/deu.testa",
        "84360f5306c8e6e7092502562bf346b417c8e4328e239b5a5577905383e3c714",
    ),
    "test": (
        "corpora/conll2003/deu.testb",
        "f86ddb439cbb6b7139baa0a7a1253c4f7761efaa56d195dd2d31a68ee3becbc4",
    ),
}
"""The shared task's development (``testa``) and test (``testb``) files as it built them, in
Latin-1: WikiNEuRal's copies of these two parts have the same tokens and tags but lost every
letter outside ASCII (``Mller``, ``Grnen Weg``), which no German writer types."""


def _indexed_bio(text: str) -> str:
    """An ``index<TAB>token<TAB>tag`` file as ``token<TAB>tag`` lines."""
    lines = []
    for line in text.splitlines():
        parts = line.split("\t")
        lines.append("\t".join(parts[1:]) if len(parts) == 3 and parts[0].isdigit() else line)
    return "\n".join(lines)


def _conll03_de(store: Store, split: str) -> Iterator[Sentence]:
    if split == "train":
        path, sha = CONLL03_DE_TRAIN
        text = _pinned(store, "conll03-de", WIKINEURAL_REPO, WIKINEURAL_COMMIT, path, sha)
        text = _indexed_bio(text).translate(_CONLL03_DE_LETTERS)
    else:
        path, sha = CONLL03_DE_ORIGINAL_FILES[split]
        repo, commit = CONLL03_DE_ORIGINAL_REPO, CONLL03_DE_ORIGINAL_COMMIT
        text = _pinned(store, "conll03-de", repo, commit, path, sha, encoding="latin-1")
    return readers.bio(text, CONLL02_LABELS, f"conll03-de:{split}")


GERMEVAL_REPO = "viniciusrpb/cloud_image_classification"
GERMEVAL_COMMIT = "48fd5685a974f4e6fb457e178ebceb2862605545"
GERMEVAL_FILES = {
    "train": ("NER-de-dev.tsv", "2ffe8405acc6bb6111b62a88623aa1e1f2e6db16b77fc005c54163541807aa05"),
    "test": ("NER-de-test.tsv", "ec6e6adce5ed71cee119ae758e569ea4be54c6be5319b3b49dfcdcb05e51301b"),
}
"""GermEval 2014's development and test files (Benikova et al. 2014), as a public repository
carries them; its training file is not there. The development file is this corpus's training
part, which the shipped German model does not learn from (``docs/guardrail.md`` says why)."""
GERMEVAL_LABELS = {
    "PER": "PERSON",
    "LOC": "LOC",
    "ORG": "ORG",
    **{kind: MISSING for kind in ("OTH", "PERderiv", "LOCderiv", "ORGderiv", "OTHderiv",
                                  "PERpart", "LOCpart", "ORGpart", "OTHpart")},
}  # fmt: skip
"""GermEval's outer level: people, places and organizations; other names, words derived from
a name ("deutsche") and words with a name in them ("Europapokal") are neither reward nor
penalty."""


def _germeval(store: Store, split: str) -> Iterator[Sentence]:
    path, sha = GERMEVAL_FILES[split]
    text = _pinned(store, "germeval-de", GERMEVAL_REPO, GERMEVAL_COMMIT, path, sha)
    lines = []  # "index<TAB>token<TAB>outer<TAB>inner", a "#" line before each sentence
    for line in text.splitlines():
        parts = line.split("\t")
        if not line.startswith("#"):
            lines.append("\t".join(parts[1:3]) if len(parts) == 4 else line)
    return readers.bio("\n".join(lines), GERMEVAL_LABELS, f"germeval-de:{split}")


UNER_DE_REPO = "UniversalNER/UNER_German-PUD"
UNER_DE_COMMIT = "47eb039b6d80079b280ba70efe4136413fb7af9c"
UNER_DE_FILES = {"test": "352c09251cf1c376d2786261813041c976c1aa7ce9bcf78388a4342a30bd00d4"}


WIKINEURAL_FILES = {
    ("de", "val"): "061e57750c6a93d95f43bb85d9010cfdcb64c1e1c7dcac76ee7a9bddf0dfc3ab",
    ("de", "test"): "b1c57d8825bee42c707f0f804b41557ffc475f031ce5a0f25cd13c5a1604bf0d",
    ("it", "val"): "344b95fab0a6ee56a68034a8333ec6162cbcfdb20e67a696c2e18c67855672ce",
    ("it", "test"): "7c178c31602b865d03aba50b9d097e66fd1b95f71766e9ad0947d4f0b906f600",
    ("pl", "val"): "2bfbca18dc501faabdce00d5860978d87dc81d3bbe71e0fdfe709479536982b1",
    ("pl", "test"): "261b9562c761fe188e0faeb35577022a06989c4d8409881b4690545379516699",
    ("fr", "val"): "0a75e421dd2e48940632d90f1a1899c814e4f7c85f5914f6dee28a20205f0b5f",
    ("fr", "test"): "61fc4f72dc356f10776e2b9be193d4d2cf216ffb198ad919a25f40b2f0db8485",
}
"""WikiNEuRal's validation and test files (its training files are too large for the mirror)."""
WIKINEURAL_DEV_SHARE = 0.2
"""The validation file's last fifth is the dev part, the rest the training part (its sentences
come in no article order, so one article's may fall on both sides: the dev figures choose the
best epoch only; the test file is the measure)."""


def _wikineural(language: str) -> Read:
    def read(store: Store, split: str) -> Iterator[Sentence]:
        name = f"wikineural-{language}"
        source = "test" if split == "test" else "val"
        path, sha = (
            f"data/wikineural/{language}/{source}.conllu",
            WIKINEURAL_FILES[(language, source)],
        )
        text = _pinned(store, name, WIKINEURAL_REPO, WIKINEURAL_COMMIT, path, sha)
        found = list(readers.bio(_indexed_bio(text), CONLL02_LABELS, f"{name}:{source}"))
        if split == "test":
            return iter(found)
        cut = round(len(found) * (1 - WIKINEURAL_DEV_SHARE))
        return iter(found[:cut] if split == "train" else found[cut:])

    return read


WIKIANN_FILES = {
    ("de", "train"): "5d255b69593f3a1de645e72b7e9fdb8566138cbf72a65cf989f2d3d6369e2fc0",
}
"""WikiANN's German training part as WikiNEuRal's repository carries it: a training source only
(the model is chosen on CoNLL-2003's and WikiNEuRal's dev parts, as before)."""


def _wikiann(language: str) -> Read:
    def read(store: Store, split: str) -> Iterator[Sentence]:
        name = f"wikiann-{language}"
        path = f"data/wikiann/{language}/{split}.conllu"
        sha = WIKIANN_FILES[(language, split)]
        text = _pinned(store, name, WIKINEURAL_REPO, WIKINEURAL_COMMIT, path, sha)
        return readers.bio(_indexed_bio(text), CONLL02_LABELS, f"{name}:{split}")

    return read


WIKIGOLD_FILE = (
    "data/wikigold/en/test.conllu",
    "27ba977ee7a788fa11efcbc0590c17292aa3ca5e6126974651d4a68dfa7e9d78",
)
"""WikiGold (Balasuriya et al. 2009): 145 English Wikipedia articles labelled by hand, one file."""
_DOCSTART = re.compile(r"^\d+\t-DOCSTART-\t\S+$", re.MULTILINE)


def _wikigold(store: Store, split: str) -> Iterator[Sentence]:
    """Its articles in file order, each to the part with fewer sentences so far (dev first).

    The file has no split of its own: this gives two halves of about one size, each with
    articles from all through the file. Sentence ids name the article's index.
    """
    path, sha = WIKIGOLD_FILE
    text = _pinned(store, "wikigold", WIKINEURAL_REPO, WIKINEURAL_COMMIT, path, sha)
    sizes = {"dev": 0, "test": 0}
    for index, article in enumerate(_DOCSTART.split(text)):
        found = list(readers.bio(_indexed_bio(article), CONLL02_LABELS, f"wikigold:{index}"))
        part = "dev" if sizes["dev"] <= sizes["test"] else "test"
        sizes[part] += len(found)
        if part == split:
            yield from found


CORPORA: tuple[Corpus, ...] = (
    Corpus(
        "btc",
        BTC_REPO,
        BTC_COMMIT,
        "CC BY 4.0",
        "Broad Twitter Corpus: 9 551 tweets, 2009-2014, UK, global and news; experts and crowd",
        SPLITS,
        _btc,
    ),
    Corpus(
        "wnut16",
        WNUT16_REPO,
        WNUT16_COMMIT,
        "GPL-3.0 (repository)",
        "WNUT 2016 Twitter NER shared task: 7 244 tweets, 10 types",
        SPLITS,
        _wnut16,
    ),
    Corpus(
        "tweebank",
        TWEEBANK_REPO,
        TWEEBANK_COMMIT,
        "Apache-2.0 (repository); tweets under Twitter's terms",
        "Tweebank-NER v1.0: 3 547 tweets of Tweebank v2, PER/LOC/ORG/MISC",
        ("dev", "test"),
        _tweebank,
    ),
    Corpus(
        "gum",
        GUM_REPO,
        GUM_COMMIT,
        "annotations CC BY 4.0; texts CC BY / BY-SA / BY-NC-SA by genre",
        "GUM: conversations, interviews, vlogs, court, letters, speeches, how-tos, travel, news",
        SPLITS,
        _gum,
    ),
    Corpus(
        "gentle",
        GUM_REPO,
        GUM_COMMIT,
        "annotations CC BY 4.0; texts by source",
        "GENTLE (GUM's test2): medical notes, legal, threats, e-sports, syllabi, dictionary",
        ("test",),
        _gentle,
    ),
    Corpus(
        "wikigold",
        WIKINEURAL_REPO,
        WIKINEURAL_COMMIT,
        "CC BY 4.0 (its authors' release with WikiNER); Wikipedia text CC BY-SA",
        "WikiGold: 145 English Wikipedia articles of 2008, hand-labelled PER/LOC/ORG/MISC",
        ("dev", "test"),
        _wikigold,
    ),
    Corpus(
        "uner-ewt",
        UNER_REPO,
        UNER_COMMIT,
        "CC BY-SA 4.0",
        "Universal NER on the English Web Treebank: reviews, e-mails, answers, blogs",
        ("dev", "test"),
        _uner("uner-ewt", UNER_REPO, UNER_COMMIT, "en_ewt", UNER_FILES),
    ),
)
CORPORA += (
    Corpus(
        "conll02-es",
        CONLL02_REPO,
        CONLL02_COMMIT,
        "CoNLL-2002 shared task data (EFE newswire, 2000), distributed for research; "
        "the repository states no licence",
        "CoNLL-2002 Spanish: EFE newswire, PER/LOC/ORG/MISC",
        SPLITS,
        _conll02("es"),
        "es",
    ),
    Corpus(
        "conll02-nl",
        CONLL02_REPO,
        CONLL02_COMMIT,
        "CoNLL-2002 shared task data (De Morgen, 2000), distributed for research; "
        "the repository states no licence",
        "CoNLL-2002 Dutch: De Morgen newspaper articles, PER/LOC/ORG/MISC",
        SPLITS,
        _conll02("nl"),
        "nl",
    ),
    Corpus(
        "uner-pt",
        UNER_PT_REPO,
        UNER_PT_COMMIT,
        "CC BY-SA 4.0",
        "Universal NER on UD Portuguese-Bosque: Brazilian and European news (CETEMPublico, "
        "CETENFolha)",
        SPLITS,
        _uner("uner-pt", UNER_PT_REPO, UNER_PT_COMMIT, "pt_bosque", UNER_PT_FILES),
        "pt",
    ),
    Corpus(
        "conll03-de",
        WIKINEURAL_REPO,
        WIKINEURAL_COMMIT,
        "CoNLL-2003 shared task data (Frankfurter Rundschau, 1992, of the ECI Multilingual "
        "Text corpus), distributed for research; the repository is CC BY-NC-SA 4.0",
        "CoNLL-2003 German: Frankfurter Rundschau articles, PER/LOC/ORG/MISC",
        SPLITS,
        _conll03_de,
        "de",
    ),
    Corpus(
        "uner-de",
        UNER_DE_REPO,
        UNER_DE_COMMIT,
        "CC BY-SA 3.0",
        "Universal NER on UD German-PUD: 1 000 sentences of news and Wikipedia, translated",
        ("test",),
        _uner("uner-de", UNER_DE_REPO, UNER_DE_COMMIT, "de_pud", UNER_DE_FILES),
        "de",
    ),
    *(
        Corpus(
            f"wikineural-{language}",
            WIKINEURAL_REPO,
            WIKINEURAL_COMMIT,
            "CC BY-NC-SA 4.0 (Wikipedia text CC BY-SA)",
            f"WikiNEuRal {name}: Wikipedia sentences labelled by a model with knowledge-base "
            "links (silver: no person checked each label), PER/LOC/ORG/MISC",
            SPLITS,
            _wikineural(language),
            language,
        )
        for language, name in (("de", "German"), ("it", "Italian"), ("pl", "Polish"))
    ),
    Corpus(
        "germeval-de",
        GERMEVAL_REPO,
        GERMEVAL_COMMIT,
        "CC BY 4.0",
        "GermEval 2014: German Wikipedia and news sentences, hand-labelled, PER/LOC/ORG/OTH",
        ("train", "test"),
        _germeval,
        "de",
    ),
    Corpus(
        "wikiann-de",
        WIKINEURAL_REPO,
        WIKINEURAL_COMMIT,
        "CC BY-NC-SA 4.0 as the repository carries it (Wikipedia text CC BY-SA)",
        "WikiANN German: Wikipedia sentences and titles labelled from their links (silver: "
        "no person checked each label), PER/LOC/ORG",
        ("train",),
        _wikiann("de"),
        "de",
    ),
    Corpus(
        "wikineural-fr",
        WIKINEURAL_REPO,
        WIKINEURAL_COMMIT,
        "CC BY-NC-SA 4.0 (Wikipedia text CC BY-SA)",
        "WikiNEuRal French (silver, as above): measures the official French model, whose "
        "choices are tuned on the validation file's last fifth",
        ("dev", "test"),
        _wikineural("fr"),
        "fr",
    ),
)
BY_NAME = {c.name: c for c in CORPORA}
TRAINING = ("btc", "wnut16", "gum")
"""The corpora whose training parts the English model learns from."""
TRAINING_BY_LANGUAGE = {
    "en": TRAINING,
    "es": ("conll02-es",),
    "nl": ("conll02-nl",),
    "pt": ("uner-pt",),
    "de": ("conll03-de", "wikineural-de", "wikiann-de"),
    "it": ("wikineural-it",),
    "pl": ("wikineural-pl",),
}
"""The corpora each language's model learns from (``build --language``)."""
