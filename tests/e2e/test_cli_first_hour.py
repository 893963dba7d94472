"""Issue 39, the command line's first hour: `remove` asks and can be undone, `explain` of a path the library does not
hold is an error, `similar` shows the query file's passage once per change, `duplicates` names members as search
shows them. The command asked about runs in a subprocess (`remove` with and without a terminal); what only reads the
outcome (`remove --yes` too: nothing is asked) runs the same command line in-process (a Python start each was most of these tests' CPU)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import build_tiny_library
from searchapp.base.config import load_config
from searchapp.library import Library

TEXTS = {
    "volcano.md": "The volcano erupted and molten rock flowed down to the sea.",
    "bread.txt": "A recipe for sourdough bread with a long cold proof.",
    "tax.txt": "The tax return for 2024 is due in April; keep the receipts.",
}


def cli(data: Path, *argv: str, stdin=subprocess.DEVNULL, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), *argv], stdin=stdin,
                          capture_output=True, text=True, timeout=300, **kw)


def on_terminal(data: Path, answer: str, *argv: str) -> subprocess.CompletedProcess:
    """The command with a terminal for standard input (a pty), `answer` typed on it."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, answer.encode())
        return cli(data, *argv, stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)


def in_process(capsys, data: Path, *argv: str) -> tuple[int, str, str]:
    """The same command line run in this process: (exit code, stdout, stderr)."""
    from searchapp.cli.main import main

    capsys.readouterr()
    code = main(["--data-dir", str(data), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def lexical_hits(capsys, data: Path, query: str) -> list[str]:
    code, out, err = in_process(capsys, data, "search", query, "--mode", "lexical", "--json")
    assert code == 0, err
    return [Path(h["path"]).name for h in json.loads(out)["hits"]]


def test_remove_asks_on_a_terminal_needs_yes_in_a_script_and_undo_puts_it_back(tmp_path, tiny_bi_encoder_dir,
                                                                                  tiny_encoder, capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    docs = str(tmp_path / "docs")
    script = cli(data, "remove", docs)  # no terminal, no --yes: refused, nothing removed
    assert script.returncode == 2 and "--yes" in script.stderr and script.stderr.count("\n") == 1, script.stderr
    no = on_terminal(data, "n\n", "remove", docs)
    assert no.returncode == 1 and "[y/N]" in no.stderr and "nothing removed" in no.stderr, no.stderr
    assert lexical_hits(capsys, data, "sourdough") == ["bread.txt"]
    yes = on_terminal(data, "y\n", "remove", docs)
    assert yes.returncode == 0 and "removed" in yes.stdout and "searchapp undo" in yes.stdout, yes.stderr
    assert lexical_hits(capsys, data, "sourdough") == []
    code, out, err = in_process(capsys, data, "undo")
    assert code == 0 and "put back" in out and "(3 files)" in out, err
    assert lexical_hits(capsys, data, "sourdough") == ["bread.txt"]
    code, out, err = in_process(capsys, data, "status", "--json")
    status = json.loads(out)
    assert status["consistent"] and status["vectors"] == status["chunks"] > 0  # the vectors came back too
    code, out, err = in_process(capsys, data, "undo")
    assert code == 1 and "nothing to undo" in err, err
    assert in_process(capsys, data, "remove", "--yes", docs)[0] == 0  # a script says --yes
    assert lexical_hits(capsys, data, "sourdough") == []


def test_a_remove_that_cannot_keep_its_undo_still_removes_and_says_so(tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                                      capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    (data / "undo-remove.sqlite.part").mkdir()  # where the kept rows are written first: not writable as a file
    code, out, err = in_process(capsys, data, "remove", "--yes", str(tmp_path / "docs"))  # --yes: nothing asked
    assert code == 0 and "removed" in out and "searchapp undo` puts" not in out, err
    assert "cannot keep it for `searchapp undo`" in err and "Traceback" not in err, err
    assert lexical_hits(capsys, data, "sourdough") == []
    assert in_process(capsys, data, "undo")[0] == 1


def test_explain_of_a_path_the_library_does_not_hold_is_an_error(tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                                 capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    for argv in (("explain", "/nonexistent"), ("explain", "/nonexistent", "--json"),
                 ("explain", str(tmp_path / "docs" / "gone.txt"))):
        code, out, err = in_process(capsys, data, *argv)  # an exception would end the test: no Traceback printed
        assert code == 1, (argv, out, err)
        assert "is not in the library" in err and "Traceback" not in err, err
    code, out, err = in_process(capsys, data, "explain", str(tmp_path / "docs" / "bread.txt"))
    assert code == 0 and "state: indexed" in out, err


def test_similar_shows_the_query_files_passage_once_while_it_is_the_same(tmp_path, tiny_bi_encoder_dir,
                                                                          tiny_encoder, capsys):
    texts = {f"lava{i}.txt": f"Lava flowed from the volcano crater number {i} into the valley." for i in range(4)}
    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    code, out, err = in_process(capsys, data, "similar", str(tmp_path / "docs" / "lava0.txt"))
    assert code == 0, err
    assert out.count("that:") == 3  # every hit shows its own passage
    assert out.count("this:") == 1, out  # the one-passage source: shown once, not per hit


def test_duplicates_names_members_as_search_shows_them(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    same = "Minutes of the board meeting: the annual budget was approved after a long debate."
    data = build_tiny_library(tmp_path, {"minutes.txt": same, "other.txt": "Something else entirely."},
                              tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    with zipfile.ZipFile(tmp_path / "docs" / "archive.zip", "w") as z:
        z.writestr("old/minutes-copy.txt", same + "\n")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        assert lib.sync().added == 2  # the archive and its member
    code, out, err = in_process(capsys, data, "duplicates")
    assert code == 0, err
    assert "archive.zip › old/minutes-copy.txt" in out, out
    assert "archive.zip//" not in out


def test_dense_and_similar_on_a_words_only_library_say_why_they_find_nothing(tmp_path, capsys):
    """A newcomer's words-only library: dense mode's note claimed "the rest are found by their words", then found
    nothing; Similar said only "no similar files"."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text)
    data = tmp_path / "library"
    code, out, err = in_process(capsys, data, "index", "--words-only", str(docs))
    assert code == 0, err
    code, out, err = in_process(capsys, data, "search", "volcano", "--mode", "dense")
    assert code == 0 and "dense mode finds only those" in err and "found by their words" not in err, err
    code, out, err = in_process(capsys, data, "similar", str(docs / "volcano.md"))
    assert code == 0, err
    # no other note shares its words (found by words while meaning fills, decision 0159): neither side finds one
    assert out.startswith("no similar files yet: no other file shares this one's distinctive words"), out
    assert "meaning, which is 0% done" in out, out


def test_index_of_several_paths_counts_what_is_left_to_embed_once(tmp_path, capsys):
    """`index --words-only` of 6 paths said "80 in the library still to embed" where `status` said 17: the
    library's count after each path was added up."""
    paths = []
    for i, (name, text) in enumerate(TEXTS.items()):
        folder = tmp_path / f"docs{i}"
        folder.mkdir()
        (folder / name).write_text(text)
        paths.append(str(folder))
    assert len(paths) >= 3
    data = tmp_path / "library"
    code, out, err = in_process(capsys, data, "index", "--words-only", *paths)
    assert code == 0, err
    code, status, err = in_process(capsys, data, "status", "--json")
    left = json.loads(status)
    pending = left["meaning"]["total"] - left["meaning"]["embedded"]
    assert pending > 0 and f"; {pending} in the library still to embed" in out, (out, status)


def test_duplicates_on_a_words_only_library_says_near_ones_need_meaning(tmp_path, capsys):
    """A words-only library printed its exact copies and was silent about near duplicates, which only meaning
    finds; `similar` already said so."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in TEXTS.items():
        (docs / name).write_text(text)
    (docs / "copy.md").write_text(next(iter(TEXTS.values())))
    data = tmp_path / "library"
    assert in_process(capsys, data, "index", "--words-only", str(docs))[0] == 0
    code, out, err = in_process(capsys, data, "duplicates")
    assert code == 0, err
    assert out.startswith("near duplicates: only files with meaning are compared, and meaning is 0% done"), out
    assert "exact copies (1 group)" in out
    code, out, err = in_process(capsys, data, "duplicates", "--json")
    assert json.loads(out)["meaning_percent"] == 0
