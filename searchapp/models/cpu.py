"""What this computer's CPU offers, read without importing torch (which costs seconds).

Used by `device` (whether bf16 is native) and `device_summary` (the one-line description `status` prints).
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import sys
from pathlib import Path

__all__ = ["cpu_flags", "cpu_vendor", "bf16_pays", "default_threads", "cuda_may_exist"]


@functools.lru_cache(maxsize=1)
def _cpuinfo() -> str:
    """/proc/cpuinfo, read once per process; "" off Linux or when unreadable."""
    if platform.system() != "Linux":
        return ""
    try:
        return Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return ""


def _cpuinfo_field(name: str) -> str:
    """The value of the first `name : value` line of /proc/cpuinfo ("" when there is none)."""
    for line in _cpuinfo().splitlines():
        if line.startswith(name) and ":" in line:
            return line.split(":", 1)[1].strip()
    return ""


def cpu_flags() -> set[str]:
    """The feature flags of /proc/cpuinfo (avx512_bf16, amx_bf16, ...); empty off Linux or when unreadable."""
    return set(_cpuinfo_field("flags").split())


def cpu_vendor() -> str:
    """/proc/cpuinfo's vendor_id ("AuthenticAMD", "GenuineIntel"); empty off Linux or when unreadable."""
    return _cpuinfo_field("vendor_id")


def bf16_pays(flags: set[str], vendor: str) -> bool:
    """Whether "auto" precision should run the bi-encoder in bf16 on this CPU: only where it was measured faster.

    AMX-BF16 (Intel Sapphire Rapids and later): matrix tiles, bf16 is the fast path. AVX512-BF16 on AMD (Zen 4):
    2.3x fp32 (shared/perf-notes.md). AVX512-BF16 on an Intel Xeon without AMX: 0.67-0.72x fp32 for MiniLM
    passages and 93 vs 122 GFLOP/s for a bare GEMM (tests/benchmarks/bench_vector_precision.py, 2026-11-24),
    so fp32 there. nDCG@10 is the same either way (docs/benchmarks.md)."""
    if "amx_bf16" in flags:
        return True
    return "avx512_bf16" in flags and vendor == "AuthenticAMD"


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
