"""A JSON file read as what a person would search in it (decision 0178): one "key.path: value" line per string or
number, nested keys joined with dots, not its braces, quotes and commas.

A list's items keep the key of the list (`authors.name: Ada`, not `authors.0.name`): an index is nothing anyone
searches for; a path is kept to its last MAX_KEY characters. true, false and null say nothing on their own and are
left out. A file that is not JSON as the standard writes it (comments in a tsconfig.json, JSON lines, a file cut
short) is read as plain text, as before.
How large a JSON file is read at all is the scan's (`[scan] max_json_mb`, ingest/generated.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from ...base.types import Document
from .encoding import clean_text, decode_text, read_capped

__all__ = ["SUFFIXES", "extract_json", "key_values", "MAX_KEY"]

SUFFIXES = frozenset({".json"})
# Characters of a key path kept (its end: the names nearest the value). Uncapped, a file under [scan] max_json_mb
# nesting long keys a thousand deep held a key of megabytes for each level's sibling: 0.9 MB of JSON took 790 MB.
MAX_KEY = 200


def extract_json(path: Path, max_bytes: int, max_chars: Optional[int] = None, data: Optional[bytes] = None,
                 **_caps: object) -> Document:
    text = decode_text(data if data is not None else read_capped(path, max_bytes))
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not strict JSON (or nested past Python's stack): its text as it is
        return Document(text, kind="json")
    # clean_text: a "\u0000" escape is a NUL the raw bytes never held (decode_text drops those), and NULs break FTS
    return Document(clean_text("\n".join(key_values(value, max_chars))), kind="json")


def key_values(value: Any, max_chars: Optional[int] = None) -> list[str]:
    """The "key.path: value" lines of a parsed JSON value, in the file's order, until they hold `max_chars`
    characters (the registry cuts at the cap exactly). Iterative: a file nested a thousand deep costs no stack."""
    out: list[str] = []
    size = 0
    stack: list[tuple[str, Any]] = [("", value)]
    while stack and (max_chars is None or size <= max_chars):
        key, v = stack.pop()
        if isinstance(v, dict):
            stack.extend(reversed([((f"{key}.{k}" if key else str(k))[-MAX_KEY:], x) for k, x in v.items()]))
        elif isinstance(v, list):
            stack.extend(reversed([(key, x) for x in v]))
        elif isinstance(v, str) and v.strip() or isinstance(v, (int, float)) and not isinstance(v, bool):
            line = f"{key}: {v}" if key else str(v)
            out.append(line)
            size += len(line) + 1
    return out
