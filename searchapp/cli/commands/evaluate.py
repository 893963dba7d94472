"""`searchapp eval ir DIR`: retrieval quality per mode on a BEIR folder; the other kinds (sts, rerank,
ann) are defined in train_eval.py and registered under the same `eval` parser."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ...base.config import Config
from ...base.search_modes import SIDES_THEN_FUSED
from ...base.terminal import printable
from . import train_eval

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_eval"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("eval", help="measure retrieval quality")
    s.set_defaults(handler=cmd_eval)
    ev = s.add_subparsers(dest="eval_command", metavar="KIND")
    e = ev.add_parser("ir", help="nDCG@10, MRR@10, Recall@10/@100 per mode on a BEIR-layout folder")
    e.add_argument("dir", metavar="DIR",
                   help="a BEIR-layout folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    e.add_argument("--split", default="test", help="qrels split (qrels/<split>.tsv)")
    e.add_argument("--modes", default=",".join(SIDES_THEN_FUSED), help="comma-separated modes")
    e.add_argument("--no-rerank", action="store_true", help="skip reranked variants")
    e.add_argument("--reranker", metavar="PATH", help="cross-encoder folder or id")
    e.add_argument("--max-queries", type=int, help="evaluate only the first N judged queries")
    e.add_argument("--strict", action="store_true", help="fail (exit 2) on judgements for missing documents or queries")
    train_eval.add_ir_options(e)
    e.add_argument("--json", action="store_true")
    train_eval.add_eval_parsers(ev)


def cmd_eval(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    if args.eval_command in train_eval.EVAL_KINDS:
        return train_eval.cmd_eval(args, config, progress, cancel)
    if args.eval_command != "ir":
        print("searchapp: eval needs a kind: `searchapp eval ir DIR`", file=sys.stderr)
        return 2
    from ...evaluation.ir import evaluate_ir

    if not Path(args.dir).is_dir():
        print(f"searchapp: error: {printable(args.dir)} is not a folder", file=sys.stderr)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result = evaluate_ir(Path(args.dir), config, modes=modes, rerank=False if args.no_rerank else None,
                         split=args.split, max_queries=args.max_queries, progress=progress, cancel=cancel,
                         strict=args.strict)
    progress.close()
    from ...evaluation.judgements import describe

    dangling = describe(result["judgement_problems"])
    if dangling:
        print(f"searchapp: warning: {printable(dangling)}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{printable(result['collection'])}: {result['documents']} documents ({result['chunks']} passages, "
          f"indexed in {result['index_seconds']:.0f} s), {result['queries']} queries")
    print(f"{'mode':<16}{'nDCG@10':>9}{'MRR@10':>9}{'R@10':>8}{'R@100':>8}{'ms/query':>10}")
    for name, m in result["modes"].items():
        print(f"{printable(name):<16}{m['ndcg@10'] * 100:>9.2f}{m['mrr@10'] * 100:>9.2f}{m['recall@10'] * 100:>8.2f}"
              f"{m['recall@100'] * 100:>8.2f}{m['ms_per_query']:>10.1f}")
    if result["reranker"] not in ("yes", "not requested"):
        print(f"note: no reranked rows: {printable(result['reranker'])}", file=sys.stderr)
    return 0
