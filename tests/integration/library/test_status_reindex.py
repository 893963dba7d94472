"""`status` says when the configured model, pooling or chunking differs from the library's, and
`status --check` exits 4 then (as search does)."""

from __future__ import annotations

import json

from searchapp.cli.main import main


def test_status_says_reindex_and_check_exits_4(tmp_path, monkeypatch, capsys, tiny_bi_encoder_dir):
    monkeypatch.setenv("SEARCHAPP_MODELS__BI_ENCODER", str(tiny_bi_encoder_dir))
    monkeypatch.setenv("SEARCHAPP_MODELS__RERANKER", "")
    monkeypatch.setenv("SEARCHAPP_MODELS__THREADS", "1")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Kelp forests grow fast in cold water.", encoding="utf-8")
    data = str(tmp_path / "lib")
    assert main(["--data-dir", data, "index", str(docs)]) == 0
    assert main(["--data-dir", data, "status", "--check"]) == 0
    capsys.readouterr()

    monkeypatch.setenv("SEARCHAPP_MODELS__POOLING", "cls")
    assert main(["--data-dir", data, "status"]) == 0  # without --check status only reports
    out = capsys.readouterr().out
    assert "run `searchapp reindex`" in out and "pooling 'mean' (configured 'cls')" in out
    assert main(["--data-dir", data, "status", "--check", "--json"]) == 4
    st = json.loads(capsys.readouterr().out)
    assert "reindex" in st["reindex_needed"]
    assert main(["--data-dir", data, "search", "kelp"]) == 4  # the same state stops a dense search

    monkeypatch.setenv("SEARCHAPP_MODELS__POOLING", "mean")
    monkeypatch.setenv("SEARCHAPP_CHUNKING__MAX_TOKENS", "100")
    assert main(["--data-dir", data, "status", "--check"]) == 4
    assert "chunk_max_tokens 200 (configured 100)" in capsys.readouterr().out
