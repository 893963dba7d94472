"""One BLAS thread for many small matrix products.

OpenBLAS spreads even a 100x384 @ 384x100 product over every core; when the cores are busy (a sync, other
programs) its threads spin-wait for each other and such a product takes ~70 ms instead of ~2 ms (measured
on the 2-core development machine under load). Duplicate and similar-file scoring run thousands of them,
so they run with one BLAS thread. threadpoolctl is optional: without it nothing changes.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Iterator

__all__ = ["one_blas_thread"]

_lock = threading.Lock()  # the BLAS thread count is process-wide: one limiter at a time


@functools.lru_cache(maxsize=1)
def _controller() -> Any:  # a threadpoolctl.ThreadpoolController (threadpoolctl has no types), or None
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    ctl = _controller()
    if ctl is None or not _lock.acquire(blocking=False):  # another limiter is active: it already holds one thread
        yield
        return
    try:
        with ctl.limit(limits=1, user_api="blas"):
            yield
    finally:
        _lock.release()
