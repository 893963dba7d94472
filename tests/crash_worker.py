"""A fork server for the crash tests: imports torch and loads the encoder once, then forks one child per
`run` line on stdin. Each child opens the library itself (no SQLite handle crosses the fork) and syncs,
mutates the corpus, and syncs again until the test SIGKILLs it.

Why fork: a fresh interpreter spends ~4 s importing torch and transformers, which would make twenty
kills cost minutes; the code under test runs in the child exactly as in a normal process.

Usage: python crash_worker.py MODEL_DIR DATA_DIR CORPUS_DIR
Protocol (stdout lines): "loaded" once; per `run`: "ready PID" when the child has opened the library,
"exit PID STATUS" when it is gone (STATUS is os.waitpid's raw status).
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ["HF_HUB_OFFLINE"] = "1"

import torch

# One intra-op thread: no OpenMP pool exists at fork time, so children cannot inherit a dead one.
torch.set_num_threads(1)

from searchapp.base.config import load_config  # noqa: E402
from searchapp.library import Library  # noqa: E402
from searchapp.library.sync import words_pass as sync_module  # noqa: E402
from searchapp.models import BiEncoder  # noqa: E402

WORDS = ("apple river mountain engine violin harbor glacier lantern copper meadow falcon orbit pepper "
         "canyon thunder marble saddle compass velvet harvest quartz beacon tundra walnut").split()


def config(model_dir: str, data_dir: str):
    return load_config(Path(data_dir), env={}, overrides={
        "models": {"bi_encoder": model_dir, "precision": "fp32", "device": "cpu", "reranker": "", "threads": 1}})


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."


def document(rng: random.Random) -> str:
    return "\n\n".join(" ".join(sentence(rng) for _ in range(rng.randint(2, 8))) for _ in range(rng.randint(1, 4)))


def mutate(corpus: Path, rng: random.Random) -> None:
    """One random change of the kind a user makes: add, edit, delete, rename, empty or binary file."""
    files = sorted(p for p in corpus.iterdir() if p.is_file())
    op = rng.random()
    if len(files) < 60 or op < 0.25:
        (corpus / f"new-{rng.getrandbits(40):x}.txt").write_text(document(rng), encoding="utf-8")
    elif len(files) > 100 or op < 0.40:
        rng.choice(files).unlink()
    elif op < 0.70:
        with open(rng.choice(files), "a", encoding="utf-8") as fh:
            fh.write("\n\n" + document(rng))
    elif op < 0.85:
        src = rng.choice(files)
        src.rename(corpus / f"moved-{rng.getrandbits(40):x}.txt")
    elif op < 0.92:
        rng.choice(files).write_bytes(b"")
    else:
        rng.choice(files).write_bytes(bytes(range(256)) * 8)  # binary behind .txt


def child(encoder: BiEncoder, model_dir: str, data_dir: str, corpus: Path) -> None:
    sync_module.BATCH_FILES = 8  # many small commits: many commit/index-update/save windows to die in
    sync_module.BATCH_CHUNKS = 16  # phase 2 (meaning) too embeds and commits in many small batches
    rng = random.Random(os.getpid())
    lib = Library(config(model_dir, data_dir), encoder=encoder)
    print(f"ready {os.getpid()}", flush=True)
    if not lib.store.roots():
        lib.add_folder(corpus)
    while True:
        roll = rng.random()
        if roll < 0.05:
            lib.remove_folder(corpus)  # removal and the compaction it triggers are crash windows too
            lib.add_folder(corpus)
        else:
            for _ in range(rng.randint(1, 6)):
                mutate(corpus, rng)
            # Now and then words only: the next sync's phase 2 starts with a backlog (kills land in it).
            lib.sync(embed=rng.random() > 0.2)


def main() -> None:
    model_dir, data_dir, corpus = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    encoder = BiEncoder(model_dir, device="cpu", precision="fp32", threads=1)
    print("loaded", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        pid = os.fork()
        if pid == 0:
            try:
                child(encoder, model_dir, data_dir, corpus)
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print(f"exit {pid} {status}", flush=True)


if __name__ == "__main__":
    main()
