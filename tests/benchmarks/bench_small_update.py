"""One edited note: `searchapp index FOLDER` after a person saved one file, as the person waits (a fresh process from
start to exit), with the small meaning pass embedded by the query path (decision 0164: no torch) against the same
command with the bi-encoder loaded as before (load ahead at the first chunking, torch fp32), interleaved round by
round on the same library (a shared machine's load falls on both alike).

    python tests/benchmarks/bench_small_update.py [--files 50] [--rounds 5]

The folder: `--files` SciFact abstracts (title + text), one per file, indexed once with meaning before the clock.
Each round appends one new sentence to one file and runs the command twice, once each way, in the order lean, model
or model, lean (alternating), each after its own edit, so each run re-embeds the same few passages. Per run:
`seconds` (start to exit), `cpu_s` (its own and its children's), `peak_rss_mb`, `embedded` (passages the run
embedded), `torch` (whether torch was imported). Then one `small_update` line per way with the medians and the
lean/model ratios. The packaged MiniLM, CPU only; one JSON line a result, with the CPU's flags and load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import emit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_words_first import CORPUS, LAST_CPU_S, command_env, timed_process

# The command run in a fresh interpreter; "model" puts back the behaviour before decision 0164 (no lean pass; the
# model's load starts at the sync's first batch that leaves a passage waiting) by setting the two thresholds to zero.
RUNNER = """
import json, sys
way, argv = sys.argv[1], sys.argv[2:]
if way == "model":
    from searchapp.library.resources import sync_encoder
    sync_encoder.LEAN_PASSAGES = 0
    sync_encoder.LOAD_AHEAD_CHARS = 0
from searchapp.cli.main import main
code = main(argv)
print("@@" + json.dumps({"torch": "torch" in sys.modules}), flush=True)
sys.exit(code)
"""


def write_files(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True)
    paths = []
    with CORPUS.open(encoding="utf-8") as lines:
        for i, line in enumerate(lines):
            if i >= n:
                break
            doc = json.loads(line)
            path = folder / f"{i:05d}.txt"
            path.write_text(f"{doc.get('title', '')}\n\n{doc['text']}\n", encoding="utf-8")
            paths.append(path)
    return paths


def run(way: str, data: Path, folder: Path, env: dict[str, str]) -> dict:
    argv = [sys.executable, "-c", RUNNER, way, "--data-dir", str(data), "index", "--json", str(folder)]
    seconds, rss, code, out = timed_process(argv, env)
    if code != 0:
        raise SystemExit(f"index ({way}) failed ({code}): {out[-2000:]}")
    report = json.loads(out.splitlines()[0])
    marker = json.loads(next(line for line in out.splitlines() if line.startswith("@@"))[2:])
    return {"way": way, "seconds": round(seconds, 2), "cpu_s": round(LAST_CPU_S[0], 2), "peak_rss_mb": round(rss),
            "embedded": report["chunks_embedded"], "torch": marker["torch"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = command_env(str(Path(__file__).resolve().parents[2]), tmp)
        env["HF_HUB_OFFLINE"] = "1"
        env["SEARCHAPP_NO_QUERY_EXPORT"] = "1"  # the export a first torch sync leaves: not what an edit waits for
        folder, data = tmp / "notes", tmp / "lib"
        paths = write_files(folder, args.files)
        run("model", data, folder, env)  # the library, embedded once (and every module's bytecode written)
        runs: dict[str, list[dict]] = {"lean": [], "model": []}
        for r in range(args.rounds):
            for way in (("lean", "model") if r % 2 == 0 else ("model", "lean")):
                edited = paths[(2 * r + (way == "model")) % len(paths)]
                with edited.open("a", encoding="utf-8") as f:
                    f.write(f"\nEdited in round {r}: the {way} run reads this sentence about sea ice and krill.\n")
                got = run(way, data, folder, env)
                runs[way].append(got)
                emit({"bench": "small_update", "result": "run", "round": r, **got}, add_cpu_note=True)
        medians = {way: {k: statistics.median(x[k] for x in got) for k in ("seconds", "cpu_s", "peak_rss_mb")}
                   for way, got in runs.items()}
        for way, med in medians.items():
            emit({"bench": "small_update", "result": "median", "way": way, "files": args.files, "rounds": args.rounds,
                  **med, "torch_imported": any(x["torch"] for x in runs[way])}, add_cpu_note=True)
        lean, model = medians["lean"], medians["model"]
        emit({"bench": "small_update", "result": "ratio", "seconds_lean_over_model": round(lean["seconds"] / model["seconds"], 2),
              "cpu_lean_over_model": round(lean["cpu_s"] / model["cpu_s"], 2),
              "rss_lean_over_model": round(lean["peak_rss_mb"] / model["peak_rss_mb"], 2)}, add_cpu_note=True)


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
