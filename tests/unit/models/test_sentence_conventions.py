"""What a bi-encoder's sentence-transformers files declare (pooling, Normalize, prompts), read as capped JSON."""

from __future__ import annotations

import json

import pytest

from tiny_models import declare_sentence_conventions

BGE_QUERY = "Represent this sentence for searching relevant passages: "


def test_reads_pooling_normalize_and_named_prompts(tmp_path):
    from searchapp.models.sentence_conventions import read_conventions, resolve_pooling

    declare_sentence_conventions(tmp_path, pooling="cls", prompts={"query": BGE_QUERY, "text": ""})
    c = read_conventions(tmp_path)
    assert (c.pooling, c.normalize, c.query_prompt, c.passage_prompt, c.prompts_from) == \
        ("cls", True, BGE_QUERY, "", "model files")
    assert resolve_pooling("auto", c) == "cls" and resolve_pooling("mean", c) == "mean"  # a setting wins

    declare_sentence_conventions(tmp_path, pooling="mean", normalize=False,
                                 prompts={"query": "query: ", "passage": "passage: "})
    c = read_conventions(tmp_path)
    assert (c.pooling, c.normalize, c.query_prompt, c.passage_prompt) == ("mean", False, "query: ", "passage: ")


def test_default_prompt_serves_the_side_without_one_and_no_files_mean_mean(tmp_path):
    from searchapp.models.sentence_conventions import read_conventions, resolve_pooling

    declare_sentence_conventions(tmp_path, prompts={"query": "q: ", "clustering": "c: "}, default_prompt_name="clustering")
    c = read_conventions(tmp_path)
    assert (c.query_prompt, c.passage_prompt) == ("q: ", "c: ")
    bare = tmp_path / "other" / "bare"  # not under the folder above (a module folder reads its parent's files)
    bare.mkdir(parents=True)
    c = read_conventions(bare)
    assert (c.pooling, c.normalize, c.query_prompt, c.passage_prompt) == (None, False, "", "")
    assert resolve_pooling("auto", c) == "mean"


def test_model_card_prompts_fill_in_for_a_cached_hub_model_without_them(tmp_path):
    from searchapp.models.sentence_conventions import read_conventions

    snap = tmp_path / "models--intfloat--e5-small-v2" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    declare_sentence_conventions(snap, pooling="mean")  # no prompts in its files
    c = read_conventions(snap)
    assert (c.query_prompt, c.passage_prompt, c.prompts_from) == ("query: ", "passage: ", "model card")
    declare_sentence_conventions(snap, prompts={"query": "mine: "})  # the model's own files win
    assert read_conventions(snap).query_prompt == "mine: " and read_conventions(snap).passage_prompt == ""


def test_an_unoffered_pooling_or_a_hostile_file_is_refused_in_one_line(tmp_path):
    from searchapp.base.errors import ModelLoadError
    from searchapp.models.sentence_conventions import MAX_JSON_BYTES, read_conventions, resolve_pooling

    declare_sentence_conventions(tmp_path, pooling="lasttoken")
    with pytest.raises(ModelLoadError, match="declares lasttoken pooling, which searchapp does not offer"):
        resolve_pooling("auto", read_conventions(tmp_path), "acme/decoder")
    assert resolve_pooling("mean", read_conventions(tmp_path)) == "mean"  # set by hand, it runs

    st = tmp_path / "config_sentence_transformers.json"
    st.write_text(json.dumps({"prompts": {"query": "x" * 5000}}))
    with pytest.raises(ModelLoadError, match="longer than"):
        read_conventions(tmp_path)
    st.write_text(json.dumps({"prompts": ["query: "]}))
    with pytest.raises(ModelLoadError, match="not a table"):
        read_conventions(tmp_path)
    st.write_text(" " * (MAX_JSON_BYTES + 1) + "{}")
    with pytest.raises(ModelLoadError, match="larger than"):
        read_conventions(tmp_path)
    st.unlink()
    (tmp_path / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Pooling",
                                                        "path": "../../etc"}]))
    with pytest.raises(ModelLoadError, match="leaves the model folder"):
        read_conventions(tmp_path)


def test_a_passage_prompt_is_part_of_the_library_identity_a_query_prompt_is_not():
    from searchapp.models.identity import model_fingerprint, reindex_message, reindex_reasons

    plain = model_fingerprint("abc", "mean", 256)
    assert plain == model_fingerprint("abc", "mean", 256, "")  # libraries built before prompts keep theirs
    prompted = model_fingerprint("abc", "mean", 256, "passage: ")
    assert prompted != plain
    built = {"model": "/m", "pooling": "mean", "model_fingerprint": plain, "dim": "32"}  # no prompt key: none
    wanted = {**built, "passage_prompt": "passage: ", "model_fingerprint": prompted}
    msg = reindex_message(reindex_reasons(built, wanted))
    assert msg is not None and "\n" not in msg
    assert msg.startswith('the library was built with passage prompt none (the configured model puts "passage: " '
                          "in front of passages)") and msg.endswith("or change them back")
    assert reindex_reasons(built, {**built, "passage_prompt": ""}) == []
    # "auto" matches any pooling by name (status, the settings dialog); the fingerprint holds the one that ran.
    assert reindex_reasons(built, {"model": "/m", "pooling": "auto"}) == []
