"""A one-line description of the compute device for `status`, without importing torch when it can be avoided.

Importing torch costs seconds; `status` must answer in a fraction of one. On a machine with no NVIDIA
driver, "auto" can only mean the CPU, so the line is built from /proc/cpuinfo and the affinity mask. When
a CUDA device may exist (or torch is loaded anyway), torch answers, as before.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path

__all__ = ["describe_device", "cuda_may_exist", "cpu_flags"]


def cuda_may_exist() -> bool:
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if sys.platform == "darwin":
        return False
    return Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None


def describe_device(spec: str = "auto", threads: int = 0) -> str:
    spec = (spec or "auto").strip().lower()
    if "torch" in sys.modules or not (spec == "cpu" or (spec == "auto" and not cuda_may_exist())):
        from .device import choose_device, device_description

        return device_description(choose_device(spec))
    precision = "bf16" if cpu_flags() & {"avx512_bf16", "amx_bf16"} else "fp32"
    return f"CPU ({threads or _default_threads()} threads, {precision})"


def _default_threads() -> int:
    # torch's intra-op default: OMP_NUM_THREADS when set, else the cores this process may use.
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def cpu_flags() -> set[str]:
    if platform.system() != "Linux":
        return set()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags") and ":" in line:
            return set(line.split(":", 1)[1].split())
    return set()
