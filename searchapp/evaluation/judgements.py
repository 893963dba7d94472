"""Judgements that point nowhere: a qrels row for a document not in the corpus, or for a query not in
queries.jsonl. Such rows silently distort the figures (an unfindable relevant document caps recall; a
query without text is never asked), so `eval ir` counts and reports them, and `--strict` refuses them."""

from __future__ import annotations

from typing import Optional

from ..base.errors import ConfigError
from ..datasets.beir import BeirCollection

__all__ = ["dangling_judgements", "describe", "check_judgements"]


def dangling_judgements(collection: BeirCollection) -> dict[str, int]:
    """Counts: judgements (rows) naming a missing document, distinct missing documents, judged queries
    missing from queries.jsonl, and the judgements those queries carry."""
    missing_docs: set[str] = set()
    rows_missing_doc = 0
    queries_missing = 0
    rows_missing_query = 0
    for qid, docs in collection.qrels.items():
        if qid not in collection.queries:
            queries_missing += 1
            rows_missing_query += len(docs)
        for did in docs:
            if did not in collection.corpus:
                rows_missing_doc += 1
                missing_docs.add(did)
    return {"judgements_for_missing_documents": rows_missing_doc, "missing_documents": len(missing_docs),
            "judged_queries_missing": queries_missing, "judgements_for_missing_queries": rows_missing_query}


def describe(counts: dict[str, int]) -> Optional[str]:
    parts = []
    if counts["judgements_for_missing_documents"]:
        parts.append(f"{counts['judgements_for_missing_documents']} judgements name "
                     f"{counts['missing_documents']} documents that are not in corpus.jsonl (they count as relevant "
                     "but can never be found)")
    if counts["judged_queries_missing"]:
        parts.append(f"{counts['judged_queries_missing']} judged queries are not in queries.jsonl "
                     f"({counts['judgements_for_missing_queries']} judgements ignored)")
    return "; ".join(parts) or None


def check_judgements(collection: BeirCollection, *, strict: bool = False) -> dict[str, int]:
    """The counts; with `strict`, ConfigError when any judgement points nowhere."""
    counts = dangling_judgements(collection)
    text = describe(counts)
    if strict and text:
        raise ConfigError(f"{text} (--strict)")
    return counts
