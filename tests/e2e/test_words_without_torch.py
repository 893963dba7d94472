"""Searchable by words at the command line: `index --words-only` of new files, then `status`, `explain`, a lexical
`search`, `history`, `saved` and `remove`, in fresh interpreters, never import torch or transformers (the
words pass chunks with the model folder's tokenizer.json alone; issue 45), nor the HEIC plugin (no HEIC file);
nor what only other commands use: the other commands' modules (each command parses with its own group's parser:
cli/parser.parse_command_line), the search pipeline, the explain report (issue 45's one-file start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# pillow_heif too: the scan asks which image suffixes OCR reads, and importing the plugin to answer cost every
# command ~50 ms (images.py looks it up instead, and imports it at the first HEIC file read)
# sqlite_utils too: the store writes through its own execute/atomic (decision 0126); sqlite-utils' import (click,
# dateutil, pluggy) cost every writing command 0.2-0.3 CPU-s. huggingface_hub: the cache is read without it (0127).
HEAVY = ("torch", "transformers", "pillow_heif", "sqlite_utils", "huggingface_hub")
_COMMANDS = ("config", "discover", "evaluate", "gui", "index", "maintain", "models", "saved", "search", "status",
             "train_eval", "watch")
PIPELINE, EXPLAIN = "searchapp.library.search.pipeline", "searchapp.library.report.explain"


def _others(*own: str) -> tuple[str, ...]:
    return tuple(f"searchapp.cli.commands.{c}" for c in _COMMANDS if c not in own)


# Per command word: what it must not import besides HEAVY (what issue 45 took off its path).
NOT_ON_PATH = {"index": _others("index") + (PIPELINE, EXPLAIN), "status": _others("status") + (PIPELINE, EXPLAIN),
               "explain": _others("status") + (PIPELINE,), "search": _others("search") + (EXPLAIN,),
               "history": _others("saved") + (PIPELINE, EXPLAIN), "saved": _others("saved") + (EXPLAIN,),
               "remove": _others("maintain") + (PIPELINE, EXPLAIN)}
WATCHED = HEAVY + tuple(sorted({m for ms in NOT_ON_PATH.values() for m in ms}))

# The CLI in a fresh interpreter, one command line after another; after each, which watched modules were
# imported before it and after it.
RUNNER = """
import json, sys
from searchapp.cli.main import main
for argv in json.loads(sys.argv[1]):
    before = [m for m in %r if m in sys.modules]
    code = main(argv)
    print("@@" + json.dumps({"code": code, "before": before, "loaded": [m for m in %r if m in sys.modules]}),
          flush=True)
""" % (WATCHED, WATCHED)


def run_fresh(data: Path, *commands: tuple[str, ...]) -> tuple[list[dict], str, str]:
    """`commands` one after another in one fresh interpreter (a Python start each was most of this test's CPU):
    the first is checked as in a fresh interpreter; a later one only where the ones before it imported nothing it
    must not import (asserted: otherwise its check would be blind), so each check is whole."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), "HF_HUB_OFFLINE": "1"}
    argvs = [["--data-dir", str(data), *argv] for argv in commands]
    proc = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(argvs)], capture_output=True, text=True, env=env,
                          timeout=300)
    markers = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    assert len(markers) == len(commands), proc.stderr
    results = []
    for argv, marker in zip(commands, markers, strict=True):
        result = json.loads(marker[2:])
        forbidden = HEAVY + NOT_ON_PATH[argv[0]]
        assert not [m for m in result["before"] if m in forbidden], (argv, result["before"])
        result["heavy"] = [m for m in result["loaded"] if m in forbidden]
        results.append(result)
    return results, proc.stdout, proc.stderr


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

    [result], out, err = run_fresh(data, ("index", "--words-only", "--json", str(docs)))
    assert result["code"] == 0, err
    rep = json.loads(out.splitlines()[0])
    assert rep["added"] == 2 and rep["chunks_added"] > 2 and rep["chunks_embedded"] == 0
    assert result["heavy"] == [], f"index --words-only imported {result['heavy']}"

    # Sharing an interpreter where the first imports nothing the second must not (status's module is explain's,
    # saved's is history's); the others import their own command's module, which the rest must not: alone.
    for commands in ((("status",), ("explain", str(docs / "ocelot.txt"))),
                     (("search", "ocelot", "--mode", "lexical", "--json"),), (("history", "list"), ("saved", "list")),
                     (("remove", *_without_asking(), str(docs)),)):
        results, out, err = run_fresh(data, *commands)
        for argv, result in zip(commands, results, strict=True):
            assert result["code"] == 0, f"{argv}: {err}"
            assert result["heavy"] == [], f"{' '.join(argv)} imported {result['heavy']}"
        if commands[0][0] == "search":
            hits = json.loads(out.splitlines()[0])["hits"]
            assert hits and hits[0]["path"].endswith("ocelot.txt")


def test_a_small_meaning_pass_imports_no_torch(tmp_path, tiny_bi_encoder_dir):
    """`index` of a few new or edited passages embeds them by the query path (NumPy here), in a fresh interpreter:
    no torch, no transformers, and every passage has its vector after (decision 0164)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    note = docs / "ocelot.txt"
    note.write_text("Ocelot notes\n\nThe ocelot sleeps in the afternoon sun by the river.\n", encoding="utf-8")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")
    [first], out, err = run_fresh(data, ("index", "--json", str(docs)))
    assert first["code"] == 0, err
    assert json.loads(out.splitlines()[0])["chunks_embedded"] > 0
    assert first["heavy"] == [], f"index of one small file imported {first['heavy']}"

    note.write_text(note.read_text(encoding="utf-8") + "\nLater: a margay climbs down the fig tree head first.\n",
                    encoding="utf-8")
    [edited], out, err = run_fresh(data, ("index", "--json", str(docs)))
    assert edited["code"] == 0, err
    report = json.loads(out.splitlines()[0])
    assert report["updated"] == 1 and report["chunks_embedded"] >= 1
    assert edited["heavy"] == [], f"index of one edited file imported {edited['heavy']}"
    [status], out, err = run_fresh(data, ("status", "--json"))
    state = json.loads(out.splitlines()[0])
    assert state["vectors"] == state["chunks"] > 0 and state["meaning"]["percent"] == 100
