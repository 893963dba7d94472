"""Faults inside the read-ahead worker process (library/sync/read_ahead_worker.py), which a test cannot patch
from its own process: a test puts this folder on PYTHONPATH and names the fault in SEARCHAPP_TEST_WORKER_FAULT,
and every Python process started meanwhile (the worker is spawned) runs this at start-up. The fault hits only
files whose path holds "victim": "raise" raises from extract(), "hang" blocks in it until the process is killed,
"half_message" writes the start of a result to the pool's result pipe and ends the process (as a worker killed
while it sent a result leaves it: the pool's own thread then waits for the rest for ever).
"""

import os

_MODE = os.environ.get("SEARCHAPP_TEST_WORKER_FAULT", "")

if _MODE in ("raise", "hang", "half_message"):
    import time

    from searchapp.ingest import extractors

    _real = extractors.extract

    def _extract(path, *args, **kwargs):
        if "victim" in os.fspath(path):
            if _MODE == "hang":
                while True:  # like C code that never returns: only killing the process ends it
                    time.sleep(1)
            if _MODE == "half_message":
                _half_message_then_end()
            raise RuntimeError("injected fault in the worker")
        return _real(path, *args, **kwargs)

    def _half_message_then_end():
        import gc
        import struct
        from multiprocessing.queues import SimpleQueue

        # The worker's result queue (concurrent.futures' _process_worker holds it; the call queue is no
        # SimpleQueue): a length header promising 1 MB, ten bytes of it, and the process gone.
        results = [q for q in gc.get_objects() if type(q) is SimpleQueue]
        assert len(results) == 1, results
        from searchapp.library.sync import read_ahead_worker

        now = read_ahead_worker._STATE["now"]  # the file's clock stopped, as after its extraction: not overdue
        with now.get_lock():
            now[1] = 0.0
        os.write(results[0]._writer.fileno(), struct.pack("!i", 1 << 20) + b"0123456789")
        os._exit(9)

    extractors.extract = _extract  # read_one imports it from the package at each call
