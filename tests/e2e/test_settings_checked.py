"""Every setting is type- and range-checked when loaded: one line naming the key and what is allowed, exit 2."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from searchapp.base.config import Config, allowed_values, check_setting, field_help, load_config
from searchapp.base.errors import ConfigError
from searchapp.cli.main import main

REPO = Path(__file__).resolve().parents[2]

BAD = [
    ("[index]\nm = 0\n", "index.m", "between 2 and 128"),
    ("[search]\nrrf_k = -1\n", "search.rrf_k", "between 1 and"),
    ("[index]\nef_search = -5\n", "index.ef_search", "between 1 and"),
    ("[search]\nk = 1e20\n", "search.k", "between 1 and 10000"),
    ("[scan]\nmax_file_mb = inf\n", "scan.max_file_mb", "between"),
    ("[scan]\nmax_file_mb = nan\n", "scan.max_file_mb", "between"),
    ("[search]\nk = 1.9\n", "search.k", "whole number"),
    ("[search]\ncandidates = 0\n", "search.candidates", "between 1 and"),
    ("[models]\nbatch_size = true\n", "models.batch_size", "whole number"),
    ("[models]\npooling = \"sum\"\n", "models.pooling", "mean, cls, max or wk"),
    ("[chunking]\noverlap = 0.95\n", "chunking.overlap", "between 0 and"),
]


@pytest.mark.parametrize("toml,key,allowed", BAD)
def test_bad_config_file_value_is_one_line_exit_2(tmp_path, capsys, toml, key, allowed):
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(toml)
    code = main(["--data-dir", str(data), "search", "volcano", "--mode", "lexical"])
    err = capsys.readouterr().err
    assert code == 2
    assert key in err and allowed in err and "config.toml" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_hnsw_m_zero_no_longer_crashes_index(tmp_path):
    """Before: `[index] m = 0` made `index` die in hnswlib with SIGSEGV (exit 139), printing nothing."""
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text("[index]\nm = 0\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("hello world\n")
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "index", str(docs)],
                          capture_output=True, text=True, timeout=300, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2, proc.stderr
    assert "index.m" in proc.stderr and "between 2 and 128" in proc.stderr


def test_environment_values_are_checked_and_named():
    with pytest.raises(ConfigError, match=r"environment: search\.k: cannot use '1\.9'"):
        load_config("/nonexistent-data-dir", env={"SEARCHAPP_SEARCH__K": "1.9"})
    with pytest.raises(ConfigError, match=r"environment: index\.ef_search: -5 is not allowed \(between 1 and"):
        load_config("/nonexistent-data-dir", env={"SEARCHAPP_INDEX__EF_SEARCH": "-5"})
    assert load_config("/nonexistent-data-dir", env={"SEARCHAPP_SEARCH__K": "7"}).search.k == 7
    assert load_config("/nonexistent-data-dir", env={}, overrides={"search": {"k": 10.0}}).search.k == 10


@pytest.mark.parametrize("args,key", [(["--k", "0"], "search.k"), (["--k", "-3"], "search.k"),
                                      (["--candidates", "-1"], "search.candidates")])
def test_per_call_values_obey_the_same_ranges(tmp_path, make_config, args, key):
    from searchapp.library import Library

    with Library(make_config()) as lib:
        with pytest.raises(ConfigError, match=key):
            lib.search("volcano", mode="lexical", k=int(args[1]) if args[0] == "--k" else None,
                       candidates=int(args[1]) if args[0] == "--candidates" else None)


def test_every_numeric_field_declares_its_range():
    """The ranges live next to the fields (one source for the checks and docs/configuration.md)."""
    cfg = Config()
    for key in field_help():
        section, _, name = key.partition(".")
        if not name:
            continue
        value = getattr(getattr(cfg, section), name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            assert allowed_values(key), key
            check_setting(key, value)  # every default is allowed
    assert dataclasses.fields(Config)  # sanity


def test_configuration_page_shows_every_range_beside_its_key():
    """Docs and checks share one source: docs/configuration.md's generated table gives each field's range from
    the schema (and tests/e2e/test_docs.py keeps that table up to date)."""
    from searchapp.base.config import field_meta as _field_meta
    from searchapp.base.config.checks import format_number as _num

    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    for key, meta in _field_meta().items():
        if "min" in meta and "max" in meta:
            name = key.split(".")[1]
            line = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
            assert f"| {_num(meta['min'])}..{_num(meta['max'])} |" in line, (key, line)
