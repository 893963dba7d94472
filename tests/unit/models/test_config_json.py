"""A model folder's JSON is read one way (models/config_json.py), by resolve's checks and the sentence-transformers
conventions alike: capped, a regular file only, of the kind expected, each refusal one ModelLoadError."""

from __future__ import annotations

import json
import os

import pytest

from searchapp.base.errors import ModelLoadError
from searchapp.models.config_json import read_config_json
from searchapp.models.resolve import check_no_custom_code
from searchapp.models.sentence_conventions import MAX_JSON_BYTES, read_conventions


def test_a_config_of_the_expected_kind_is_read_and_a_missing_one_only_where_allowed(tmp_path):
    f = tmp_path / "config.json"
    f.write_text(json.dumps({"model_type": "bert"}))
    assert read_config_json(f, cap=100) == {"model_type": "bert"}
    assert read_config_json(tmp_path / "absent.json", list, cap=100, missing_ok=True) is None
    with pytest.raises(ModelLoadError, match="cannot read"):
        read_config_json(tmp_path / "absent.json", cap=100)
    with pytest.raises(ModelLoadError, match="not a JSON list"):
        read_config_json(f, list, cap=100)


def test_a_file_over_the_cap_is_refused_by_every_reader(tmp_path):
    f = tmp_path / "config.json"
    f.write_text(" " * 101 + "{}")
    with pytest.raises(ModelLoadError, match="larger than"):
        read_config_json(f, cap=100)
    assert read_config_json(f, cap=103) == {}
    (tmp_path / "modules.json").write_text(" " * (MAX_JSON_BYTES + 1) + "[]")
    with pytest.raises(ModelLoadError, match="modules.json is larger than 64 KiB"):
        read_conventions(tmp_path)


def test_resolve_refuses_a_config_that_is_not_an_object_or_not_a_file(tmp_path):
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(ModelLoadError, match="config.json is not a JSON object"):
        check_no_custom_code(tmp_path)
    if hasattr(os, "mkfifo"):
        (tmp_path / "config.json").unlink()
        os.mkfifo(tmp_path / "config.json")  # open() would block for ever
        with pytest.raises(ModelLoadError, match="cannot read"):
            check_no_custom_code(tmp_path)


def test_the_identity_reads_a_folders_json_capped_too(tiny_bi_encoder_dir, tmp_path):
    """bi_encoder_identity (status, an unchanged index: no torch) read tokenizer_config.json whole before."""
    import shutil

    from searchapp.models.config_json import MAX_CONFIG_BYTES
    from searchapp.models.identity import bi_encoder_identity

    folder = tmp_path / "model"
    shutil.copytree(tiny_bi_encoder_dir, folder)
    assert bi_encoder_identity(str(folder), pooling="mean").dim > 0
    (folder / "tokenizer_config.json").write_text(" " * MAX_CONFIG_BYTES + "{}")
    with pytest.raises(ModelLoadError, match="tokenizer_config.json is larger than 4 MiB"):
        bi_encoder_identity(str(folder), pooling="mean")
