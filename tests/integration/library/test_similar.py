"""More like this: files ranked by similarity to an indexed file, from stored vectors only (no model load)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import discover_corpus
from searchapp.base.errors import ConfigError
from searchapp.cli.main import main
from searchapp.library import Library, SearchFilters


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, packaged_encoder):
    return discover_corpus.index(tmp_path_factory.mktemp("similar"), packaged_encoder)


def test_similar_ranks_copy_and_rewording_first_and_never_the_source(indexed):
    docs, config = indexed
    with Library(config) as lib:  # no encoder given: one would have to be built to re-encode
        res = lib.similar(str(docs / "reports" / "original.txt"), k=5)
        assert lib.models.loaded_encoder is None, "similar must use stored vectors, not the model"
    paths = [Path(h.path).relative_to(docs).as_posix() for h in res.hits]
    assert "reports/original.txt" not in paths
    # its exact copy is the same file, said apart, not the top "similar" hit
    assert "reports/copy.txt" not in paths and res.same_file == [str(docs / "reports" / "copy.txt")]
    assert paths[0] == "drafts/reworded.md"
    assert 0.7 < res.hits[0].scores.dense < 1.0 and not res.hits[0].weak and res.hits[0].to_json()["weak"] is False
    assert res.hits[0].scores.dense > res.hits[1].scores.dense  # the same-topic text is less alike
    assert res.hits[0].source_text.startswith("Our sourdough") and res.hits[0].text.startswith("Each morning")
    assert res.query == str(docs / "reports" / "original.txt")
    assert [h.ranks.final for h in res.hits] == list(range(1, len(res.hits) + 1))


def test_similar_with_filters_returns_only_matching_files(indexed):
    docs, config = indexed
    with Library(config) as lib:
        res = lib.similar(str(docs / "reports" / "original.txt"), k=10,
                          filters=SearchFilters.build(folders=[str(docs / "old")]))
    assert res.hits and all(Path(h.path).parent == docs / "old" for h in res.hits)
    assert len(res.hits) == len(discover_corpus.UNRELATED)  # every allowed file, though none is alike
    # none is alike: each is marked weak, as a search's row far from its query (decision 0207)
    assert [h.weak for h in res.hits] == [True] * len(res.hits), [h.scores.dense for h in res.hits]
    assert res.filter_stats["allowed_passages"] == len(discover_corpus.UNRELATED)


def test_similar_rejects_unknown_file_and_missing_page(indexed, tmp_path):
    docs, config = indexed
    with Library(config) as lib:
        with pytest.raises(ConfigError, match="not an indexed file"):
            lib.similar(str(tmp_path / "nowhere.txt"))
        with pytest.raises(ConfigError, match="page 3"):
            lib.similar(str(docs / "reports" / "original.txt"), page=3)


def test_similar_on_a_file_the_library_did_not_index_says_why(tmp_path, tiny_encoder, make_config):
    """`explain` listed them (no text, skipped, failed) while `similar` said they were not in the library (a
    newcomer): it says why there is nothing to compare, as explain does."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("The heron waded through the reeds at dawn.", encoding="utf-8")
    (docs / "archive.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 16)
    with Library(make_config(), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        with pytest.raises(ConfigError, match=r"archive.gz is in the library but not indexed \(skipped: unsupported"):
            lib.similar(str(docs / "archive.gz"))


def test_similar_cli_json_has_search_shape_and_loads_no_torch(indexed):
    docs, config = indexed
    script = (
        "import sys, json; from searchapp.cli.main import main; "
        f"code = main(['--data-dir', {str(config.data_dir)!r}, 'similar', {str(docs / 'reports' / 'original.txt')!r}, "
        "'--k', '3', '--json']); "
        "print(json.dumps({'code': code, 'torch': 'torch' in sys.modules, 'transformers': 'transformers' in sys.modules}))"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out, status = proc.stdout.strip().splitlines()
    status = json.loads(status)
    assert status == {"code": 0, "torch": False, "transformers": False}
    res = json.loads(out)
    assert res["query"] == str(docs / "reports" / "original.txt") and res["mode"] == "similar"
    hit = res["hits"][0]
    assert {"path", "page", "text", "scores", "ranks", "similarity", "source"} <= set(hit)
    assert hit["path"].endswith("reworded.md") and 0.7 < hit["scores"]["dense"] < 1.0
    assert res["same_file"] == [str(docs / "reports" / "copy.txt")]


def test_similar_cli_errors_are_one_line(indexed, tmp_path, capsys):
    docs, config = indexed
    code = main(["--data-dir", str(config.data_dir), "similar", str(tmp_path / "x.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "not an indexed file" in err
    code = main(["--data-dir", str(tmp_path / "none"), "similar", str(docs / "reports" / "original.txt")])
    err = capsys.readouterr().err
    assert code == 2 and "no library" in err
    assert not (tmp_path / "none").exists()  # a read never creates a library


def test_similar_cli_text_output(indexed, capsys):
    docs, config = indexed
    code = main(["--data-dir", str(config.data_dir), "similar", str(docs / "reports" / "original.txt"), "--k", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert " 1. " in out and "reworded.md" in out and "best passage pair" in out
    assert out.startswith(f"the same file elsewhere: {docs / 'reports' / 'copy.txt'}\n")
    assert "reworded.md  [weak match]" not in out
    # the unrelated files of old/ are the nearest there, marked as a search marks its weak rows (decision 0207)
    main(["--data-dir", str(config.data_dir), "similar", str(docs / "reports" / "original.txt"), "--in",
          str(docs / "old")])
    rows = [line for line in capsys.readouterr().out.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert len(rows) == len(discover_corpus.UNRELATED) and all(r.endswith("  [weak match]") for r in rows), rows


# -- exact copies: the source's are the same file, the hits' share a row -----------------------------------------

TRACE = ("Trace trees record hot loops of a JavaScript interpreter and compile them to machine code with type guards. "
         "Side exits return to the interpreter when a guard fails.")
SIBLING = ("A tracing compiler records the hot loops of an interpreter and compiles them to machine code guarded by "
           "types, leaving the trace when a guard fails.")
OTHER = "Volcanoes erupt when magma rises from the mantle and gas pressure builds in the chamber beneath."


@pytest.fixture
def copies(tiny_library, tmp_path):
    """papers/tracemonkey.pdf's text kept twice more (Downloads, a FINAL copy), a paper like it kept twice."""
    docs = tmp_path / "docs"
    files = {"papers/tracemonkey.md": TRACE, "Downloads/tracemonkey (1).md": TRACE, "JIT-paper-final-FINAL.md": TRACE,
             "papers/tracing.md": SIBLING, "Downloads/tracing.md": SIBLING, "misc/volcano.md": OTHER}
    for rel, text in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    tiny_library.add_folder(docs)
    return tiny_library, docs


def test_similar_says_the_source_s_copies_apart_and_folds_copies_among_its_hits(copies):
    lib, docs = copies
    res = lib.similar(str(docs / "papers/tracemonkey.md"), k=5)
    assert res.same_file == [str(docs / "Downloads/tracemonkey (1).md"), str(docs / "JIT-paper-final-FINAL.md")]
    assert [Path(h.path).name for h in res.hits] == ["tracing.md", "volcano.md"]  # a row a content, none the source's
    tracing = {str(docs / "papers/tracing.md"), str(docs / "Downloads/tracing.md")}
    assert {res.hits[0].path, *res.hits[0].copies} == tracing and len(res.hits[0].copies) == 1
    assert res.hits[1].copies == []
    assert [h.ranks.final for h in res.hits] == [1, 2]
    assert res.said("same") == (f"the same file elsewhere: {docs / 'Downloads/tracemonkey (1).md'}, "
                                f"{docs / 'JIT-paper-final-FINAL.md'}")


def test_similar_in_a_folder_says_only_the_copies_in_it(copies):
    lib, docs = copies
    res = lib.similar(str(docs / "papers/tracemonkey.md"), k=5,
                      filters=SearchFilters.build(folders=[str(docs / "papers")]))
    assert res.same_file == [] and [Path(h.path).name for h in res.hits] == ["tracing.md"]
    assert res.hits[0].path == str(docs / "papers/tracing.md") and res.hits[0].copies == []
    res = lib.similar(str(docs / "papers/tracemonkey.md"), k=5,
                      filters=SearchFilters.build(folders=[str(docs / "Downloads")]))
    assert res.same_file == [str(docs / "Downloads/tracemonkey (1).md")]


@pytest.mark.engines("sqlite")  # the command line on the data dir's library
def test_similar_prints_the_same_file_and_a_hit_s_copies(copies, capsys):
    lib, docs = copies
    code = main(["--data-dir", str(lib.data_dir), "similar", str(docs / "papers/tracemonkey.md"), "--k", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == (f"the same file elsewhere: {docs / 'Downloads/tracemonkey (1).md'}, "
                                   f"{docs / 'JIT-paper-final-FINAL.md'}")
    assert sum(line.startswith("    +1 copy: ") and line.endswith("tracing.md") for line in out.splitlines()) == 1
    assert "FINAL" not in "".join(out.splitlines()[1:])
    code = main(["--data-dir", str(lib.data_dir), "similar", str(docs / "papers/tracemonkey.md"), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert res["same_file"] == [str(docs / "Downloads/tracemonkey (1).md"), str(docs / "JIT-paper-final-FINAL.md")]
    assert [Path(p).name for p in res["hits"][0]["copies"]] == ["tracing.md"]
