"""Models: where weights come from, devices, pooling, smart batching, the bi-encoder and the cross-encoder.

Attributes load lazily (PEP 562): `from searchapp.models import resolve_model` does not import torch or
transformers (seconds of start-up), only the names that need them do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.lazy import lazy_exports

__all__ = [
    "BiEncoder",
    "CrossEncoder",
    "sigmoid",
    "ResolvedModel",
    "resolve_model",
    "verify_sha256",
    "PACKAGED_SHA256",
    "choose_device",
    "choose_dtype",
    "device_description",
    "cpu_has_native_bf16",
    "pool",
    "register_pooling",
    "pooling_modes",
    "length_sorted_batches",
    "restore_order",
]

_WHERE = {
    "BiEncoder": "bi_encoder",
    "CrossEncoder": "cross_encoder",
    "sigmoid": "cross_encoder",
    "ResolvedModel": "resolve",
    "resolve_model": "resolve",
    "verify_sha256": "resolve",
    "PACKAGED_SHA256": "resolve",
    "choose_device": "device",
    "choose_dtype": "device",
    "device_description": "device",
    "cpu_has_native_bf16": "device",
    "pool": "pooling",
    "register_pooling": "pooling",
    "pooling_modes": "pooling",
    "length_sorted_batches": "batching",
    "restore_order": "batching",
}

if TYPE_CHECKING:
    from .batching import length_sorted_batches, restore_order
    from .bi_encoder import BiEncoder
    from .cross_encoder import CrossEncoder, sigmoid
    from .device import choose_device, choose_dtype, cpu_has_native_bf16, device_description
    from .pooling import pool, pooling_modes, register_pooling
    from .resolve import PACKAGED_SHA256, ResolvedModel, resolve_model, verify_sha256


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
