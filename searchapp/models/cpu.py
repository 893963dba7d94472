"""What this computer's CPU offers, read without importing torch (which costs seconds).

Used by `device` (whether bf16 is native) and `device_summary` (the one-line description `status` prints).
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path

__all__ = ["cpu_flags", "default_threads", "cuda_may_exist"]


def cpu_flags() -> set[str]:
    """The feature flags of /proc/cpuinfo (avx512_bf16, amx_bf16, ...); empty off Linux or when unreadable."""
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


def default_threads() -> int:
    # torch's intra-op default: OMP_NUM_THREADS when set, else the cores this process may use.
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def cuda_may_exist() -> bool:
    """False when no NVIDIA driver can be present, so "auto" can only mean the CPU (no torch needed to know)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    if sys.platform == "darwin":
        return False
    return Path("/proc/driver/nvidia/version").exists() or shutil.which("nvidia-smi") is not None
