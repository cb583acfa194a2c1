"""Peer repositories read at run time from local checkouts; nothing of them is kept in ours.

``--peers DIR`` (or ``VEILBOT_EVAL_PEERS``) names a folder holding one checkout per peer, named
as in ``PEERS``: a normal clone or a bare repository both work (a bare one is read at HEAD).
A folder of mirrored snapshots, one bare ``owner+name/repo`` per repository, works as well.
docs/guardrail.md ("Rerun") gives the ``git clone`` commands. A peer that is missing is
reported and skipped.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

PEERS = {
    "presidio": "https://github.com/microsoft/presidio",
    "presidio-research": "https://github.com/microsoft/presidio-research",
    "llm-guard": "https://github.com/protectai/llm-guard",
    "scrubadub": "https://github.com/LeapBeyond/scrubadub",
    "detect-secrets": "https://github.com/Yelp/detect-secrets",
    "piighost": "https://github.com/Athroniaeth/piighost",
    "broad_twitter_corpus": "https://github.com/GateNLP/broad_twitter_corpus",
    "twitter_nlp": "https://github.com/aritter/twitter_nlp",
}
"""Checkout folder name -> the repository it is a clone of."""

ENV = "VEILBOT_EVAL_PEERS"


class PeerMissing(LookupError):
    """The checkout a source needs is not in the peers folder."""


@dataclass(frozen=True)
class Checkout:
    """One peer repository on disk (a work tree or a bare repository)."""

    name: str
    root: Path

    def _git(self, *args: str) -> str:
        result = subprocess.run(  # noqa: S603 - fixed git arguments, local repository
            ["git", "-C", str(self.root), *args],  # noqa: S607
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout

    @property
    def bare(self) -> bool:
        """Whether this is a bare repository (no work tree: files are read at HEAD)."""
        return self._git("rev-parse", "--is-bare-repository").strip() == "true"

    def commit(self) -> str:
        """The commit the files are read from (HEAD)."""
        return self._git("rev-parse", "HEAD").strip()

    def read(self, path: str) -> str:
        """A file's text (UTF-8)."""
        if not self.bare:
            return (self.root / path).read_text(encoding="utf-8")
        return self._git("show", f"HEAD:{path}")

    def read_at(self, commit: str, path: str) -> str:
        """A file's text at ``commit``, in a clone or a bare repository.

        Raises:
            PeerMissing: the commit (or the file in it) is not in this checkout.
        """
        try:
            return self._git("show", f"{commit}:{path}")
        except subprocess.CalledProcessError as exc:
            hint = f"git -C {self.root} fetch origin {commit}"
            raise PeerMissing(f"{self.name}: {path} at {commit[:12]} missing: {hint}") from exc

    def files(self, folder: str) -> list[str]:
        """Paths of the files directly in ``folder``, sorted."""
        if not self.bare:
            return sorted(
                str(p.relative_to(self.root)) for p in (self.root / folder).iterdir() if p.is_file()
            )
        listing = self._git("ls-tree", "--name-only", "HEAD", f"{folder.rstrip('/')}/")
        return sorted(listing.split())


def peers_dir(option: str | None) -> Path | None:
    """The peers folder from ``--peers`` or the environment, if either is set."""
    value = option or os.environ.get(ENV)
    return Path(value).expanduser() if value else None


def checkout(root: Path | None, name: str) -> Checkout:
    """The checkout ``name`` in the peers folder.

    Raises:
        PeerMissing: no peers folder, or no such checkout in it.
    """
    if root is None:
        raise PeerMissing(f"no peers folder: pass --peers DIR or set {ENV}")
    path = root / name
    if not path.exists():
        path = _mirrored(root, name)
    if not path.exists():
        raise PeerMissing(f"{root / name} missing: git clone {PEERS[name]} {root / name}")
    return Checkout(name, path)


def _mirrored(root: Path, name: str) -> Path:
    """Where a mirror of snapshots (``owner+name/repo``, bare) keeps the peer."""
    owner, repo = PEERS[name].removeprefix("https://github.com/").split("/")
    return root / f"{owner}+{repo}" / "repo"
