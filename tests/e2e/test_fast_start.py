"""Fast start: `status`, lexical search and an unchanged `index` never import torch or transformers
(seconds of start-up), and the model identity read from files equals the loaded model's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.base.config import load_config
from searchapp.library import Library

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "transformers")
WRITE_LANE = "sqlite_utils"  # imported by no command here: the store writes through its own lane (decision 0126)

# Runs the CLI in a fresh interpreter, then reports which heavy modules ended up imported.
RUNNER = """
import json, sys
from searchapp.cli.main import main
code = main(sys.argv[1:])
print("@@" + json.dumps({"code": code, "heavy": [m for m in %r if m in sys.modules],
                         "write_lane": %r in sys.modules}))
""" % (HEAVY, WRITE_LANE)


def run_fresh(*argv: str) -> tuple[dict, str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", RUNNER, *argv], capture_output=True, text=True, env=env, timeout=300)
    marker = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    assert marker, proc.stderr
    return json.loads(marker[-1][2:]), proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def tiny_library(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder):
    notes = {f"n{i}.txt": f"Note {i}: the orthodontist consultation is on Tuesday {i}." for i in range(5)}
    return build_tiny_library(tmp_path_factory.mktemp("fast"), notes, tiny_bi_encoder_dir, tiny_encoder,
                              'precision = "fp32"\nthreads = 1\n')


def test_status_imports_no_torch(tiny_library):
    result, out, err = run_fresh("--data-dir", str(tiny_library), "status")
    assert result["code"] == 0, err
    assert "5 passages" in out
    # precision, threads, forward; and what a small meaning pass takes instead (decision 0164)
    assert ("passages: torch fp32; fused BERT layers (1 thread); up to 24 waiting: the query path, without loading "
            "torch") in out.splitlines()
    assert result["heavy"] == [], f"status imported {result['heavy']}"
    assert not result["write_lane"], "status imported sqlite_utils, which only writes need"


def test_lexical_search_imports_no_torch(tiny_library):
    result, out, err = run_fresh("--data-dir", str(tiny_library), "search", "orthodontist", "--mode", "lexical", "--json")
    assert result["code"] == 0, err
    hits = json.loads(out.splitlines()[0])["hits"]
    assert hits and all(h["scores"]["rerank"] is None for h in hits)
    assert result["heavy"] == [], f"lexical search imported {result['heavy']}"
    assert not result["write_lane"], "lexical search imported sqlite_utils, which only writes need"


def test_unchanged_index_loads_no_model(tiny_library):
    result, out, err = run_fresh("--data-dir", str(tiny_library), "index", "--json")
    assert result["code"] == 0, err
    rep = json.loads(out.splitlines()[0])
    assert rep["unchanged"] == 5 and rep["chunks_embedded"] == 0
    assert result["heavy"] == [], f"an unchanged index imported {result['heavy']}"
    assert not result["write_lane"], "index imported sqlite_utils: the store's writes need only sqlite3"


def test_identity_from_files_equals_loaded_model(tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.models.identity import bi_encoder_identity

    ident = bi_encoder_identity(str(tiny_bi_encoder_dir), pooling="mean")
    assert (ident.fingerprint, ident.dim, ident.max_seq_length) == (
        tiny_encoder.fingerprint, tiny_encoder.dim, tiny_encoder.max_seq_length)


def test_identity_of_packaged_model_equals_loaded_model(packaged_encoder):
    from searchapp.models.identity import bi_encoder_identity

    ident = bi_encoder_identity("all-MiniLM-L6-v2", pooling="mean")
    assert (ident.fingerprint, ident.dim, ident.max_seq_length) == (
        packaged_encoder.fingerprint, packaged_encoder.dim, packaged_encoder.max_seq_length)


def test_hybrid_search_imports_no_torch_and_matches_in_process(tiny_library, tiny_encoder, capsys):
    result, out, err = run_fresh("--data-dir", str(tiny_library), "search", "orthodontist Tuesday", "--json",
                                 "--no-rerank")
    assert result["code"] == 0, err
    fresh = json.loads(out.splitlines()[0])
    assert result["heavy"] == [], f"a cold hybrid search imported {result['heavy']}"
    # The same query through the loaded torch encoder gives the same hits and cosines.
    with Library(load_config(tiny_library, env={}), encoder=tiny_encoder) as lib:
        res = lib.search("orthodontist Tuesday", rerank=False)
    assert [h["path"] for h in fresh["hits"]] == [h.path for h in res.hits]
    assert [h["scores"]["dense"] for h in fresh["hits"]] == pytest.approx([h.scores.dense for h in res.hits], abs=1e-4)


def test_unsupported_pooling_falls_back(tiny_bi_encoder_dir):
    from searchapp.models.query_encoder import load_query_encoder

    assert load_query_encoder(tiny_bi_encoder_dir, pooling="wk", max_seq_length=128) is None
