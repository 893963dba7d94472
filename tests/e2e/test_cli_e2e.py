"""End to end through the command line with the real packaged MiniLM: a folder of txt, md, html, pdf,
docx, odt and epub files is indexed, and the right file must rank first in every mode."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import corpus
from searchapp.cli.main import main


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def indexed_with_report(tmp_path_factory):
    """One indexed library shared by the read-only tests of this module, with what `index --json` printed
    (one index run for both: indexing the corpus with MiniLM is most of this module's time)."""
    root = tmp_path_factory.mktemp("e2e")
    docs = corpus.make_mixed_corpus(root / "docs")
    data = root / "library"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--data-dir", str(data), "index", str(docs), "--json"])
    return docs, data, code, out.getvalue()


@pytest.fixture(scope="module")
def indexed(indexed_with_report):
    docs, data, code, out = indexed_with_report
    assert code == 0, out
    return docs, data


def test_index_reports_counts(indexed_with_report):
    docs, data, code, out = indexed_with_report
    assert code == 0, out
    rep = json.loads(out)
    assert rep["added"] == 7 and rep["failed"] == 0
    assert rep["chunks_added"] >= 7
    # Hidden and VCS folders were never entered.
    assert not any(".git" in p["path"] or "node_modules" in p["path"] for p in rep["problems"])


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_semantic_queries_rank_expected_file_first(indexed, capsys, mode):
    docs, data = indexed
    for query, expected, page in corpus.SEMANTIC_QUERIES:
        code, out, err = run_cli(capsys, "--data-dir", str(data), "search", query, "--mode", mode, "--json", "--k", "3")
        assert code == 0, err
        res = json.loads(out)
        top = res["hits"][0]
        assert Path(top["path"]).name == expected, (query, [Path(h["path"]).name for h in res["hits"]])
        if page is not None:
            assert top["page"] == page, query


def test_lexical_queries_rank_expected_file_first(indexed, capsys):
    docs, data = indexed
    for query, expected, _page in corpus.LEXICAL_QUERIES:
        code, out, err = run_cli(capsys, "--data-dir", str(data), "search", query, "--mode", "lexical", "--json")
        assert code == 0, err
        res = json.loads(out)
        assert Path(res["hits"][0]["path"]).name == expected, query
        assert res["hits"][0]["scores"]["dense"] is None  # lexical mode never ran the bi-encoder
        assert res["hits"][0]["ranks"]["lexical"] == 1


def test_json_shape_and_missing_reranker_notice(indexed, capsys):
    docs, data = indexed
    code, out, err = run_cli(capsys, "--data-dir", str(data), "search", "magma", "--json")
    assert code == 0
    res = json.loads(out)
    # group: added by results by file; query_warnings: by the query syntax, [] for a plain query
    # served_by: "direct" here (nothing serves this library), "warm" when `searchapp watch` or the window answered
    assert set(res) == {"query", "mode", "reranked", "hits", "group", "reading", "query_warnings", "served_by"}
    assert res["query_warnings"] == []
    assert res["mode"] == "hybrid" and res["reranked"] is False
    hit = res["hits"][0]
    assert set(hit) == {"path", "page", "start", "end", "text", "scores", "ranks", "available",
                        "repeats", "score", "score_label", "more",  # these four: added by results by file
                        "container", "member", "key",  # members of archives/mail (null for a file)
                        "ocr",  # whether the text came from OCR
                        "common_to", "copies",  # repeated text and exact copies folded into the row
                        "copies_unavailable",  # those copies on a missing folder or drive, and why
                        "near_copies",  # other files of this document (an export, an edited copy) folded in
                        "named", "weak",  # listed first for its name; no shared word and far in meaning
                        "rare_word",  # holds a query word the model does not know and few passages hold
                        "exact_phrase", "focus",  # holds the query word for word; the sentence meaning chose
                        "date"}  # the file's date (a message's own), seconds
    assert hit["common_to"] == 0 and hit["copies"] == [] and hit["near_copies"] == [] and hit["named"] is False and hit["weak"] is False
    assert hit["rare_word"] is False  # "magma": a word the model reads whole (search/rare_words.py)
    assert hit["container"] is None and hit["member"] is None and hit["key"] == hit["path"]
    assert hit["available"] is True and isinstance(hit["date"], float) and hit["date"] > 1e9
    assert set(hit["scores"]) >= {"dense", "lexical", "rerank_logit", "rerank"}
    assert set(hit["ranks"]) == {"dense", "lexical", "fused", "rerank", "final"}
    assert hit["scores"]["rerank"] is None and hit["ranks"]["final"] == 1
    # The text is the passage exactly as found in the document.
    assert "magma" in hit["text"].lower()
    # Said once and clearly: how to add a reranker.
    # the default (none ships): how to get it, and how to stop being told on every search
    assert "searchapp models pull cross-encoder/ms-marco-MiniLM-L-6-v2" in err and "rerank = false" in err
    # No hits is no occasion for the reranker's note in `notice` (only why a query could not be searched); a
    # folder that is not there is said on standard error
    code, out, err = run_cli(capsys, "--data-dir", str(data), "search", "magma", "--json", "--in", str(docs / "nope"))
    assert code == 0 and json.loads(out)["hits"] == [] and "notice" not in json.loads(out), out
    assert f"--in {docs / 'nope'}: no such folder here" in err


def test_the_missing_reranker_is_said_with_the_days_first_search(indexed, tmp_path, capsys, monkeypatch):
    """A fresh install has no reranker (none ships): its note came with every search, read as noise by the tenth.
    Now with the first search of the day (the search history's newest entry), always with --json, and every time
    where no history is kept."""
    import shutil
    import time

    from searchapp.store.history import SearchesDB

    _docs, data = indexed
    lib = shutil.copytree(data, tmp_path / "lib")
    pull = "searchapp models pull cross-encoder/ms-marco-MiniLM-L-6-v2"

    def searched() -> str:
        code, _out, err = run_cli(capsys, "--data-dir", str(lib), "search", "volcano lava")
        assert code == 0
        return err

    assert run_cli(capsys, "--data-dir", str(lib), "history", "clear")[0] == 0
    with SearchesDB(lib) as db:  # a search yesterday does not count
        db.add_history("yesterday's", "hybrid", time.time() - 86400 * 1.5, 100)
    assert pull in searched()
    assert pull not in searched()  # the day's second search
    code, out, err = run_cli(capsys, "--data-dir", str(lib), "search", "volcano lava", "--json")
    assert code == 0 and pull in err  # a script reads every search on its own
    monkeypatch.setenv("SEARCHAPP_SEARCH__HISTORY", "0")  # no history: nothing says it was told
    assert pull in searched() and pull in searched()


def test_stdin_queries_print_one_json_per_line(indexed, monkeypatch, capsys):
    import io

    docs, data = indexed
    monkeypatch.setattr(sys, "stdin", io.StringIO("moat drawbridge\n\nsaxophonist bebop\n"))
    code, out, err = run_cli(capsys, "--data-dir", str(data), "search", "-", "--no-rerank", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    # One line out per line in, the blank one included (an empty result), so outputs line up with inputs.
    assert [line["query"] for line in lines] == ["moat drawbridge", "", "saxophonist bebop"]
    assert lines[1]["hits"] == [] and lines[1]["notice"] == "empty query"
    assert Path(lines[0]["hits"][0]["path"]).name == "castles.docx"
    assert err.count("cross-encoder") == 0  # --no-rerank: nothing to say about a reranker


def test_status_json(indexed, capsys):
    docs, data = indexed
    code, out, err = run_cli(capsys, "--data-dir", str(data), "status", "--json")
    assert code == 0
    st = json.loads(out)
    assert st["files"] == 7 and st["chunks"] == st["vectors"] and st["chunks"] >= 7
    assert st["consistent"] is True
    assert st["failed"] == []
    assert st["models"]["reranker"]["available"] == "no"
    assert "CPU" in st["device"] or "GPU" in st["device"] or "cuda" in st["device"].lower()


def test_reranker_option_reranks_with_a_local_model(indexed, tiny_cross_encoder_dir, capsys):
    docs, data = indexed
    code, out, err = run_cli(capsys, "--data-dir", str(data), "search", "lava from a volcano", "--json",
                             "--reranker", str(tiny_cross_encoder_dir))
    assert code == 0, err
    res = json.loads(out)
    assert res["reranked"] is True
    logits = [h["scores"]["rerank_logit"] for h in res["hits"]]
    assert logits == sorted(logits, reverse=True)
    assert [h["ranks"]["rerank"] for h in res["hits"]] == list(range(1, len(logits) + 1))
    assert all(h["ranks"]["fused"] is not None for h in res["hits"])


def test_clean_errors_and_exit_codes(tmp_path, capsys):
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "lib"), "index", str(tmp_path / "nope"))
    assert code == 2 and err.startswith("searchapp: error: no such file or folder")
    assert "Traceback" not in err
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "lib"), "remove", str(tmp_path))
    assert code == 2 and "not an indexed folder" in err
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "config.toml").write_text("[search]\nkk = 3\n")
    code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "lib"), "status")
    assert code == 2 and "unknown setting search.kk" in err


def test_remove_forgets_everything(tmp_path, capsys):
    docs = corpus.make_mixed_corpus(tmp_path / "docs")
    lib = str(tmp_path / "lib")
    assert run_cli(capsys, "--data-dir", lib, "index", str(docs))[0] == 0
    code, out, err = run_cli(capsys, "--data-dir", lib, "remove", "--yes", str(docs))
    assert code == 0 and "7 files" in out
    st = json.loads(run_cli(capsys, "--data-dir", lib, "status", "--json")[1])
    assert st["files"] == 0 and st["chunks"] == 0 and st["vectors"] == 0 and st["consistent"]
    res = json.loads(run_cli(capsys, "--data-dir", lib, "search", "magma", "--json")[1])
    assert res["hits"] == []


def test_console_script_runs_in_a_fresh_process(indexed):
    """The installed entry point, as a script would call it: exit code and JSON on stdout only."""
    docs, data = indexed
    env = {**os.environ, "SEARCHAPP_DATA_DIR": str(data)}
    proc = subprocess.run([sys.executable, "-m", "searchapp", "search", "chromatophores", "--mode", "lexical", "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert Path(json.loads(proc.stdout)["hits"][0]["path"]).name == "ocean.epub"
