"""A one-line description of the compute device for `status`, without importing torch when it can be avoided.

Importing torch costs seconds; `status` must answer in a fraction of one. On a machine with no NVIDIA
driver, "auto" can only mean the CPU, so the line is built from /proc/cpuinfo and the affinity mask. When
a CUDA device may exist (or torch is loaded anyway), torch answers, as before.
"""

from __future__ import annotations

import sys

from .cpu import bf16_pays, cpu_flags, cpu_vendor, cuda_may_exist, default_threads

__all__ = ["describe_device", "describe_passage_path", "cuda_may_exist", "cpu_flags"]

# What transformer.apply_dtype runs for bf16 on the CPU. Every weight in bf16 (LayerNorm and the residual
# stream too) was measured no faster on AVX-512 BF16 (AMD EPYC) nor on AMX (Xeon), and further from fp32
# (tests/benchmarks/bench_passage_paths.py, docs/design-notes.md), so it is not offered.
MIXED_BF16 = "mixed bf16: bf16 matmuls, fp32 LayerNorm and residual sums"
# What BiEncoder runs on the CPU for a plain BERT pooled from its last layer (lean_bert on cpu_linear).
FUSED = "fused BERT layers"
# Poolings that read only the last layer, so the fused forward (which keeps no other layer) can serve them.
LAST_LAYER_POOLINGS = ("mean", "cls", "max")


def _imported(name: str) -> bool:
    """Whether module `name` is imported whole. One another thread is importing (a sync loading its model ahead) is
    in sys.modules already, and importing what needs it here waited for that import to end: the window's status read
    stood for seconds, its counts at "0 so far" through a first sync's words pass."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def describe_device(spec: str = "auto", threads: int = 0) -> str:
    spec = (spec or "auto").strip().lower()
    if _imported("torch") or not (spec == "cpu" or (spec == "auto" and not cuda_may_exist())):
        from .device import choose_device, device_description

        return device_description(choose_device(spec))
    precision = "bf16" if bf16_pays(cpu_flags(), cpu_vendor()) else "fp32"  # what device.choose_dtype picks
    return f"CPU ({threads or default_threads()} threads, {precision})"


def describe_passage_path(spec: str = "auto", precision: str = "auto", threads: int = 0, *,
                          fused: bool = False) -> str:
    """Which path encodes passages (a sync's bulk lane) under these settings, for `status`'s `passages:` line;
    no torch import on a machine without CUDA. Queries may take another path (onnx_query.describe_query_path).
    `fused`: the bi-encoder is a plain BERT pooled from its last layer, which the CPU runs fused."""
    spec = (spec or "auto").strip().lower()
    precision = (precision or "auto").strip().lower()
    if _imported("torch") or not (spec == "cpu" or (spec == "auto" and not cuda_may_exist())):
        import torch

        from ..base.errors import ConfigError
        from .device import choose_device, choose_dtype

        device = choose_device(spec)
        try:
            dtype = choose_dtype(device, precision)
        except ConfigError as exc:
            return f"none: {exc}"
        name = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}.get(dtype, str(dtype))
        if device.type == "cuda":
            return f"torch {name} on {torch.cuda.get_device_name(device)}"
        on_cpu = name
    elif precision == "auto":
        on_cpu = "bf16" if bf16_pays(cpu_flags(), cpu_vendor()) else "fp32"  # what device.choose_dtype picks
    elif precision in ("fp32", "bf16"):
        on_cpu = precision
    else:
        return f"none: models.precision {precision!r} cannot run on the CPU (use auto, bf16 or fp32)"
    n = threads or default_threads()
    form = (MIXED_BF16 if on_cpu == "bf16" else "fp32") + (f"; {FUSED}" if fused else "")
    from ..base.priority import background_adapts

    fewer = ", fewer while other programs keep the cores busy" if n > 1 and background_adapts() else ""
    return f"torch {form} ({n} thread{'s' if n > 1 else ''}{fewer})"
