"""`status`'s passages line names the small meaning pass's query path only where a sync takes it (decision 0164):
the sync's encoder judges a GPU by its device nodes (ModelSet.may_use_gpu), so the line asks the same judge."""

from __future__ import annotations

from searchapp.library import Library
from searchapp.library.resources.model_set import ModelSet


def test_status_says_the_lean_pass_only_where_the_sync_takes_it(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The heron waits by the reeds at dawn.\n", encoding="utf-8")
    config = make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": "", "precision": "fp32",
                                 "threads": 1})
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # what describe_passage_path reads: no CUDA here
    with Library(config) as lib:
        lib.add_folder(docs, embed=False)
        assert "the query path" in lib.status().passage_path  # a CPU: the sync would take it
        # A GPU device node that CUDA_VISIBLE_DEVICES hides (or WSL's /dev/dxg): the only mock, a GPU's presence
        monkeypatch.setattr(ModelSet, "may_use_gpu", lambda self: True)
        lib.sync()
        assert lib.models.loaded_encoder is not None  # the sync loaded the model: no lean pass on this machine
        assert "the query path" not in lib.status().passage_path
