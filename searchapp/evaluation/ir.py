"""`searchapp eval ir`: retrieval quality of the real engine on a BEIR-layout collection.

The corpus is written out as one text file per document, indexed through the same Library a user
has (scan, extract, chunk, embed, store, vector index), and every query is searched in each mode.
Passage hits are turned into a document ranking by first occurrence (a document's best passage).
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Optional, TypedDict

from ..base.config import Config
from ..base.progress import CancelToken, ProgressFn, report
from ..base.search_modes import SIDES_THEN_FUSED
from ..datasets.beir import BeirCollection, load_beir
from .judgements import check_judgements
from .metrics import evaluate_run

__all__ = ["write_corpus", "evaluate_ir", "IrResult"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class IrResult(TypedDict):
    """What `searchapp eval ir` prints or writes as JSON."""

    collection: str
    documents: int
    queries: int
    chunks: int
    index_seconds: float
    primary_metric: str
    reranker: str
    modes: dict[str, dict[str, float]]  # mode (or "<mode>+rerank") -> evaluate_run's metrics + "ms_per_query"
    judgement_problems: dict[str, int]


def write_corpus(collection: BeirCollection, folder: Path) -> dict[str, str]:
    """Write each document as a note would be: `<id>.md` with the title as its heading ("# title", blank line,
    text), or `<id>.txt` holding the text alone when it has no title; returns file path -> document id."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, str] = {}
    for i, (doc_id, (title, text)) in enumerate(collection.corpus.items()):
        # Ids may hold '/' or clash after cleaning: the ordinal keeps names unique.
        name = f"{i:07d}_{_UNSAFE.sub('_', doc_id)[:80]}"
        title = " ".join(title.split())  # a heading is one line
        path = folder / (f"{name}.md" if title else f"{name}.txt")
        path.write_text(f"# {title}\n\n{text}" if title else text, encoding="utf-8")
        paths[str(path.resolve())] = doc_id
    return paths


def evaluate_ir(directory: Path, config: Config, *, modes: Iterable[str] = SIDES_THEN_FUSED, rerank: Optional[bool] = None,
                depth: int = 100, split: str = "test", max_queries: Optional[int] = None,
                encoder: Any = None, reranker: Any = None, strict: bool = False,
                progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> IrResult:
    """Index the collection in a temporary library and return metrics per mode. `encoder` / `reranker`: models
    already loaded (models.BiEncoder / CrossEncoder), handed to the Library as they are: Any here because this
    layer may not import models/ to name them; the Library's own signature checks them.

    `rerank=None` reranks when a cross-encoder is available (reported as "<mode>+rerank").
    Returns {"collection", "documents", "queries", "chunks", "index_seconds", "modes": {mode: metrics},
    "primary_metric": "ndcg@10", "reranker"}.
    """
    from ..library import Library

    collection = load_beir(Path(directory), split=split)
    dangling = check_judgements(collection, strict=strict)  # `strict`: ConfigError on judgements pointing nowhere
    queries = {q: t for q, t in collection.queries.items() if q in collection.qrels}
    if max_queries:
        queries = dict(list(queries.items())[:max_queries])
    with tempfile.TemporaryDirectory(prefix="searchapp-eval-") as tmp:
        tmp_path = Path(tmp)
        doc_of = write_corpus(collection, tmp_path / "corpus")
        cfg = config.replace(search={"rerank": True})
        import dataclasses

        cfg = dataclasses.replace(cfg, data_dir=tmp_path / "library")
        lib = Library(cfg, encoder=encoder, reranker=reranker)
        try:
            t0 = time.perf_counter()
            lib.add_folder(tmp_path / "corpus", progress=progress, cancel=cancel)
            index_seconds = time.perf_counter() - t0
            variants: list[tuple[str, str, bool]] = [(m, m, False) for m in modes]
            cross = None
            if rerank is not False:
                cross = lib.models.reranker()
                if cross is not None:
                    variants += [(f"{m}+rerank", m, True) for m in modes]
            results: dict[str, dict[str, float]] = {}
            candidates = max(depth * 2, cfg.search.candidates)
            for name, mode, do_rerank in variants:
                run: dict[str, list[str]] = {}
                t1 = time.perf_counter()
                for i, (qid, text) in enumerate(queries.items(), start=1):
                    if cancel is not None:
                        cancel.check()
                    res = lib.search(text, k=candidates, mode=mode, rerank=do_rerank, candidates=candidates,
                                     rerank_depth=cfg.search.candidates)
                    ranking: list[str] = []
                    for h in res.hits:
                        d = doc_of.get(str(Path(h.path).resolve()))
                        if d is not None and d not in ranking:
                            ranking.append(d)
                    run[qid] = ranking[:depth]
                    report(progress, f"queries ({name})", i, len(queries))
                metrics = evaluate_run(run, collection.qrels, ks=(10, 100))
                metrics["ms_per_query"] = (time.perf_counter() - t1) * 1000.0 / max(1, len(queries))
                results[name] = metrics
            chunks = lib.passage_count()
        finally:
            lib.close()
    return {
        "collection": str(directory),
        "documents": len(collection.corpus),
        "queries": len(queries),
        "chunks": chunks,
        "index_seconds": index_seconds,
        "primary_metric": "ndcg@10",
        "reranker": lib.models.reranker_notice() or ("yes" if cross is not None else "not requested"),
        "modes": results,
        "judgement_problems": dangling,
    }
