"""Read a retrieval test collection in the BEIR layout.

    <dir>/corpus.jsonl        {"_id", "title", "text"} per line
    <dir>/queries.jsonl       {"_id", "text"} per line
    <dir>/qrels/<split>.tsv   query-id <TAB> corpus-id <TAB> score, after a header line

Any malformed line raises ConfigError("<file>:<line>: <reason>"): a silently skipped judgment would
quietly change the scores.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..base.errors import ConfigError

__all__ = ["BeirCollection", "load_beir"]

_QRELS_HEADER = ("query-id", "corpus-id", "score")


@dataclass
class BeirCollection:
    corpus: dict[str, tuple[str, str]] = field(default_factory=dict)  # doc id -> (title, text)
    queries: dict[str, str] = field(default_factory=dict)  # query id -> text
    qrels: dict[str, dict[str, int]] = field(default_factory=dict)  # query id -> doc id -> grade


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line ending) for non-blank lines, decoded line by line so a
    bad byte is reported with its line."""
    if not path.is_file():
        raise ConfigError(f"{path}: not found (expected the BEIR layout: corpus.jsonl, queries.jsonl, "
                          "qrels/<split>.tsv)")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise ConfigError(f"{path}:{lineno}: not UTF-8 ({exc.reason})") from None
            text = text.rstrip("\r\n")
            if text.strip():
                yield lineno, text


def _string(record: dict[str, Any], key: str, where: str, required: bool = True) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ConfigError(f"{where}: {key!r} must be a string, got {value!r}")
    return str(value)


def _jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for lineno, text in _lines(path):
        where = f"{path}:{lineno}"
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: invalid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise ConfigError(f"{where}: expected a JSON object")
        yield where, record


def _read_corpus(path: Path) -> dict[str, tuple[str, str]]:
    corpus: dict[str, tuple[str, str]] = {}
    for where, record in _jsonl(path):
        doc_id = _string(record, "_id", where)
        if doc_id in corpus:
            raise ConfigError(f"{where}: duplicate _id {doc_id!r}")
        corpus[doc_id] = (_string(record, "title", where, required=False), _string(record, "text", where))
    return corpus


def _read_queries(path: Path) -> dict[str, str]:
    queries: dict[str, str] = {}
    for where, record in _jsonl(path):
        query_id = _string(record, "_id", where)
        if query_id in queries:
            raise ConfigError(f"{where}: duplicate _id {query_id!r}")
        queries[query_id] = _string(record, "text", where)
    return queries


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    first = True
    for lineno, text in _lines(path):
        fields = [f.strip() for f in text.split("\t")]
        if first and tuple(f.lower() for f in fields) == _QRELS_HEADER:
            first = False
            continue
        first = False
        where = f"{path}:{lineno}"
        if len(fields) != 3:
            raise ConfigError(f"{where}: expected 3 tab-separated fields (query-id, corpus-id, score), "
                              f"got {len(fields)}")
        query_id, doc_id, score = fields
        if not query_id or not doc_id:
            raise ConfigError(f"{where}: empty query-id or corpus-id")
        try:
            grade = int(score)
        except ValueError:
            raise ConfigError(f"{where}: score {score!r} is not an integer") from None
        qrels.setdefault(query_id, {})[doc_id] = grade
    return qrels


def load_beir(directory: Path, split: str = "test") -> BeirCollection:
    """Load corpus, queries and the `split` judgments of a BEIR folder; ConfigError on any problem."""
    directory = Path(directory)
    qrels_path = directory / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file() and (directory / "qrels").is_dir():
        splits = sorted(p.stem for p in (directory / "qrels").glob("*.tsv"))
        raise ConfigError(f"{qrels_path}: no {split!r} split (available: {', '.join(splits) or 'none'})")
    return BeirCollection(
        corpus=_read_corpus(directory / "corpus.jsonl"),
        queries=_read_queries(directory / "queries.jsonl"),
        qrels=_read_qrels(qrels_path),
    )
