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
    assert tiny_library.store.chunk_count() == chunks and tiny_library.status().vectors == chunks
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


# -- 6. a model that produces NaN ------------------------------------------------------------------------
def _poisoned_model(src: Path, dst: Path, word: str | None) -> Path:
    """A copy of the tiny bi-encoder with NaN in its weights: in the embedding row of `word` (only texts
    with that word come out NaN), or in the embedding LayerNorm (every text does)."""
    from safetensors.numpy import load_file, save_file
    from tokenizers import Tokenizer

    shutil.copytree(src, dst)
    w = load_file(str(dst / "model.safetensors"))
    if word is None:
        w["embeddings.LayerNorm.weight"][0] = np.nan
    else:
        for tid in Tokenizer.from_file(str(dst / "tokenizer.json")).encode(word, add_special_tokens=False).ids:
            w["embeddings.word_embeddings.weight"][tid] = np.nan
    save_file(w, str(dst / "model.safetensors"))
    return dst


def test_a_nan_model_is_refused_at_load_with_exit_5(tmp_path, tiny_bi_encoder_dir, capsys):
    from searchapp.models import BiEncoder

    bad = _poisoned_model(tiny_bi_encoder_dir, tmp_path / "nan-model", None)
    with pytest.raises(ModelLoadError, match="NaN"):
        BiEncoder(str(bad), device="cpu", precision="fp32", threads=1)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(TEXTS["volcano.txt"], encoding="utf-8")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{bad}"\nreranker = ""\ndevice = "cpu"\n')
    assert main(["--data-dir", str(data), "index", str(docs)]) == 5
    err = capsys.readouterr().err
    assert "NaN" in err and "Traceback" not in err and len(err.strip().splitlines()) <= 2
    assert main(["--data-dir", str(data), "status"]) == 0
    assert main(["--data-dir", str(data), "search", "lava", "--mode", "dense"]) == 0


def test_a_batch_with_nan_vectors_is_refused_and_the_library_stays_usable(tmp_path, tiny_bi_encoder_dir):
    from searchapp.models import BiEncoder

    bad = _poisoned_model(tiny_bi_encoder_dir, tmp_path / "nan-word", "volcanoes")
    enc = BiEncoder(str(bad), device="cpu", precision="fp32", threads=1)  # the load probe is finite
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orthodontist.txt").write_text(TEXTS["orthodontist.txt"], encoding="utf-8")
    config = load_config(tmp_path / "lib", env={}, overrides={"models": {"bi_encoder": str(bad), "reranker": ""}})
    with Library(config, encoder=enc) as lib:
        assert lib.add_folder(notes).added == 1
        chunks = lib.store.chunk_count()
        (notes / "volcano.txt").write_text(TEXTS["volcano.txt"], encoding="utf-8")
        (notes / "sourdough.md").write_text(TEXTS["sourdough.md"], encoding="utf-8")
        with pytest.raises(ModelLoadError, match="nothing of this batch was written"):
            lib.sync()
        # Words first: the new passages are searchable by words, but no vector of the batch was written.
        waiting = lib.store.chunk_count() - chunks
        assert waiting > 0 and lib.store.pending_count() == waiting
        assert lib.search("volcanoes", mode="lexical").hits
    with Library(config, encoder=enc) as lib:  # a fresh open: index and database agree, nothing crashes
        st = lib.status()
        assert st.consistent and not st.reindex_needed and st.embedded == st.vectors == chunks
        assert lib.search("orthodontist visit", mode="dense").hits
        with pytest.raises(ModelLoadError, match="NaN"):
            lib.search("volcanoes", mode="dense")  # the query itself comes out NaN: one clean error


def test_a_cold_search_leaves_out_a_passage_the_model_makes_nan_and_answers(tmp_path, tiny_bi_encoder_dir):
    """Meaning on the spot in a cold process (no bi-encoder loaded: the query path, no torch). A passage whose
    vector comes out NaN has no score in this answer; the search answers. Through encode_query it loaded torch for
    that passage and then failed the whole search with "... for this query"."""
    from searchapp.models import BiEncoder

    bad = _poisoned_model(tiny_bi_encoder_dir, tmp_path / "nan-word", "volcanoes")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("The volcanoes and the weather of the island.", encoding="utf-8")
    (notes / "b.txt").write_text("Notes on the weather of the harbour.", encoding="utf-8")
    config = load_config(tmp_path / "lib", env={}, overrides={
        "models": {"bi_encoder": str(bad), "reranker": ""}, "chunking": {"title_context": False},
        "search": {"embed_on_search": 4, "rerank": False}})
    with Library(config, encoder=BiEncoder(str(bad), device="cpu", precision="fp32", threads=1)) as lib:
        lib.add_folder(notes, embed=False)
    with Library(config) as lib:  # a command-line search
        res = lib.search("weather", mode="hybrid", k=2)
        assert lib.models.loaded_encoder is None  # no torch model loaded for the broken passage
        assert lib.store.pending_count() == 2
    labels = {os.path.basename(h.path): h.order_label for h in res.hits}
    assert labels == {"a.txt": "words", "b.txt": "match"}, labels


def test_a_library_holding_nan_vectors_from_an_older_version_still_works(tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                                         capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')
    import sqlite3

    db = sqlite3.connect(data / "library.sqlite")
    (cid, blob), = db.execute("SELECT c.id, c.vector FROM chunks c JOIN files f ON f.id = c.file_id "
                              "WHERE f.path LIKE '%volcano.txt'").fetchall()
    poisoned = np.frombuffer(blob, dtype=np.float32).copy()
    poisoned[0] = np.nan
    with db:
        db.execute("UPDATE chunks SET vector = ? WHERE id = ?", (poisoned.tobytes(), cid))
    db.close()
    for p in data.glob("vectors.*"):
        p.unlink()  # as after a crash: the index is rebuilt from the stored vectors

    docs = tmp_path / "docs"
    argv = ["--data-dir", str(data)]
    assert main([*argv, "status", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["vectors"] == st["chunks"] - 1 and st["consistent"]
    assert "not finite" in st["reindex_needed"]
    assert main([*argv, "search", "basaltic lava volcanoes", "--mode", "dense", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]  # valid JSON: no NaN score
    assert hits and all(not Path(h["path"]).name == "volcano.txt" for h in hits)
    assert main([*argv, "search", "lava", "--mode", "dense", "--in", str(docs), "--json"]) == 0  # exact scoring
    assert json.loads(capsys.readouterr().out)["hits"]
    assert main([*argv, "similar", str(docs / "sourdough.md"), "--json"]) == 0
    assert main([*argv, "duplicates", "--json"]) == 0
    assert main([*argv, "similar", str(docs / "volcano.txt"), "--json"]) == 0  # no usable passage: no hits
    capsys.readouterr()


# -- 8. one line, never a traceback ----------------------------------------------------------------------
@pytest.fixture
def small_library(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')


@pytest.mark.parametrize("argv", [
    ["search", "lava", "--mode", "lexical", "--before", "9999-12-31"],
    ["search", "lava", "--mode", "dense", "--after", "0001-01-01"],
    ["similar", "{docs}/volcano.txt", "--after", "0001-01-01"],
    ["similar", "{docs}/volcano.txt", "--page", str(10 ** 20)],
], ids=["before-9999", "after-0001", "similar-after-0001", "similar-page-1e20"])
def test_overflowing_dates_and_pages_are_one_line_exit_2(small_library, argv, capsys):
    docs = small_library.parent / "docs"
    code = main(["--data-dir", str(small_library), *[a.format(docs=docs) for a in argv]])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("searchapp: error: ") and len(err.strip().splitlines()) == 1, err
    assert "out of range" in err or "--page" in err


def test_filter_bar_shows_an_out_of_range_date_as_its_error(qapp):
    from PySide6.QtCore import QDate

    from searchapp.gui.filter_bar import FilterBar

    bar = FilterBar()
    bar.before_on.setChecked(True)
    bar.before.setDate(QDate(9999, 12, 31))
    # The date field cannot hold a day the core refuses: it clamps to its last day, which the core accepts.
    assert bar.before.date().year() <= 2261
    filters = bar.filters()
    assert filters is not None and filters.before is not None and not bar.error.text()
    with pytest.raises(ConfigError, match="out of range"):
        from searchapp.library.query.filters import SearchFilters

        SearchFilters.build((), (), "0001-01-01", None)


def _library_over(tmp_path, model: Path) -> Path:
    from searchapp.models import BiEncoder

    enc = BiEncoder(str(model), device="cpu", precision="fp32", threads=1)
    return build_tiny_library(tmp_path / "lib-root", TEXTS, model, enc, 'reranker = ""\ndevice = "cpu"\n')


def test_query_encoder_falls_back_to_torch_on_a_folder_it_cannot_read(tmp_path, tiny_bi_encoder_dir, capsys):
    """bf16 safetensors: NumPy has no bfloat16 (a TypeError traceback before), transformers loads it."""
    import torch
    from safetensors.torch import load_file, save_file

    from searchapp.models.query_encoder import load_query_encoder

    model = shutil.copytree(tiny_bi_encoder_dir, tmp_path / "bf16-model")
    w = load_file(str(model / "model.safetensors"))
    save_file({k: v.to(torch.bfloat16) for k, v in w.items()}, str(model / "model.safetensors"),
              metadata={"format": "pt"})
    try:  # NumPy reads bfloat16 only once ml_dtypes has registered it (onnx, installed beside some set-ups, does)
        np.dtype("bfloat16")
        numpy_reads_bf16 = True
    except TypeError:
        numpy_reads_bf16 = False
    assert (load_query_encoder(model, pooling="mean", max_seq_length=128) is not None) == numpy_reads_bf16
    data = _library_over(tmp_path, model)
    assert main(["--data-dir", str(data), "search", "basaltic lava", "--mode", "dense", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"]


def test_malformed_model_folder_for_the_query_encoder_is_exit_5(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    """config.json without num_attention_heads: a KeyError traceback before; torch refuses it too, so exit 5."""
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')
    model = shutil.copytree(tiny_bi_encoder_dir, tmp_path / "no-heads")
    cfg = json.loads((model / "config.json").read_text())
    del cfg["num_attention_heads"]
    (model / "config.json").write_text(json.dumps(cfg))
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{model}"\nreranker = ""\ndevice = "cpu"\n')
    code = main(["--data-dir", str(data), "search", "basaltic lava", "--mode", "dense"])
    err = capsys.readouterr().err
    assert code == 5 and "Traceback" not in err and err.strip().splitlines()[-1].startswith("searchapp: error:"), err


# -- 11. searches during a reindex -----------------------------------------------------------------------
def test_searches_during_a_reindex_carry_a_notice(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\ndevice = "cpu"\n')
    config = load_config(data, env={})
    seen: dict = {}

    def during(p) -> None:  # runs inside the reindex, its writer lock held, passages dropped and not yet back
        if p.stage == "embedding" and "json" not in seen:
            with Library(config, encoder=tiny_encoder) as other:
                seen["result"] = other.search("orthodontist consultation", mode="lexical")
                seen["status"] = other.status()
            assert main(["--data-dir", str(data), "search", "orthodontist", "--mode", "lexical", "--json"]) == 0
            seen["json"], seen["err"] = capsys.readouterr()

    with Library(config, encoder=tiny_encoder) as lib:
        lib.reindex(progress=during)
        res = seen["result"]
        # Words first: during phase 2 every passage is back for word search; its meaning is what is missing.
        assert res.hits and res.reindex_notice.startswith("reindex in progress: 0% of passages embedded")
        assert any(n.startswith("reindex in progress") for n in seen["status"].notes)
        assert json.loads(seen["json"])["reindex_notice"].startswith("reindex in progress")
        assert "searchapp: note: reindex in progress" in seen["err"]
        after = lib.search("orthodontist consultation", mode="lexical")  # finished: hits, no notice
        assert after.hits and after.reindex_notice is None and "reindex_notice" not in after.to_json()
