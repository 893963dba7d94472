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
    assert paths[:2] == ["reports/copy.txt", "drafts/reworded.md"]
    assert res.hits[0].scores.dense == pytest.approx(1.0, abs=1e-5)
    assert 0.7 < res.hits[1].scores.dense < 1.0
    assert res.hits[1].scores.dense > res.hits[2].scores.dense  # the same-topic text is less alike
    assert res.hits[1].source_text.startswith("Our sourdough") and res.hits[1].text.startswith("Each morning")
    assert res.query == str(docs / "reports" / "original.txt")
    assert [h.ranks.final for h in res.hits] == list(range(1, len(res.hits) + 1))


def test_similar_with_filters_returns_only_matching_files(indexed):
    docs, config = indexed
    with Library(config) as lib:
        res = lib.similar(str(docs / "reports" / "original.txt"), k=10,
                          filters=SearchFilters.build(folders=[str(docs / "old")]))
    assert res.hits and all(Path(h.path).parent == docs / "old" for h in res.hits)
    assert len(res.hits) == len(discover_corpus.UNRELATED)  # every allowed file, though none is alike
    assert res.filter_stats["allowed_passages"] == len(discover_corpus.UNRELATED)


def test_similar_rejects_unknown_file_and_missing_page(indexed, tmp_path):
    docs, config = indexed
    with Library(config) as lib:
        with pytest.raises(ConfigError, match="not an indexed file"):
            lib.similar(str(tmp_path / "nowhere.txt"))
        with pytest.raises(ConfigError, match="page 3"):
            lib.similar(str(docs / "reports" / "original.txt"), page=3)


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
    assert hit["path"].endswith("copy.txt") and hit["scores"]["dense"] == pytest.approx(1.0, abs=1e-4)


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
    assert " 1. " in out and "copy.txt" in out and "reworded.md" in out and "best passage pair" in out
