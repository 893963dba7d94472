"""A folder of three notes a person keeps, as the tests of missing, moved and renamed folders index it, and the
command line run in-process (the tiny bi-encoder set by the `tiny_cli` fixture of tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from searchapp.cli.main import main

NOTES = {
    "orthodontist.txt": "Second visit: orthodontist consultation on 14 March at nine in the morning.",
    "sourdough.md": "# Sourdough\n\nFeed the starter with rye flour the evening before baking bread.",
    "volcano.txt": "Basaltic lava flows from shield volcanoes spread slowly over many kilometres.",
}


def make_notes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
