"""Which device and dtype the encoders run on.

"auto" precision: fp16 on CUDA; bf16 on CPUs where bf16 is native and was measured faster than fp32 (AMX, or
AVX512-BF16 on AMD: about 2x, cosine >= 0.9999 to fp32; see cpu.bf16_pays and transformer.mixed_bf16); fp32
elsewhere: emulated bf16, and AVX512-BF16 on an Intel Xeon without AMX, ran slower than fp32.
"""

from __future__ import annotations

import functools

import torch

from ..base.errors import ConfigError, ModelLoadError
from .cpu import bf16_pays, cpu_vendor
from .cpu import cpu_flags as _cpuinfo_flags

__all__ = ["choose_device", "choose_dtype", "cpu_has_native_bf16", "cpu_prefers_bf16", "device_description", "PRECISIONS"]

PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def choose_device(spec: str = "auto") -> torch.device:
    """"auto" → cuda when available, else cpu; "cpu", "cuda", "cuda:N" as given (CUDA must exist)."""
    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(spec)
    except (RuntimeError, ValueError):
        raise ConfigError(f"models.device: {spec!r} is not a device (use auto, cpu, cuda or cuda:N)") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ModelLoadError(f"models.device is {spec!r} but no CUDA device is available; use auto or cpu.")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ModelLoadError(f"models.device is {spec!r} but only {torch.cuda.device_count()} CUDA device(s) exist.")
    return device


def choose_dtype(device: torch.device, precision: str = "auto") -> torch.dtype:
    precision = (precision or "auto").strip().lower()
    if precision == "auto":
        if device.type == "cuda":
            return torch.float16
        if device.type == "cpu" and cpu_prefers_bf16():
            return torch.bfloat16
        return torch.float32
    if precision not in PRECISIONS:
        raise ConfigError(f"models.precision: {precision!r} is not one of auto, fp32, bf16, fp16")
    if precision == "fp16" and device.type == "cpu":
        # CPU fp16 kernels are slow and partly missing; bf16 is the CPU's reduced precision.
        raise ConfigError("models.precision fp16 needs a CUDA device; use bf16 or fp32 on the CPU")
    return PRECISIONS[precision]


@functools.lru_cache(maxsize=1)
def cpu_has_native_bf16() -> bool:
    """True when the CPU computes bf16 natively (x86 AVX512-BF16 or AMX-BF16)."""
    flags = _cpuinfo_flags()
    if flags:
        return bool(flags & {"avx512_bf16", "amx_bf16"})
    # No /proc/cpuinfo (macOS, Windows): trust torch's dispatch level only when it names AMX.
    try:
        return "AMX" in torch.backends.cpu.get_cpu_capability().upper()
    except Exception:  # older torch without the API
        return False


@functools.lru_cache(maxsize=1)
def cpu_prefers_bf16() -> bool:
    """What "auto" precision picks on the CPU: bf16 where it is native AND measured faster (cpu.bf16_pays)."""
    flags = _cpuinfo_flags()
    if flags:
        return bf16_pays(flags, cpu_vendor())
    return cpu_has_native_bf16()  # no /proc/cpuinfo: torch names AMX, the one case that always pays


def device_description(device: torch.device, dtype: torch.dtype | None = None) -> str:
    """"NVIDIA H100 80GB HBM3 (fp16)" or "CPU (2 threads, bf16)"; dtype defaults to what auto would pick."""
    dtype = dtype if dtype is not None else choose_dtype(device, "auto")
    name = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, str(dtype))
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} ({name})"
    if device.type == "cpu":
        return f"CPU ({torch.get_num_threads()} threads, {name})"
    return f"{device} ({name})"
