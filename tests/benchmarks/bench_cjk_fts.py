"""What the CJK bigram table (store/cjk.py, migration 2) costs when writing passages, and what a CJK
lexical query costs, against the same store with the CJK triggers dropped (the peer, same run).

    python tests/benchmarks/bench_cjk_fts.py [--n 5000] [--repeat 3]

Passages are ~800 characters (what 200 word pieces make): English, and Chinese/Japanese mixed in at
`--cjk-share`. Prints one JSON line per result with the ratio to the peer.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from searchapp.store import NewChunk, Store

EN = ("The committee reviewed the annual budget and agreed to fund the new library wing, "
      "while the river authority warned of spring floods along the lower valley. ")
ZH = "北京是中华人民共和国的首都，也是全国的政治和文化中心。今天的天气很好，我们去公园散步吧。"
JA = "東京は日本の首都であり、世界有数の大都市です。明日の天気は雨の予報なので、傘を持って出かけてください。"


def passages(n: int, cjk_share: float, seed: int = 0) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        if rnd.random() < cjk_share:
            base = (ZH if i % 2 else JA) * 8
        else:
            base = EN * 5
        out.append(f"{i} {base}"[:800])
    return out


def write(store: Store, texts: list[str]) -> float:
    vec = np.zeros(4, np.float32)
    t0 = time.perf_counter()
    with store.atomic():
        store.upsert_file(1, "/r/f.txt", 1, 1, None, "indexed", None, "text", len(texts))
        store.insert_chunks(1, [NewChunk(i, 0, len(t), None, t, f"h{i}", vec) for i, t in enumerate(texts)])
    return time.perf_counter() - t0


def run(n: int, share: float, with_cjk: bool, folder: Path) -> dict:
    store = Store(folder / f"{with_cjk}-{share}.sqlite")
    store.add_root("/r")
    if not with_cjk:
        for trig in ("chunks_cjk_ai", "chunks_cjk_ad", "chunks_cjk_au"):
            store.conn.execute(f"DROP TRIGGER {trig}")
    seconds = write(store, passages(n, share))
    t0 = time.perf_counter()
    for q in ("天气", "首都", "天気 予報", "budget floods"):
        store.search_lexical(q, 50)
    query_ms = (time.perf_counter() - t0) * 1000 / 4
    store.close()
    return {"write_s": seconds, "query_ms": query_ms}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for share in (0.0, 0.5):
        best: dict[bool, dict] = {}
        for _rep in range(args.repeat):
            for with_cjk in (False, True):
                with tempfile.TemporaryDirectory() as d:
                    r = run(args.n, share, with_cjk, Path(d))
                if with_cjk not in best or r["write_s"] < best[with_cjk]["write_s"]:
                    best[with_cjk] = r
        print(json.dumps({"bench": "cjk_fts_write", "passages": args.n, "cjk_share": share,
                          "write_s_with_cjk": round(best[True]["write_s"], 4),
                          "write_s_peer_no_cjk": round(best[False]["write_s"], 4),
                          "ratio_vs_peer": round(best[True]["write_s"] / best[False]["write_s"], 3),
                          "lexical_query_ms_with_cjk": round(best[True]["query_ms"], 3),
                          "lexical_query_ms_peer": round(best[False]["query_ms"], 3)}), flush=True)


if __name__ == "__main__":
    main()
