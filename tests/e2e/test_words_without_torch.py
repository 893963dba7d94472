"""Searchable by words at the command line: `index --words-only` of new files, then `status`, `explain`, a lexical
`search`, `history`, `saved` and `remove`, each in a fresh interpreter, never import torch or transformers (the
words pass chunks with the model folder's tokenizer.json alone; issue 45), nor the HEIC plugin (no HEIC file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# pillow_heif too: the scan asks which image suffixes OCR reads, and importing the plugin to answer cost every
# command ~50 ms (images.py looks it up instead, and imports it at the first HEIC file read)
HEAVY = ("torch", "transformers", "pillow_heif")

# The CLI in a fresh interpreter, then which heavy modules it left imported.
RUNNER = """
import json, sys
from searchapp.cli.main import main
code = main(sys.argv[1:])
print("@@" + json.dumps({"code": code, "heavy": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def run_fresh(data: Path, *argv: str) -> tuple[dict, str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", RUNNER, "--data-dir", str(data), *argv], capture_output=True,
                          text=True, env=env, timeout=300)
    marker = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    assert marker, proc.stderr
    return json.loads(marker[-1][2:]), proc.stdout, proc.stderr


def _without_asking() -> tuple[str, ...]:
    """`remove` asks on a terminal first; where it has --yes, the test says it (none asks otherwise)."""
    from searchapp.cli.parser import build_parser

    try:
        build_parser().parse_args(["remove", "--yes", "x"])
    except SystemExit:
        return ()
    return ("--yes",)


def test_words_pass_and_reading_commands_import_no_torch(tmp_path, tiny_bi_encoder_dir):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ocelot.txt").write_text("Ocelot notes\n\nThe ocelot sleeps in the afternoon sun by the river.\n",
                                     encoding="utf-8")
    (docs / "cafe.md").write_text("# Café\n\nNaïve façades and 東京の喫茶店 near Straßenbahnhaltestellen.\n" * 40,
                                  encoding="utf-8")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")

    result, out, err = run_fresh(data, "index", "--words-only", "--json", str(docs))
    assert result["code"] == 0, err
    rep = json.loads(out.splitlines()[0])
    assert rep["added"] == 2 and rep["chunks_added"] > 2 and rep["chunks_embedded"] == 0
    assert result["heavy"] == [], f"index --words-only imported {result['heavy']}"

    for argv in (("status",), ("explain", str(docs / "ocelot.txt")),
                 ("search", "ocelot", "--mode", "lexical", "--json"), ("history", "list"), ("saved", "list"),
                 ("remove", *_without_asking(), str(docs))):
        result, out, err = run_fresh(data, *argv)
        assert result["code"] == 0, f"{argv}: {err}"
        assert result["heavy"] == [], f"{' '.join(argv)} imported {result['heavy']}"
        if argv[0] == "search":
            hits = json.loads(out.splitlines()[0])["hits"]
            assert hits and hits[0]["path"].endswith("ocelot.txt")
