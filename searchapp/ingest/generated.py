"""Files a tool wrote for another tool, not for a person to read (decision 0178): left out of a library, each with
its reason, so a developer's folder is searched for what its people wrote, not for tens of thousands of passages of
pinned versions, checksums and one-line bundles.

Three rules, each said with its reason "<rule>: …" (the entry's state is `excluded`, counted by rule in `status`):
- lockfile, by name: `[scan] lockfiles` (package-lock.json, yarn.lock, Cargo.lock, go.sum, ...): a package
  manager's pins, a line of name, version, address and checksum per dependency, rewritten by every install;
- minified, by name (`*.min.js`, `*.min.css`, their source maps) and by text (a .js or .css file whose lines
  average more than MINIFIED_LINE characters: a bundle, whatever its name; text.py asks minified_text);
- large JSON, by size: a .json file over `[scan] max_json_mb` is data (a dump, a fixture, a model's vocabulary),
  not a document; a smaller one is read as "key: value" lines (extractors/json_data.py).
The scan decides the first two of the name and the last of the size it stats, never opening the file (so an
archive's member, library/sync/members.py, and `explain`, library/report/explain.py, decide the same).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from .secrets import secret_pattern

if TYPE_CHECKING:  # text.py asks minified_text of every .js it reads: no configuration imported for it
    from ..base.config import ScanConfig

__all__ = ["generated_reason", "left_out_by_scan", "minified_text", "MINIFIED_LINE", "MINIFIED_SUFFIXES",
           "LOCKFILE", "MINIFIED", "LARGE_JSON"]

LOCKFILE, MINIFIED, LARGE_JSON = "lockfile", "minified", "large JSON"  # each rule's word, as `status` counts it
# Names a build tool gives what it minified, and the source maps beside them (one line of base64-like VLQ)
_MINIFIED_NAMES = (".min.js", ".min.mjs", ".min.css", ".js.map", ".css.map")
MINIFIED_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".css"})  # the code whose text is looked at for its lines
# Characters a line averages past which code is minified: people's code averages 30-40 (a long line of it is
# 100-150), a bundle's lines run for thousands or all of it is one line.
MINIFIED_LINE = 500
_MB = 1024 * 1024
_BY_NAME = f"{MINIFIED}: named "  # minified's reason by name (read again once it is named otherwise: never)


def generated_reason(name: str, size: int, scan: "ScanConfig") -> Optional[str]:
    """Why a file named `name` (its last part) of `size` bytes is left out as generated, or None: a lockfile's
    name, a minified file's name, a JSON file over `[scan] max_json_mb`."""
    lockfile = secret_pattern(name, scan.lockfiles)  # the same matching of names, whatever their case
    if lockfile is not None:
        return f"{LOCKFILE}: its name matches {lockfile!r}, a package manager's pinned versions ([scan] lockfiles)"
    low = name.lower()
    if low.endswith(_MINIFIED_NAMES):
        return f"{_BY_NAME}*{next(s for s in _MINIFIED_NAMES if low.endswith(s))}, a build's output"
    if os.path.splitext(low)[1] == ".json" and size > scan.max_json_mb * _MB:
        return (f"{LARGE_JSON}: {size / _MB:.1f} MB, over {scan.max_json_mb:g} MB: data, not a document "
                "([scan] max_json_mb)")
    return None


def left_out_by_scan(reason: Optional[str]) -> bool:
    """Whether an entry's reason is generated_reason's for a rule a setting governs (a lockfile's name, a JSON
    file's size): once the scan lists it again, the setting no longer leaves it out and it is read."""
    return (reason or "").startswith((f"{LOCKFILE}: ", f"{LARGE_JSON}: "))


def minified_text(suffix: str, text: str) -> Optional[str]:
    """Why the text of a .js or .css file is minified ("minified: …"), or None: its lines average more than
    MINIFIED_LINE characters (a file of one short line is no bundle: a file under two such lines is not judged)."""
    if suffix not in MINIFIED_SUFFIXES or len(text) <= 2 * MINIFIED_LINE:
        return None
    lines = text.count("\n") + (not text.endswith("\n"))
    average = len(text) / max(lines, 1)
    if average <= MINIFIED_LINE:
        return None
    return f"{MINIFIED}: its lines average {average:,.0f} characters (over {MINIFIED_LINE}), a build's output"
