"""A one-line description of the compute device for `status`, without importing torch when it can be avoided.

Importing torch costs seconds; `status` must answer in a fraction of one. On a machine with no NVIDIA
driver, "auto" can only mean the CPU, so the line is built from /proc/cpuinfo and the affinity mask. When
a CUDA device may exist (or torch is loaded anyway), torch answers, as before.
"""

from __future__ import annotations

import sys

from .cpu import bf16_pays, cpu_flags, cpu_vendor, cuda_may_exist, default_threads

__all__ = ["describe_device", "cuda_may_exist", "cpu_flags"]


def describe_device(spec: str = "auto", threads: int = 0) -> str:
    spec = (spec or "auto").strip().lower()
    if "torch" in sys.modules or not (spec == "cpu" or (spec == "auto" and not cuda_may_exist())):
        from .device import choose_device, device_description

        return device_description(choose_device(spec))
    precision = "bf16" if bf16_pays(cpu_flags(), cpu_vendor()) else "fp32"  # what device.choose_dtype picks
    return f"CPU ({threads or default_threads()} threads, {precision})"
