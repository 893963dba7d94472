"""The warm index's protocol: one JSON request line, one JSON reply line, version 1.

Request:  {"v": 1, "op": "search", "config": KEY, "context": {...}, "query": str, "k": int|null,
           "mode": str|null, "candidates": int|null, "group": str|null, "literal": bool, "rerank": false|null,
           "check_empty": bool, "filters": {"within": [abs paths], "types": [str], "after": str|null,
           "before": str|null}|null, "meaning_wait": number|null (optional; absent or null: wait for the index),
           "record": bool (optional; true: the server keeps the query in the search history, as the command line
           would have)}
          {"v": 1, "op": "command", "argv": [str], "data_dir": str, "data_dir_given": bool, "env": {str: str},
           "context": {...}, "tty": bool}   (a whole `searchapp search` command as typed: cli/fast.py, cli/served.py)
          {"v": 1, "op": "ping"}
Reply:    {"v": 1, "ok": true, "result": RESULT, "marks": str, "history": str (only when asked to record: "" kept,
           else why not)}  |  {"v": 1, "ok": true, "stdout": str, "stderr": str, "code": int} (a command)
          |  {"v": 1, "ok": true, "pid": int}
          {"v": 1, "ok": false, "reason": str, "error": str}

KEY is config_key(): every setting but the data dir, as canonical JSON (a server answers only its own settings).
RESULT is a SearchResult as plain data, every field of every Hit included (chunk ids, order labels, dates: more
than Hit.to_json shows), so the command line renders a served result exactly as one it searched itself.
Whatever arrives is checked field by field (types, sizes); anything else is refused, never guessed at.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional

from ...base.search_modes import SEARCH_MODES
from ...base.types import Hit, StageRanks, StageScores
from ..search.result import Notice, SearchResult
from .exchange import MAX_REPLY, SOCKET_NAME, VERSION, context, encode

__all__ = ["VERSION", "SOCKET_NAME", "LOCK_NAME", "MAX_REQUEST", "MAX_REPLY", "WireError", "Refused", "config_key",
           "context", "needs_context", "result_to_wire", "result_from_wire", "check_request", "encode",
           "reply_history", "ASK_AGAIN"]

LOCK_NAME = "warm.lock"  # held by the serving process for as long as it serves: one server per library
MAX_REQUEST = 64 * 1024  # a query, its filters and settings: far below this
MAX_HITS = 100_000
_MODES = (None, *SEARCH_MODES)
_GROUPS = (None, "file", "passage")


# A command's refusals after which the full command line may still ask with a search: a server from before the
# "command" op ("bad-request"), or a data dir the thin client read differently from argparse ("data-dir").
ASK_AGAIN = ("bad-request", "data-dir")


class WireError(ValueError):
    """A request or reply that does not follow the protocol."""


class Refused(Exception):
    """What the serving side answers instead of a result: `reason` (a word the asking side acts on) and `error`."""

    def __init__(self, reason: str, error: str) -> None:
        super().__init__(error)
        self.reason, self.error = reason, error


def config_key(config: Any) -> str:
    """Every setting but the data dir, as canonical JSON: a served search answers only a command line whose
    settings are the server's own (a `--config` of its own, an environment override, a setting changed since:
    searched directly). The settings themselves (under 1 KB by default), not a hash of them: equal keys are
    equal settings, and the client need not load hashlib (~2 ms of a warm command's start-up)."""
    data = dataclasses.asdict(config)
    data.pop("data_dir", None)
    return json.dumps(data, sort_keys=True, default=str)


def needs_context(request: dict[str, Any]) -> bool:
    """Whether the request reads paths or dates: a query field (in:, after:, ...) or a date filter."""
    f = request.get("filters") or {}
    return bool(f.get("after") or f.get("before")) or (not request.get("literal") and ":" in request["query"])


# -- requests ------------------------------------------------------------------------------------------------
def _opt(value: Any, kind: type) -> bool:
    return value is None or (isinstance(value, kind) and not isinstance(value, bool))


def _seconds(value: Any) -> bool:
    """A search's wait for a vector index still opening: absent or null (as long as it takes), else 0..60 s."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 60)


def _strs(value: Any, most: int = 1000) -> bool:
    return isinstance(value, list) and len(value) <= most and all(isinstance(s, str) for s in value)


def check_request(data: Any) -> dict[str, Any]:
    """The request, checked (WireError names what is wrong)."""
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise WireError(f"not a version {VERSION} request")
    op = data.get("op")
    if op == "ping":
        return data
    if op == "command":
        env = data.get("env")
        if not (_strs(data.get("argv")) and isinstance(data.get("data_dir"), str)
                and isinstance(data.get("data_dir_given"), bool) and isinstance(data.get("context"), dict)
                and isinstance(data.get("tty"), bool) and isinstance(env, dict) and len(env) <= 1000
                and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise WireError("a command request's fields have the wrong types")
        return data
    if op != "search":
        raise WireError(f"unknown op {op!r}")
    ok = (isinstance(data.get("query"), str) and isinstance(data.get("config"), str)
          and isinstance(data.get("context"), dict) and _opt(data.get("k"), int) and _opt(data.get("candidates"), int)
          and data.get("mode") in _MODES and data.get("group") in _GROUPS
          and isinstance(data.get("literal"), bool) and data.get("rerank") in (None, False)
          and isinstance(data.get("check_empty"), bool) and _seconds(data.get("meaning_wait"))
          and isinstance(data.get("record", False), bool))
    if not ok:
        raise WireError("a search request's fields have the wrong types")
    f = data.get("filters")
    if f is not None and not (isinstance(f, dict) and _strs(f.get("within")) and _strs(f.get("types"))
                              and _opt(f.get("after"), str) and _opt(f.get("before"), str)):
        raise WireError("a search request's filters have the wrong types")
    return data


# -- results -------------------------------------------------------------------------------------------------
_SCORES = ("dense", "lexical", "fused", "rerank_logit", "rerank", "words")  # "words" last: a reply without it reads
_RANKS = ("dense", "lexical", "fused", "rerank", "final")


def _hit_to_wire(h: Hit) -> dict[str, Any]:
    s, r = h.scores, h.ranks
    return {"chunk_id": h.chunk_id, "path": h.path, "page": h.page, "start": h.start, "end": h.end, "text": h.text,
            "scores": [getattr(s, n) for n in _SCORES], "ranks": [getattr(r, n) for n in _RANKS],
            "more": [_hit_to_wire(m) for m in h.more], "repeats": [list(t) for t in h.repeats],
            "available": h.available, "ocr": h.ocr, "order_label": h.order_label, "date_ns": h.date_ns,
            "common_to": h.common_to, "copies": list(h.copies)}


def result_to_wire(res: SearchResult) -> dict[str, Any]:
    return {"query": res.query, "mode": res.mode, "hits": [_hit_to_wire(h) for h in res.hits],
            "reranked": res.reranked, "notices": [[n.kind, n.text] for n in res.notices],
            "warnings": list(res.warnings), "meaning_percent": res.meaning_percent,
            "timings_ms": dict(res.timings_ms), "filter_stats": res.filter_stats, "group": res.group,
            "reading": res.reading}


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise WireError(f"bad {what} in the reply")


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def _hit_from_wire(d: Any, depth: int = 0) -> Hit:
    _need(isinstance(d, dict), "hit")
    scores, ranks, more, repeats = d.get("scores"), d.get("ranks"), d.get("more"), d.get("repeats")
    _need(_int(d.get("chunk_id")) and isinstance(d.get("path"), str) and _opt(d.get("page"), int)
          and _int(d.get("start")) and _int(d.get("end")) and isinstance(d.get("text"), str), "hit fields")
    _need(isinstance(scores, list) and len(_SCORES) - 1 <= len(scores) <= len(_SCORES) and all(_num(v) for v in scores),
          "scores")
    _need(isinstance(ranks, list) and len(ranks) == len(_RANKS) and all(_opt(v, int) for v in ranks), "ranks")
    _need(isinstance(more, list) and len(more) <= MAX_HITS and (depth == 0 or not more), "more")
    _need(isinstance(repeats, list) and all(isinstance(t, list) and len(t) == 3 and _int(t[0]) and _int(t[1])
                                             and _opt(t[2], int) for t in repeats), "repeats")
    _need(isinstance(d.get("available"), bool) and isinstance(d.get("ocr"), bool)
          and _opt(d.get("order_label"), str) and _opt(d.get("date_ns"), int) and _int(d.get("common_to"))
          and _strs(d.get("copies"), MAX_HITS), "hit fields")
    return Hit(chunk_id=d["chunk_id"], path=d["path"], page=d["page"], start=d["start"], end=d["end"], text=d["text"],
               scores=StageScores(*[None if v is None else float(v) for v in scores]), ranks=StageRanks(*ranks),
               more=[_hit_from_wire(m, depth + 1) for m in more], repeats=[(a, b, p) for a, b, p in repeats],
               available=d["available"], ocr=d["ocr"], order_label=d["order_label"], date_ns=d["date_ns"],
               common_to=d["common_to"], copies=list(d["copies"]))


def result_from_wire(d: Any) -> SearchResult:
    """The SearchResult a reply carries (WireError when any field is missing or of the wrong type)."""
    _need(isinstance(d, dict), "result")
    hits, notices, timings, stats = d.get("hits"), d.get("notices"), d.get("timings_ms"), d.get("filter_stats")
    _need(isinstance(d.get("query"), str) and d.get("mode") in _MODES[1:] and isinstance(d.get("reranked"), bool)
          and d.get("group") in _GROUPS[1:] and isinstance(d.get("reading"), str), "result fields")
    _need(isinstance(hits, list) and len(hits) <= MAX_HITS, "hits")
    _need(isinstance(notices, list) and all(isinstance(n, list) and len(n) == 2 and _strs(n) for n in notices),
          "notices")
    _need(_strs(d.get("warnings")) and _opt(d.get("meaning_percent"), int), "result fields")
    _need(isinstance(timings, dict) and all(isinstance(k, str) and _num(v) for k, v in timings.items()), "timings")
    _need(stats is None or isinstance(stats, dict), "filter stats")
    return SearchResult(query=d["query"], mode=d["mode"], hits=[_hit_from_wire(h) for h in hits],
                        reranked=d["reranked"], notices=[Notice(k, t) for k, t in notices], warnings=list(d["warnings"]),
                        meaning_percent=d["meaning_percent"], timings_ms={k: float(v) for k, v in timings.items()},
                        filter_stats=stats, group=d["group"], reading=d["reading"])


def reply_history(data: dict[str, Any]) -> Optional[str]:
    """What a served search's reply says of the search history: None when the server did not record the query
    (not asked, or a server from before it could), "" when it kept it, else why it did not."""
    history = data.get("history")
    _need(history is None or isinstance(history, str), "history")
    return history


def reply_result(data: Any) -> tuple[Optional[SearchResult], str, str]:
    """(result, marks, reason) from a decoded reply: result None with the server's reason when it declined."""
    if not isinstance(data, dict) or data.get("v") != VERSION or not isinstance(data.get("ok"), bool):
        raise WireError(f"not a version {VERSION} reply")
    if not data["ok"]:
        _need(isinstance(data.get("reason"), str) and isinstance(data.get("error"), str), "refusal")
        return None, "", data["reason"]
    _need(isinstance(data.get("marks"), str), "marks")
    return result_from_wire(data.get("result")), data["marks"], ""
