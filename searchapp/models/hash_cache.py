"""Weight digests remembered across processes, keyed by what changes whenever the file does.

Every command that checks the library's model hashes the bi-encoder's weights (90 MB: 0.2-1 s on a small
CPU, more than a whole lexical search). A file whose size, mtime, ctime, inode and device are all unchanged
has not been rewritten (ctime cannot be set back by a user program), so its digest is reused. The cache is
a small JSON file in the per-user cache directory, written atomically with mode 0600; any problem with it
only means hashing again.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Optional

__all__ = ["cached_digest", "remember_digest", "cache_file"]

_MAX_ENTRIES = 64
_LOCK = threading.Lock()


def cache_file() -> Path:
    override = os.environ.get("SEARCHAPP_HASH_CACHE")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("searchapp", appauthor=False)) / "weights-sha256.json"


def _key(real: str, st: os.stat_result) -> str:
    return f"{real}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|{st.st_ino}|{st.st_dev}"


def _load() -> dict[str, str]:
    try:
        data = json.loads(cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def cached_digest(real: str, st: os.stat_result) -> Optional[str]:
    digest = _load().get(_key(real, st))
    return digest if digest and len(digest) == 64 else None


def remember_digest(real: str, st: os.stat_result, digest: str) -> None:
    with _LOCK:
        data = _load()
        data[_key(real, st)] = digest
        data = dict(list(data.items())[-_MAX_ENTRIES:])
        target = cache_file()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only or full cache directory: hash again next time
