"""The CUDA figures, against sentence-transformers on the same GPU in the same run: passages/s of the bi-encoder
(what a sync's embedding step does with chunk-sized passages) and rerank-50 latency of a MiniLM-sized
cross-encoder (50 chunk-sized candidates for one query, one call as a search makes it).

    python tests/benchmarks/bench_cuda.py --model DIR [--passages 20000] [--repeats 60] [--sync-files 4000]

DIR: a sentence-transformers folder of the bi-encoder (the packaged all-MiniLM-L6-v2; its weights may be stored
in fp16 to fit what travels to a GPU machine: both sides load the same file). Passages are built from this
repository's README and docs/ pages (chunk-sized: ~200 word pieces; the README alone until the docs split), so nothing beyond the repository is needed there. The
cross-encoder is BertForSequenceClassification made from DIR with a fresh one-logit head: no trained
cross-encoder ships, and its latency is that of any MiniLM-L6 reranker; its scores mean nothing. The rerank rows
time searchapp's CUDA-graph forward, its transformers forward (graphs=False) and sentence-transformers' CrossEncoder,
interleaved call by call. The sync row is a whole `add_folder` of --sync-files text files (the words pass with the
meaning pass beside it on the GPU; --split adds words alone, then meaning alone), against sentence-transformers
encoding the same passages. One JSON line per result,
with the GPU's name and torch's version.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from _common import emit as _emit

REPO = Path(__file__).resolve().parents[2]
# SEARCHAPP_BENCH_TREE: another tree's root (e.g. `git archive` of an older commit) to time the same way. Else
# this checkout, also kept: the GPU machine runs a copy of the tree with no editable install of searchapp.
sys.path.insert(0, os.environ.get("SEARCHAPP_BENCH_TREE") or str(REPO))


def emit(**row) -> None:
    import torch

    gpu = torch.cuda.get_device_name(0) if DEVICE == "cuda" and torch.cuda.is_available() else "cpu"
    _emit(bench="cuda", **row, gpu=gpu, torch=torch.__version__)


def passages(n: int) -> list[str]:
    """n chunk-sized passages (~150 words) cut from the README's and docs/' prose, rotated so no two are the same."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])
    words = re.findall(r"[A-Za-z][A-Za-z'-]+|\d+", text)
    out, size = [], 150
    for i in range(n):
        start = (i * 37) % max(1, len(words) - size)
        out.append(" ".join(words[start:start + size]))
    return out


DEVICE = "cuda"  # --device cpu: a smoke run of this script where there is no GPU
PROFILE = False  # --profile
BATCH = 128  # --batch: searchapp's passages per forward (CUDA uses at least 128)
PEER = True  # --no-peer: the sync row without sentence-transformers' encode (timed in another run)


def synced(fn):
    import torch

    if DEVICE == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = fn()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - t0


def bench_passages(model_dir: Path, texts: list[str]) -> None:
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from searchapp.models import BiEncoder

    ours = BiEncoder(str(model_dir), device=DEVICE, precision="auto", batch_size=BATCH)
    ours.encode(texts[:512])  # warm-up: kernels, allocator
    ours_v, ours_s = synced(lambda: ours.encode(texts))
    if PROFILE:  # where searchapp's time goes, once more under cProfile (stderr)
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        synced(lambda: ours.encode(texts))
        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(18)
    peer = SentenceTransformer(str(model_dir), device=DEVICE)
    peer.encode(texts[:512], batch_size=128)
    peer_v, peer_s = synced(lambda: peer.encode(texts, batch_size=128, normalize_embeddings=True))
    peer16 = SentenceTransformer(str(model_dir), device=DEVICE,
                                 model_kwargs={"torch_dtype": torch.float16 if DEVICE == "cuda" else torch.bfloat16})
    peer16.encode(texts[:512], batch_size=128)
    _, peer16_s = synced(lambda: peer16.encode(texts, batch_size=128, normalize_embeddings=True))
    cos = (np.asarray(ours_v, dtype=np.float32) * np.asarray(peer_v, dtype=np.float32)).sum(1)
    emit(result="passages", n=len(texts), batch=BATCH, searchapp_dtype=str(ours.dtype), searchapp_per_s=round(len(texts) / ours_s),
         st_fp32_per_s=round(len(texts) / peer_s), st_fp16_per_s=round(len(texts) / peer16_s),
         ratio_vs_st_fp32=round(peer_s / ours_s, 2), ratio_vs_st_fp16=round(peer16_s / ours_s, 2),
         min_cosine_to_st_fp32=round(float(cos.min()), 5), goal_per_s=3000)


def cross_encoder_folder(model_dir: Path, into: Path) -> Path:
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(0)
    model = BertForSequenceClassification.from_pretrained(str(model_dir), num_labels=1)
    model.save_pretrained(str(into), safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        if (model_dir / name).exists():
            shutil.copy(model_dir / name, into / name)
    return into


def bench_rerank(model_dir: Path, texts: list[str], repeats: int) -> None:
    import numpy as np
    from sentence_transformers import CrossEncoder as PeerCrossEncoder

    from searchapp.models import CrossEncoder

    with tempfile.TemporaryDirectory() as tmp:
        folder = cross_encoder_folder(model_dir, Path(tmp))
        ours = CrossEncoder(str(folder), device=DEVICE, precision="auto")
        plain = CrossEncoder(str(folder), device=DEVICE, precision="auto", graphs=False)
        peer = PeerCrossEncoder(str(folder), device=DEVICE, max_length=ours.max_length)
        query = "how does the library keep a search fast while a folder is being indexed"
        calls = {"searchapp": lambda c: ours.score(query, c), "searchapp_transformers": lambda c: plain.score(query, c),
                 "st_fp32": lambda c: peer.predict([(query, p) for p in c], batch_size=64)}
        rows: dict[str, list[float]] = {k: [] for k in calls}
        for fn in calls.values():
            for _ in range(5):
                fn(texts[:50])
        for r in range(repeats):  # interleaved, order rotated: all see the same clocks
            cands = texts[r * 50 % (len(texts) - 50):][:50]
            names = list(calls)
            for name in names[r % 3:] + names[:r % 3]:
                _, s = synced(lambda fn=calls[name], cands=cands: fn(cands))
                rows[name].append(s * 1000)
        diff = float(np.abs(ours.score(query, texts[:50]) - plain.score(query, texts[:50])).max())
        if PROFILE:  # where a rerank call's time goes: host (tokenizing, collating) against the forward (stderr)
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            for r in range(20):
                synced(lambda r=r: ours.score(query, texts[r * 50:][:50]))
            prof.disable()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(14)
        q = {k: (statistics.median(v), sorted(v)[int(0.95 * (len(v) - 1))]) for k, v in rows.items()}
        emit(result="rerank", candidates=50, repeats=repeats, max_length=ours.max_length, path=ours.path,
             searchapp_dtype=str(ours.dtype), searchapp_p50_ms=round(q["searchapp"][0], 2),
             searchapp_p95_ms=round(q["searchapp"][1], 2),
             transformers_forward_p50_ms=round(q["searchapp_transformers"][0], 2),
             transformers_forward_p95_ms=round(q["searchapp_transformers"][1], 2),
             st_fp32_p50_ms=round(q["st_fp32"][0], 2), st_fp32_p95_ms=round(q["st_fp32"][1], 2),
             ratio_vs_st_p50=round(q["st_fp32"][0] / q["searchapp"][0], 2),
             max_logit_diff_graphs_vs_transformers=round(diff, 4), goal_p50_ms=10)


def bench_sync(model_dir: Path, files: int, split: bool) -> None:
    """A whole sync on the GPU: `files` text files (three chunk-sized passages each) through one add_folder, as a
    person's first index runs (words and meaning; beside each other where the tree has that); with `split`, also
    words alone (embed=False) and then meaning alone in a second library. sentence-transformers encodes the same
    passages after. Run it with PYTHONPATH at another tree to time that tree's sync the same way."""
    import numpy as np  # noqa: F401 - imported by the peer anyway; keeps the timing free of it
    import torch
    from sentence_transformers import SentenceTransformer

    import searchapp
    from searchapp.base.config import load_config
    from searchapp.library import Library

    def cuda_synced() -> None:
        if DEVICE == "cuda":
            torch.cuda.synchronize()

    with tempfile.TemporaryDirectory(prefix="bench-cuda-sync-") as tmp:
        folder = Path(tmp) / "files"
        folder.mkdir()
        texts = passages(files * 3)
        for f in range(files):
            (folder / f"note-{f:05d}.txt").write_text("\n\n".join(texts[f * 3:f * 3 + 3]) + "\n", encoding="utf-8")
        overrides = {"models": {"device": DEVICE, "bi_encoder": str(model_dir)}}
        row: dict = {}
        with Library(load_config(Path(tmp) / "lib", env={}, overrides=overrides)) as lib:
            lib.models.passage_encoder().encode(["load the model before the clock starts"])
            # The library's one-off ONNX export for queries (after its first sync, once per model): timed apart.
            t0 = time.perf_counter()
            lib.models.prepare_query_path()
            row["query_export_once_s"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            if PROFILE:  # where the sync's time goes on this host (stderr)
                import cProfile
                import pstats

                prof = cProfile.Profile()
                prof.enable()
            rep = lib.add_folder(folder)
            cuda_synced()
            whole_s = time.perf_counter() - t0
            if PROFILE:
                prof.disable()
                pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(20)
            st = lib.status()
            stored = [r[0] for r in lib.store.conn.execute("SELECT text FROM chunks ORDER BY id")]
            whole_vecs = stored_vectors(lib)
        n = len(stored)
        row.update(whole_s=round(whole_s, 2), whole_passages_per_s=round(n / whole_s),
                   embedded=getattr(st, "embedded", None), chunks_embedded=rep.chunks_embedded)
        if split:
            with Library(load_config(Path(tmp) / "lib2", env={}, overrides=overrides)) as lib:
                lib.models.passage_encoder().encode(["load the model before the clock starts"])
                t0 = time.perf_counter()
                lib.add_folder(folder, embed=False)
                words_s = time.perf_counter() - t0
                t1 = time.perf_counter()
                lib.add_folder(folder)
                cuda_synced()
                meaning_s = time.perf_counter() - t1
                split_vecs = stored_vectors(lib)
            assert whole_vecs.keys() == split_vecs.keys()
            row.update(words_s=round(words_s, 2), meaning_s=round(meaning_s, 2),
                       meaning_passages_per_s=round(n / meaning_s),
                       min_cosine_whole_vs_split=round(min(float(v @ split_vecs[k]) for k, v in whole_vecs.items()), 5))
        if not PEER:
            emit(result="sync", tree=str(Path(searchapp.__file__).parent.parent), files=files, passages=n, **row,
                 beside=os.environ.get("SEARCHAPP_MEANING_BESIDE_WORDS", "default"), goal_per_s=3000,
                 host_cores=os.cpu_count())
            return
        peer = SentenceTransformer(str(model_dir), device=DEVICE)
        peer.encode(stored[:512], batch_size=128)
        _, peer_s = synced(lambda: peer.encode(stored, batch_size=128, normalize_embeddings=True))
        emit(result="sync", tree=str(Path(searchapp.__file__).parent.parent), files=files, passages=n, **row,
             beside=os.environ.get("SEARCHAPP_MEANING_BESIDE_WORDS", "default"),
             st_fp32_encode_only_per_s=round(n / peer_s), ratio_whole_vs_st_encode_only=round(peer_s / whole_s, 2),
             goal_per_s=3000, host_cores=os.cpu_count())


def stored_vectors(lib) -> dict:
    """(file path, ordinal) -> the stored float32 vector of every passage of `lib`."""
    import numpy as np

    rows = lib.store.conn.execute("SELECT f.path, c.ordinal, c.vector FROM chunks c JOIN files f ON f.id = c.file_id")
    return {(p, o): np.frombuffer(v, dtype=np.float32) for p, o, v in rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--passages", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=60)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--profile", action="store_true", help="cProfile one more searchapp encode (stderr)")
    ap.add_argument("--skip-rerank", action="store_true")
    ap.add_argument("--skip-passages", action="store_true")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--sync-files", type=int, default=0, help="also time a whole sync of this many text files")
    ap.add_argument("--split", action="store_true", help="with --sync-files: also words alone, then meaning alone")
    ap.add_argument("--no-peer", action="store_true", help="with --sync-files: no sentence-transformers row")
    args = ap.parse_args()
    import torch

    global DEVICE, PROFILE, BATCH, PEER
    DEVICE, PROFILE, BATCH, PEER = args.device, args.profile, args.batch, not args.no_peer
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"bench": "cuda", "skipped": "no CUDA device"}))
        return
    texts = passages(args.passages)
    if not args.skip_passages:
        bench_passages(Path(args.model), texts)
    if DEVICE == "cuda":
        torch.cuda.empty_cache()  # the three encoders of bench_passages are gone with its frame
    if not args.skip_rerank:
        bench_rerank(Path(args.model), texts, args.repeats)
    if args.sync_files:
        bench_sync(Path(args.model), args.sync_files, args.split)


if __name__ == "__main__":
    main()
