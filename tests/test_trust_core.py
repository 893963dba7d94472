"""Issue 18 (trust, round 2), the library and CLI side: escape-laden names through every human output, a root
replaced by a file / FIFO / empty file, a model that produces NaN, overflowing dates and pages, a malformed
model folder for the NumPy query encoder, and searches during a reindex."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import build_tiny_library
from searchapp.base.config import load_config
from searchapp.base.errors import ConfigError, ModelLoadError
from searchapp.cli.main import main
from searchapp.library import Library

# What a terminal obeys: C0 controls except the newline and tab the CLI itself writes, DEL, C1 (0x9b is CSI).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE = "evil\x1b[31mred\x1b]0;title\x07\rback\x9bcsi"

TEXTS = {
    "orthodontist.txt": "Second visit: orthodontist consultation on 14 March at nine in the morning.",
    "sourdough.md": "Feed the sourdough starter with rye flour the evening before baking bread.",
    "volcano.txt": "Basaltic lava flows from shield volcanoes spread slowly over many kilometres.",
}


def _no_raw_control(text: str, where: str) -> None:
    bad = RAW_CONTROL.findall(text)
    assert not bad, f"raw control characters {bad!r} reached {where}: {text!r}"


# -- 4. terminal escapes ---------------------------------------------------------------------------------
@pytest.fixture
def hostile_library(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """A library whose files (a copy, a near copy) are named with escape sequences, as is its config file."""
    texts = dict(TEXTS)
    texts[f"{HOSTILE}.txt"] = TEXTS["volcano.txt"]  # an exact copy: `duplicates` names it
    texts[f"{HOSTILE}-2.txt"] = TEXTS["volcano.txt"] + " Mostly."  # a near copy
    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')
    config = tmp_path / f"conf{HOSTILE}.toml"
    shutil.copy(data / "config.toml", config)
    return data, config, tmp_path / "docs"


def test_escape_laden_names_never_reach_the_terminal_raw(hostile_library, capsys):
    data, config, docs = hostile_library
    hostile = str(docs / f"{HOSTILE}.txt")
    runs = [
        ["search", "basaltic lava volcanoes", "--mode", "lexical"],
        ["search", "basaltic lava volcanoes", "--mode", "dense"],
        ["similar", hostile],
        ["duplicates"],
        ["status"],
        ["config"],
        ["similar", str(docs / f"{HOSTILE}-missing.txt")],  # an error line naming the file
        ["remove", str(docs / HOSTILE)],  # an error line naming a folder inside a root
        ["models", "list"],
    ]
    seen = ""
    for argv in runs:
        code = main(["--data-dir", str(data), "--config", str(config), *argv])
        out, err = capsys.readouterr()
        _no_raw_control(out, f"stdout of {argv[0]}")
        _no_raw_control(err, f"stderr of {argv[0]}")
        assert code in (0, 2), (argv, code, err)
        seen += out + err
    assert "evil\\e[31mred" in seen  # shown, escaped, not dropped
    assert "\\x9bcsi" in seen


def test_config_output_stays_valid_toml_with_an_escape_laden_config_path(hostile_library, capsys):
    import tomllib

    data, config, _ = hostile_library
    (data / "config.toml").unlink()
    config.write_text('[search]\nk = 7\n', encoding="utf-8")
    assert main(["--data-dir", str(data), "--config", str(config), "config"]) == 0
    out = capsys.readouterr().out
    _no_raw_control(out, "config")
    assert tomllib.loads(out)["search"]["k"] == 7


# -- 5. a root replaced by something that is not a folder ------------------------------------------------
def _replace_with_fifo(p: Path) -> None:
    os.mkfifo(p)


def _replace_with_file(p: Path) -> None:
    p.write_text(TEXTS["volcano.txt"], encoding="utf-8")


def _replace_with_empty_file(p: Path) -> None:
    p.write_bytes(b"")


@pytest.mark.parametrize("replace", [_replace_with_file, _replace_with_fifo, _replace_with_empty_file],
                         ids=["file", "fifo", "empty-file"])
def test_root_replaced_by_a_non_folder_is_missing_and_keeps_its_index(tiny_library, tmp_path, replace):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in TEXTS.items():
        (notes / name).write_text(text, encoding="utf-8")
    assert tiny_library.add_folder(notes).added == 3
    chunks = tiny_library.store.chunk_count()

    shutil.rmtree(notes)
    replace(notes)
    rep = tiny_library.sync()
    assert [p for p, _ in rep.missing_roots] == [str(notes)]
    assert rep.removed == 0 and rep.chunks_removed == 0
    assert tiny_library.store.chunk_count() == chunks and len(tiny_library.index()) == chunks
    [root] = tiny_library.status().roots
    assert root.missing and root.files == 3
    assert tiny_library.search("orthodontist consultation", mode="lexical").hits
    with pytest.raises(Exception, match="cannot be read"):
        tiny_library.reindex()  # would drop every passage of it


def test_a_single_file_root_is_still_synced(tiny_library, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text(TEXTS["volcano.txt"], encoding="utf-8")
    assert tiny_library.add_folder(one).added == 1
    one.write_text(TEXTS["sourdough.md"], encoding="utf-8")
    rep = tiny_library.sync()
    assert not rep.missing_roots and rep.updated == 1
