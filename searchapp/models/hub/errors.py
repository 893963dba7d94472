"""What a failed pull says: DownloadError, and the one sentence a disk failure becomes. Every message names
the host without its credentials and escapes what the hub sent (see http.py)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Optional, Protocol

from ...base.errors import SearchAppError

__all__ = ["DownloadError", "disk_error", "mb"]


class DownloadError(SearchAppError):
    """The hub could not be reached, refused, lied, or the disk filled up. Nothing was installed."""

    exit_code = 1


class _Sized(Protocol):  # a plan.RemoteModel; only its size is read
    @property
    def total_bytes(self) -> int: ...


def disk_error(exc: OSError, cache: Path, plan: Optional[_Sized]) -> DownloadError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        need = f" (it needs {mb(plan.total_bytes)})" if plan else ""
        return DownloadError(f"The disk holding {cache} is full{need}; free some space and try again (nothing was installed).")
    return DownloadError(f"Cannot write to the Hugging Face cache {cache}: {exc.strerror or exc}.")


def mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"
