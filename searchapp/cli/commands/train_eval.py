"""`searchapp train bi-encoder|cross-encoder` and `searchapp eval sts|rerank|ann`: parse, call, print.

`train` registers itself here; the `eval` parser (evaluate.py) adds the kinds defined here beside `ir`. Nothing here imports torch at module level: the CLI
starts fast, and a command loads the models it needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ...base.config import Config
from ...base.progress import Progress
from ..progress import TerminalProgress

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ...models import BiEncoder

__all__ = ["register", "add_eval_parsers", "add_ir_options", "model_overrides", "cmd_train", "cmd_eval",
           "TrainProgress", "EVAL_KINDS"]

EVAL_KINDS = ("sts", "rerank", "ann")
POOLINGS = ("mean", "cls", "max", "wk")


# -- parsers -----------------------------------------------------------------
def _training_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("optimization (Sentence-BERT defaults)")
    g.add_argument("--batch-size", type=int, default=16, help="examples per step (default 16)")
    g.add_argument("--lr", type=float, default=2e-5, help="peak AdamW learning rate (default 2e-5)")
    g.add_argument("--epochs", type=int, default=1, help="passes over the data (default 1)")
    g.add_argument("--warmup", type=float, default=0.1, help="share of steps with linear warm-up (default 0.1)")
    g.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    g.add_argument("--max-examples", type=int, help="train on a seeded random subset of N examples")
    g.add_argument("--max-steps", type=int, help="stop after N steps")
    g.add_argument("--max-seq-length", type=int, help="word pieces per text (default: the model's, else 256)")
    g.add_argument("--precision", choices=["auto", "fp32", "bf16", "fp16"], default="auto",
                   help="auto: bf16 autocast on CPUs where bf16 is native and faster, fp16 + loss scaling on CUDA, else fp32")
    p.add_argument("--output", "-o", required=True, metavar="DIR", help="where the trained model folder goes")
    p.add_argument("--overwrite", action="store_true", help="replace DIR if it exists")
    p.add_argument("--split", default="test", help="qrels split of BEIR folders (qrels/<split>.tsv)")
    p.add_argument("--negatives", type=int, help="mined negatives per judged pair (BEIR folders)")
    p.add_argument("--negative-pool", type=int, default=30,
                   help="mined negatives are drawn from this many top documents not judged relevant (default 30)")
    p.add_argument("--miner", metavar="MODEL", help="bi-encoder that mines negatives (default: models.bi_encoder)")
    p.add_argument("--json", action="store_true", help="print the training summary as JSON")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("train", help="fine-tune a bi-encoder or train a cross-encoder on your pairs")
    s.set_defaults(handler=cmd_train)
    tr = s.add_subparsers(dest="train_command", metavar="KIND")
    b = tr.add_parser("bi-encoder", help="Sentence-BERT objectives: regression, softmax (NLI), triplet")
    b.add_argument("data", nargs="+", metavar="DATA",
                   help="TSV files (score|label<TAB>s1<TAB>s2, or anchor<TAB>positive<TAB>negative) or BEIR folders")
    b.add_argument("--objective", required=True, choices=["regression", "softmax", "triplet"],
                   help="regression: cosine vs score (MSE); softmax: classes of (u, v, |u-v|); triplet: margin loss")
    b.add_argument("--base", metavar="MODEL", help="model to start from (default: models.bi_encoder)")
    b.add_argument("--pooling", choices=POOLINGS, help="default: the base model's own, else mean")
    b.add_argument("--max-score", type=float, default=5.0, help="regression: gold scores are divided by this (5)")
    b.add_argument("--margin", type=float, default=1.0, help="triplet margin, Euclidean distance (default 1)")
    _training_options(b)
    c = tr.add_parser("cross-encoder", help="a reranker (one label) or a pair classifier (k labels)")
    c.add_argument("data", nargs="+", metavar="DATA",
                   help="TSV files (label<TAB>s1<TAB>s2: 0/1, scores or class names) or BEIR folders")
    c.add_argument("--base", metavar="MODEL", help="encoder to start from (default: models.bi_encoder)")
    c.add_argument("--loss", choices=["auto", "bce", "mse", "ce"], default="auto",
                   help="auto: bce for 0/1, mse for scores, ce for class names")
    c.add_argument("--max-score", type=float, help="mse: scores are divided by this (default: the largest)")
    c.add_argument("--max-length", type=int, default=256, help="word pieces of both texts together (256)")
    c.add_argument("--pos-weight", type=float, help="bce: weight of positives (e.g. the negatives per positive)")
    _training_options(c)


def add_ir_options(e: argparse.ArgumentParser) -> None:
    e.add_argument("--model", metavar="MODEL", help="bi-encoder folder or id (overrides models.bi_encoder)")
    e.add_argument("--pooling", choices=POOLINGS,
                   help="overrides models.pooling (default with --model: the pooling the folder was saved with)")


def add_eval_parsers(ev: Any) -> None:
    e = ev.add_parser("sts", help="Spearman (x100) of cosine similarity against gold scores; Pearson too")
    e.add_argument("file", metavar="FILE", help="score<TAB>sentence1<TAB>sentence2 TSV")
    add_ir_options(e)
    e.add_argument("--json", action="store_true")
    e = ev.add_parser("rerank", help="nDCG@10 / MRR@10 before and after reranking the same candidates")
    e.add_argument("dir", metavar="DIR", help="BEIR folder, or a label<TAB>query<TAB>candidate TSV file")
    add_ir_options(e)
    e.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or id (overrides models.reranker)")
    e.add_argument("--candidates", type=int, default=50, help="BEIR: bi-encoder candidates reranked (50)")
    e.add_argument("--split", default="test", help="qrels split (qrels/<split>.tsv)")
    e.add_argument("--max-queries", type=int, help="evaluate only the first N judged queries")
    e.add_argument("--json", action="store_true")
    e = ev.add_parser("ann", help="recall@k of the library's HNSW index against exact search")
    e.add_argument("--k", type=int, default=10, help="neighbours compared (default 10)")
    e.add_argument("--sample", type=int, default=200, help="stored vectors used as queries (default 200)")
    e.add_argument("--ef", type=int, help="ef_search to measure (default: index.ef_search)")
    e.add_argument("--json", action="store_true")


def model_overrides(args: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
    """--model / --pooling of eval commands into config overrides (train's --base stays out of the config)."""
    model, pooling = getattr(args, "model", None), getattr(args, "pooling", None)
    if getattr(args, "command", None) == "train":
        return overrides
    if model:
        overrides.setdefault("models", {})["bi_encoder"] = model
        if not pooling:
            pooling = _saved_pooling(model)
    if pooling:
        overrides.setdefault("models", {})["pooling"] = pooling
    return overrides


def _saved_pooling(spec: str) -> Optional[str]:
    from ...models.resolve import resolve_model
    from ...training.checkpoint import read_saved_pooling

    try:
        return read_saved_pooling(resolve_model(spec, kind="bi-encoder").path)
    except Exception:  # unresolvable here: the command itself reports it when it loads the model
        return None


# -- progress ----------------------------------------------------------------
class TrainProgress:
    """A bar over training steps with the smoothed loss and tqdm's ETA; other stages as TerminalProgress."""

    def __init__(self, base: TerminalProgress) -> None:
        self.base = base
        self._bar: Any = None  # a tqdm bar (tqdm has no type information)

    def __call__(self, p: Progress) -> None:
        if not self.base.enabled:
            return
        if p.stage != "training":
            if self._bar is None:
                self.base(p)
            return
        from tqdm import tqdm

        if self._bar is None:
            self.base.close()
            self._bar = tqdm(total=p.total, desc="training", unit=" steps", file=sys.stderr, dynamic_ncols=True)
        self._bar.n = p.done
        self._bar.set_postfix_str(p.message, refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        self.base.close()


# -- commands ----------------------------------------------------------------
def cmd_train(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    if args.train_command is None:
        print("searchapp: train needs a kind: `searchapp train bi-encoder ...` or `searchapp train cross-encoder ...`",
              file=sys.stderr)
        return 2
    from ...training import TrainingArgs
    from ...training.checkpoint import check_output

    m = config.models
    targs = TrainingArgs(batch_size=args.batch_size, learning_rate=args.lr, epochs=args.epochs,
                         warmup_ratio=args.warmup, seed=args.seed, device=m.device, precision=args.precision,
                         threads=m.threads, max_seq_length=args.max_seq_length, max_steps=args.max_steps).validate()
    check_output(Path(args.output), args.overwrite)  # before minutes of mining, not after
    base = args.base or m.bi_encoder
    tp = TrainProgress(progress if isinstance(progress, TerminalProgress) else TerminalProgress(False))
    miner_cache: list[BiEncoder] = []

    def miner() -> BiEncoder:
        if not miner_cache:
            from ...models import BiEncoder

            spec = args.miner or m.bi_encoder
            miner_cache.append(BiEncoder(spec, pooling=_saved_pooling(spec) or m.pooling, device=m.device,
                                         precision=m.precision, batch_size=m.batch_size, threads=m.threads))
        return miner_cache[0]

    try:
        paths = [Path(d) for d in args.data]
        if args.train_command == "bi-encoder":
            from ...training import data as D
            from ...training import train_bi_encoder

            if args.objective == "regression":
                data = D.regression_data(paths, args.max_score)
            elif args.objective == "softmax":
                data = D.softmax_data(paths)
            else:
                data = D.triplet_data(paths, miner, negatives=args.negatives or 1, pool=args.negative_pool,
                                      split=args.split, seed=args.seed, progress=tp, cancel=cancel)
            data = data.subsample(args.max_examples, args.seed)
            result = train_bi_encoder(base, args.objective, data, Path(args.output), args=targs, pooling=args.pooling,
                                      margin=args.margin, overwrite=args.overwrite,
                                      progress=tp, cancel=cancel)
        else:
            from ...training import cross_encoder_data, train_cross_encoder

            data = cross_encoder_data(paths, miner, negatives=4 if args.negatives is None else args.negatives,
                                      pool=args.negative_pool, split=args.split, max_score=args.max_score,
                                      seed=args.seed, progress=tp, cancel=cancel)
            data = data.subsample(args.max_examples, args.seed)
            result = train_cross_encoder(base, data, Path(args.output), args=targs, loss=args.loss,
                                         max_length=args.max_length, overwrite=args.overwrite, pos_weight=args.pos_weight,
                                         progress=tp, cancel=cancel)
    finally:
        tp.close()
    if args.json:
        print(json.dumps(result))
        return 0
    st = result["stats"]
    print(f"trained {result['kind']} on {result['examples']} examples: {st['steps']} steps in {st['seconds']:.0f} s "
          f"({st['precision']} on {st['device']}), loss {st['loss_first']:.4f} -> {st['loss_last']:.4f}")
    use = "--model" if result["kind"] == "bi-encoder" else "--reranker"
    print(f"saved to {result['output']} (use it with {use} {result['output']})")
    return 0


def cmd_eval(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    kind = args.eval_command
    try:
        if kind == "sts":
            result = _eval_sts(args, config, progress, cancel)
        elif kind == "rerank":
            result = _eval_rerank(args, config, progress, cancel)
        elif kind == "ann":
            result = _eval_ann(args, config)
        else:
            print("searchapp: eval needs a kind: ir, sts, rerank or ann (e.g. `searchapp eval ir DIR`)", file=sys.stderr)
            return 2
    finally:
        progress.close()
    if args.json:
        print(json.dumps(result))
        return 0
    _print_eval(kind, result)
    return 0


def _bi_encoder(config: Config) -> BiEncoder:
    from ...models import BiEncoder

    m = config.models
    return BiEncoder(m.bi_encoder, pooling=m.pooling, device=m.device, precision=m.precision,
                     batch_size=m.batch_size, threads=m.threads)


def _eval_sts(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> dict[str, Any]:
    from ...evaluation.sts import evaluate_sts_file

    if not Path(args.file).is_file():
        from ...base.errors import ConfigError

        raise ConfigError(f"{args.file} is not a file")
    enc = _bi_encoder(config)
    result = evaluate_sts_file(enc, Path(args.file), progress=progress, cancel=cancel)
    return {**result, "model": config.models.bi_encoder, "pooling": enc.pooling}  # "auto" resolved


def _eval_rerank(args: argparse.Namespace, config: Config, progress: TerminalProgress,
                 cancel: CancelToken) -> dict[str, Any]:
    from ...base.errors import ModelNotFoundError
    from ...evaluation.rerank import evaluate_rerank
    from ...models import CrossEncoder

    m = config.models
    if not m.reranker:
        raise ModelNotFoundError("no reranker configured: pass --reranker PATH")
    cross = CrossEncoder(m.reranker, device=m.device, precision=m.precision, max_length=m.rerank_max_length,
                         threads=m.threads)
    result = evaluate_rerank(Path(args.dir), _bi_encoder(config), cross, split=args.split, depth=args.candidates,
                             max_queries=args.max_queries, progress=progress, cancel=cancel)
    return {**result, "model": m.bi_encoder, "pooling": m.pooling, "reranker": m.reranker}


def _eval_ann(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    from ...evaluation.ann import evaluate_ann
    from ...library import Library

    with Library(config, create=False) as lib:  # measures a library; never makes an empty one
        return evaluate_ann(lib, k=args.k, sample=args.sample, ef=args.ef)


def _print_eval(kind: str, r: dict[str, Any]) -> None:
    if kind == "sts":
        print(f"{r['file']}: {r['pairs']} pairs, {r['model']} ({r['pooling']} pooling)")
        print(f"Spearman x100 {r['spearman']:.2f}   Pearson x100 {r['pearson']:.2f}")
    elif kind == "rerank":
        print(f"{r['collection']}: {r['queries']} queries, candidates: {r['candidates']}, reranker {r['reranker']}")
        print(f"{'':<10}{'nDCG@10':>9}{'MRR@10':>9}")
        for name in ("before", "after"):
            print(f"{name:<10}{r[name]['ndcg@10'] * 100:>9.2f}{r[name]['mrr@10'] * 100:>9.2f}")
        print(f"{'gain':<10}{r['gain']['ndcg@10'] * 100:>+9.2f}{r['gain']['mrr@10'] * 100:>+9.2f}")
    else:
        key = r["primary_metric"]
        if r.get(key) is None:
            print(f"{r['data_dir']}: fewer than 2 vectors indexed; nothing to measure")
        else:
            print(f"{r['backend']} {key} {r[key]:.4f} at ef_search {r['ef_search']} over {r['queries']} of "
                  f"{r['vectors']} vectors ({r['ms_per_query_ann']:.2f} ms/query vs exact {r['ms_per_query_exact']:.2f})")
