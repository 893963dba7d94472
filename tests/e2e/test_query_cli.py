"""Issue 22 from the command line: the query syntax through `searchapp search`, --literal, the parser's notes on
stderr and in --json, operator-only queries listed newest first, and the syntax table in docs/cli.md."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.main import main

REPO = Path(__file__).resolve().parents[2]
TEXTS = {
    "volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
    "draft.txt": "A draft report on volcano safety for the island council.",
    "bread.md": "A recipe for sourdough bread with a long cold proof.",
    "notes.md": "Meeting notes: the volcano tour is booked for spring.",
}


BOTH_ENGINES = True  # each test on the data dir's library and on a shared one named in its config (conftest.py)


@pytest.fixture
def lib_dir(tmp_path, tiny_bi_encoder_dir, tiny_encoder, engine_address) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n',
                              address=engine_address)


def search_json(capsys, data: Path, *args: str) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["search", *args, "--json", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def names(res: dict) -> list[str]:
    return [Path(h["path"]).name for h in res["hits"]]


def test_exclusion_holds_and_literal_turns_parsing_off(capsys, lib_dir):
    parsed, _ = search_json(capsys, lib_dir, "volcano -draft", "--mode", "lexical")
    assert "draft.txt" not in names(parsed) and "volcano.txt" in names(parsed)
    literal, _ = search_json(capsys, lib_dir, "volcano -draft", "--mode", "lexical", "--literal")
    assert "draft.txt" in names(literal)  # "-draft" is just the word draft now
    phrase, _ = search_json(capsys, lib_dir, '"molten rock"', "--mode", "lexical")
    assert names(phrase) == ["volcano.txt"]
    assert "timings" in phrase and phrase["timings"]["filter"]["query"]["required"] == ['"molten rock"']


def test_parser_notes_go_to_stderr_and_json(capsys, lib_dir):
    res, err = search_json(capsys, lib_dir, "foo:bar volcano", "--mode", "lexical")
    assert res["query_warnings"] == ["unknown field foo: searched as words"]
    assert "searchapp: note: unknown field foo: searched as words\n" in err
    assert res["hits"]  # searched as words, never an error
    plain, err = search_json(capsys, lib_dir, "volcano", "--mode", "lexical")
    assert plain["query_warnings"] == [] and "note: unknown" not in err
    literal, err = search_json(capsys, lib_dir, "foo:bar volcano", "--mode", "lexical", "--literal")
    assert literal["query_warnings"] == [] and "unknown field" not in err


def test_a_note_quoting_the_query_is_escaped(capsys, lib_dir):
    capsys.readouterr()
    assert main(["search", "volcano type:\x1b[2J", "--mode", "lexical", "--data-dir", str(lib_dir)]) == 0
    err = capsys.readouterr().err
    note = [line for line in err.splitlines() if "type:" in line]
    assert note and note[0].startswith("searchapp: note: type:\\e[2J") and "\x1b" not in err


def test_operator_only_query_lists_newest_first(capsys, lib_dir, tiny_encoder):
    docs = lib_dir.parent / "docs"
    for i, name in enumerate(["notes.md", "volcano.txt", "draft.txt", "bread.md"]):  # bread newest
        os.utime(docs / name, (1_700_000_000 + i * 1000,) * 2)
    capsys.readouterr()
    assert main(["index", "--data-dir", str(lib_dir)]) == 0
    res, err = search_json(capsys, lib_dir, "type:md", "--mode", "lexical")
    assert names(res) == ["bread.md", "notes.md"]
    assert "no words to rank by: newest matching first" in err
    everything, _ = search_json(capsys, lib_dir, "-recipe after:2023-11-14")  # hybrid: no model needed either
    assert names(everything) == ["draft.txt", "volcano.txt", "notes.md"]
    capsys.readouterr()
    assert main(["search", "type:md", "--data-dir", str(lib_dir)]) == 0
    out = capsys.readouterr().out
    assert re.findall(r"^ ?\d+\. .*?(\w+\.md)$", out, re.M) == ["bread.md", "notes.md"]
    assert "similarity" not in out  # a listing has no scores to show


def test_stdin_queries_with_syntax(capsys, lib_dir, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("volcano -draft\nfoo:bar\n-the\n\"\"\n"))
    capsys.readouterr()
    assert main(["search", "-", "--json", "--mode", "lexical", "--data-dir", str(lib_dir)]) == 0
    out = capsys.readouterr()
    rows = [json.loads(line) for line in out.out.splitlines()]
    assert len(rows) == 4
    assert rows[0]["hits"] and "draft.txt" not in names(rows[0])
    assert rows[1]["query_warnings"] == ["unknown field foo: searched as words"]
    assert "searchapp: line 2: note: unknown field foo" in out.err
    # "-the" has syntax: it lists (newest first) every file without "the", instead of "only common words"
    assert rows[2].get("notice") is None and names(rows[2]) == ["bread.md"]
    assert rows[3]["notice"] == "empty query" and rows[3]["query_warnings"] == ['empty phrase "": ignored']


def test_subprocess_search_and_history(lib_dir):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = lambda *a: subprocess.run([sys.executable, "-m", "searchapp", *a, "--data-dir", str(lib_dir)],  # noqa: E731
                                    capture_output=True, text=True, env=env, timeout=300)
    p = run("search", 'name:bread "cold proof" OR nothing', "--mode", "lexical")
    assert p.returncode == 0, p.stderr
    assert "bread.md" in p.stdout and "volcano.txt" not in p.stdout
    p = run("search", 'sea "unclosed', "--mode", "lexical")
    assert p.returncode == 0 and "searchapp: note: unbalanced quote: searched as words" in p.stderr
    p = run("history", "list")
    assert p.returncode == 0 and p.stdout.splitlines() == ['sea "unclosed', 'name:bread "cold proof" OR nothing']


def test_cli_guide_has_the_syntax_table():
    from searchapp.library.query.help import SYNTAX_ROWS
    from searchapp.library.query.syntax import FIELDS

    guide = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = guide.split("## Query syntax", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert len(table) >= len(SYNTAX_ROWS) + 2
    for field in FIELDS:
        assert f"`{field}:" in section, field
    for form in ('`"exact phrase"`', "`-word`", "`OR`", "`word*`", "`#tag`", "--literal"):
        assert form in section, form
    for decision in ("file", "stem", "malformed"):
        assert decision in section.lower(), decision
