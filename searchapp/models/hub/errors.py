"""What a failed pull says: DownloadError, and the one sentence a disk failure becomes. Every message names
the host without its credentials and escapes what the hub sent (see http.py)."""

from __future__ import annotations

import errno
import http.client
from pathlib import Path
from typing import Optional, Protocol

from ...base.errors import SearchAppError
from ...base.terminal import printable

__all__ = ["DownloadError", "disk_error", "malformed_http", "mb", "too_slow"]


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


def too_slow(host: str, what: str, repo_id: str, min_rate: float, timeout: float) -> DownloadError:
    """A request past its deadline (deadline.py): the hub sent too few bytes per second."""
    kb = min_rate / 1000
    rate = f"{kb:,.0f}" if kb >= 10 else f"{kb:g}"
    return DownloadError(f"{host} sent {printable(what)} of {repo_id} too slowly (less than {rate} kB/s, given "
                         f"{timeout:g} s at least); try again later (nothing was installed).")


def malformed_http(host: str, exc: http.client.HTTPException, repo_id: str, asking: bool) -> DownloadError:
    """What http.client refused, in a few fixed words: nothing the hub sent (a status line) is repeated."""
    if isinstance(exc, http.client.LineTooLong):
        kind = next((k for k in ("header line", "status line", "chunk size", "trailer line") if k in str(exc)), "line")
        said = f"a {kind} longer than 64 KB"
    elif isinstance(exc, http.client.BadStatusLine):
        said = "a status line that is not HTTP"
    elif "headers" in str(exc):  # "got more than 100 headers"
        said = "more than 100 headers"
    else:
        said = type(exc).__name__
    return DownloadError(f"{host} sent malformed HTTP ({said}) for {repo_id}; it does not look like a Hugging Face "
                         f"hub (nothing was {'downloaded' if asking else 'installed'}).")


def mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"
