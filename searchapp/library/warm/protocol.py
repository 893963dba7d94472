"""The warm index's protocol: one JSON request line, one JSON reply line, version 1.

Request:  {"v": 1, "op": "command", "argv": [str], "data_dir": str, "data_dir_given": bool, "env": {str: str},
           "context": {...}, "tty": bool, "line": {"n": int, "text": str, "said": bool} (optional)}
           a whole `searchapp search`, `status` or `similar` command as typed (cli/entry.py, and the full command
           line: commands/search.py), run by the command line's own code in the serving process (cli/warm_run.py);
           `line`: one input line of `search -`, numbered, with whether the run has said its notices
          {"v": 1, "op": "ping"}
Reply:    {"v": 1, "ok": true, "stdout": str, "stderr": str, "code": int, "said": bool (a `line` only)}
          |  {"v": 1, "ok": true, "pid": int}
          {"v": 1, "ok": false, "reason": str, "error": str}

One op for a search: the thin entry point and the full command line ask alike, with the command as typed, and
get back what to print. The serving side searches with its own settings only: config_key() (every setting but
the data dir, as canonical JSON) of the settings the command reads must be its own.
Whatever arrives is checked field by field (types, sizes); anything else is refused, never guessed at.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from .exchange import MAX_REPLY, SOCKET_NAME, VERSION, context, encode

__all__ = ["VERSION", "SOCKET_NAME", "LOCK_NAME", "MAX_REQUEST", "MAX_REPLY", "WireError", "Refused", "config_key",
           "context", "needs_context", "check_request", "encode"]

LOCK_NAME = "warm.lock"  # held by the serving process for as long as it serves: one server per library
MAX_REQUEST = 64 * 1024  # a command, its environment and one line of `search -`: far below this


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
    """Whether a search (WarmServer.search's request) reads paths or dates: a query field (in:, after:, ...) or
    a date filter."""
    f = request.get("filters") or {}
    return bool(f.get("after") or f.get("before")) or (not request.get("literal") and ":" in request["query"])


# -- requests ------------------------------------------------------------------------------------------------
def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _strs(value: Any, most: int = 1000) -> bool:
    return isinstance(value, list) and len(value) <= most and all(isinstance(s, str) for s in value)


def check_request(data: Any) -> dict[str, Any]:
    """The request, checked (WireError names what is wrong)."""
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise WireError(f"not a version {VERSION} request")
    op = data.get("op")
    if op == "ping":
        return data
    if op != "command":
        raise WireError(f"unknown op {op!r}")
    env, line = data.get("env"), data.get("line")
    if not (_strs(data.get("argv")) and isinstance(data.get("data_dir"), str)
            and isinstance(data.get("data_dir_given"), bool) and isinstance(data.get("context"), dict)
            and isinstance(data.get("tty"), bool) and isinstance(env, dict) and len(env) <= 1000
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        raise WireError("a command request's fields have the wrong types")
    if line is not None and not (isinstance(line, dict) and _int(line.get("n")) and line["n"] >= 1
                                 and isinstance(line.get("text"), str) and isinstance(line.get("said"), bool)):
        raise WireError("a command request's line has the wrong types")
    return data
