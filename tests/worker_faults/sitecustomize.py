"""Faults inside the read-ahead worker process (library/sync/read_ahead_worker.py), which a test cannot patch
from its own process: a test puts this folder on PYTHONPATH and names the fault in SEARCHAPP_TEST_WORKER_FAULT,
and every Python process started meanwhile (the worker is spawned) runs this at start-up. The fault hits only
files whose path holds "victim": "raise" raises from extract(), "hang" blocks in it until the process is killed.
"""

import os

_MODE = os.environ.get("SEARCHAPP_TEST_WORKER_FAULT", "")

if _MODE in ("raise", "hang"):
    import time

    from searchapp.ingest import extractors

    _real = extractors.extract

    def _extract(path, *args, **kwargs):
        if "victim" in os.fspath(path):
            if _MODE == "hang":
                while True:  # like C code that never returns: only killing the process ends it
                    time.sleep(1)
            raise RuntimeError("injected fault in the worker")
        return _real(path, *args, **kwargs)

    extractors.extract = _extract  # read_one imports it from the package at each call
