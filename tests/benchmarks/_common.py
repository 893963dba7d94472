"""What every benchmark prints beside its figures, written once: the machine (CPU model, the vector flags that
change which path runs, cores, load average: a shared machine's figures mean little without the load) and one
JSON line a result, flushed so that a run cut short keeps what it printed. Benchmarks run as scripts, so this
folder is on sys.path: `from _common import cpu_note, emit`. Also `process_cpu`: another process's CPU seconds (a
PostgreSQL backend's, the server running on this machine)."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any, Optional

__all__ = ["cpu_note", "emit", "process_cpu"]

_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")  # the flags that choose a path (fp32, bf16, AMX)


def cpu_note() -> dict[str, Any]:
    """{"cpu": model name, "cpu_flags": those of _FLAGS it has, "cores", "load_avg": [1, 5, 15 min]}."""
    info = Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").exists() else ""
    model = next((ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")), "")
    flags = next((ln.split(":", 1)[1].split() for ln in info.splitlines() if ln.startswith("flags")), [])
    return {"cpu": model or platform.processor() or platform.machine(),
            "cpu_flags": [f for f in _FLAGS if f in flags], "cores": os.cpu_count(),
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def emit(row: Optional[dict[str, Any]] = None, /, *, add_cpu_note: bool = False, **fields: Any) -> None:
    """Print one result as a JSON line (`row`, then `fields`; with `add_cpu_note`, the machine's cpu_note after them)."""
    print(json.dumps({**(row or {}), **fields, **(cpu_note() if add_cpu_note else {})}), flush=True)


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used so far, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
