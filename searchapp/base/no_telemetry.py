"""No telemetry from the libraries searchapp runs: onnxruntime's is turned off before it is first imported.

Why: onnxruntime 1.32 starts its telemetry when its module loads, not when a session is made. Importing it
writes ~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db} (XDG_CACHE_HOME's where set):
a device id, and a queue of events naming the OS, the CPU model, the container type, the Python path and
session GUIDs, which the library can upload. `onnxruntime.disable_telemetry_events()` comes too late for
those files (they are written by the import); the ORT_DISABLE_TELEMETRY variable, read at the import, stops
them. searchapp's query encoder and RapidOCR both make onnxruntime sessions, so: the variable is set when
`searchapp` is imported (before anything can import onnxruntime, even through rapidocr), and each place that
makes a session calls `quiet_onnxruntime()` again, which also turns events off in an onnxruntime already
loaded (imported before searchapp by someone else).
"""

from __future__ import annotations

import os
import sys

__all__ = ["quiet_onnxruntime", "ORT_SWITCH"]

ORT_SWITCH = "ORT_DISABLE_TELEMETRY"


def quiet_onnxruntime() -> None:
    """Turn onnxruntime's telemetry off for this process and the processes it starts (cheap: no import)."""
    os.environ[ORT_SWITCH] = "1"
    ort = sys.modules.get("onnxruntime")
    off = getattr(ort, "disable_telemetry_events", None)
    if off is not None:
        try:
            off()
        except Exception:  # an onnxruntime without it (or a broken one) has nothing to turn off
            pass
