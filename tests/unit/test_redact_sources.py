"""Which files ``veilbot redact FILE...`` reads and where each one's output goes."""

from __future__ import annotations

from pathlib import Path

from bot.cli.redact_files import _sources


def files(tmp_path: Path, *names: str) -> list[Path]:
    made = []
    for name in names:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
        made.append(path)
    return made


def pairs(paths: list[Path], out: Path | None, *, several: bool) -> list[tuple[str, str | None]]:
    return [
        (s.path.name, str(s.out) if s.out else None) for s in _sources(paths, out, several=several)
    ]


def test_a_folder_is_read_whole_less_hidden_files_and_the_output_folder(tmp_path: Path) -> None:
    files(tmp_path, "in/a.csv", "in/sub/b.docx", "in/.secret.txt", "in/.git/c.txt", "in/out/x.csv")
    out = tmp_path / "in" / "out"
    assert pairs([tmp_path / "in"], out, several=True) == [
        ("a.csv", str(out / "a.csv")),
        ("b.docx", str(out / "sub" / "b.docx")),
    ]


def test_several_folders_keep_their_names_and_equal_names_do_not_collide(tmp_path: Path) -> None:
    one, two = files(tmp_path, "a/notes.txt", "b/notes.txt")
    out = tmp_path / "out"
    assert pairs([one, two], out, several=True) == [
        ("notes.txt", str(out / "notes.txt")),
        ("notes.txt", str(out / "notes-2.txt")),
    ]
    assert pairs([tmp_path / "a", tmp_path / "b"], out, several=True) == [
        ("notes.txt", str(out / "a" / "notes.txt")),
        ("notes.txt", str(out / "b" / "notes.txt")),
    ]


def test_one_file_goes_to_out_or_into_it_when_it_is_a_folder(tmp_path: Path) -> None:
    (source,) = files(tmp_path, "contract.docx")
    target = tmp_path / "redacted.docx"
    assert pairs([source], target, several=False) == [("contract.docx", str(target))]
    assert pairs([source], tmp_path / "missing", several=False)[0][1] == str(tmp_path / "missing")
    folder = tmp_path / "done"
    folder.mkdir()
    assert pairs([source], folder, several=False) == [
        ("contract.docx", str(folder / "contract.docx"))
    ]
    assert pairs([source], None, several=False) == [("contract.docx", None)]
