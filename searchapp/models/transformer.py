"""The Hugging Face transformer under both encoders: loading, tokenizing, padding, threads.

Loading always goes through a folder `resolve_model` returned, with `use_safetensors=True`,
`local_files_only=True` and `trust_remote_code=False`, so it can neither unpickle, reach the network, run
code shipped in the folder, nor prompt on stdin (a folder that would need code is refused first).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import torch

from ..base.errors import ModelLoadError
from .resolve import check_no_custom_code, known_model_types

__all__ = [
    "quiet_transformers",
    "load_tokenizer",
    "load_model",
    "collate",
    "pad_values_for",
    "model_inputs",
    "torch_threads",
    "precision_context",
    "keep_fp32",
    "apply_dtype",
    "mixed_bf16",
    "refuse_custom_code",
]

# transformers' verbosity and progress bars are process-wide; loads flip them off and back one at a time.
_LOAD_LOCK = threading.RLock()  # re-entrant: a quiet block may load a model


def refuse_custom_code(path: Path) -> None:
    """Before any transformers load: raise ModelLoadError for a folder that needs its own code."""
    check_no_custom_code(Path(path), known_model_types=known_model_types())


def load_tokenizer(path: Path, *, require_fast: bool = False) -> Any:
    from transformers import AutoTokenizer

    refuse_custom_code(path)
    with quiet_transformers():
        try:
            tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True, trust_remote_code=False)
        except Exception as exc:  # missing/broken tokenizer files surface as many exception types
            raise ModelLoadError(f"cannot load the tokenizer in {path}: {exc}") from exc
    if require_fast and not getattr(tok, "is_fast", False):
        raise ModelLoadError(f"{path}: needs a fast tokenizer (tokenizer.json) to map word pieces to characters.")
    if tok.pad_token_id is None:
        raise ModelLoadError(f"{path}: the tokenizer has no padding token, so texts cannot be batched.")
    return tok


def load_model(
    path: Path,
    auto_class: str,
    device: torch.device,
    dtype: torch.dtype,
    *,
    optional_prefixes: Sequence[str] = (),
) -> Any:
    """Load `transformers.<auto_class>` from safetensors in fp32, then move/cast it; returns it in eval mode.

    Weights the checkpoint lacks would be random: that is an error, except names under `optional_prefixes`
    (e.g. BERT's pooler, which mean pooling never reads).
    """
    import transformers

    cls = getattr(transformers, auto_class)
    refuse_custom_code(path)
    with quiet_transformers():
        try:
            model, info = cls.from_pretrained(
                str(path),
                use_safetensors=True,
                local_files_only=True,
                trust_remote_code=False,
                dtype=torch.float32,  # cast afterwards: one code path whatever the checkpoint's own dtype
                output_loading_info=True,
            )
        except Exception as exc:
            raise ModelLoadError(f"cannot load the model in {path}: {exc}") from exc
    missing = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(tuple(optional_prefixes)))
    if missing:
        shown = ", ".join(missing[:5]) + (" …" if len(missing) > 5 else "")
        raise ModelLoadError(
            f"{path}: the checkpoint lacks {len(missing)} weight(s) the model needs ({shown}); "
            "they would be random. Is this the right kind of model?"
        )
    model = model.to(device=device).eval()
    return apply_dtype(model, dtype)


def apply_dtype(model: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """Cast an fp32 model for inference: bf16 as `mixed_bf16` (plain bf16 if the model can't run that way)."""
    if dtype != torch.bfloat16:
        return model.to(dtype)
    handles = mixed_bf16(model)
    try:
        _probe(model)
    except Exception:  # an architecture that feeds module weights to ops directly (e.g. relative positions)
        for h in handles:
            h.remove()
        model.to(torch.bfloat16)
    return model


def mixed_bf16(model: torch.nn.Module) -> list[Any]:
    """bf16 matmuls with an fp32 residual stream, without autocast's per-call weight casts.

    Linear weights become bf16 and their inputs are cast down; LayerNorm and embeddings stay fp32, so each
    residual sum (bf16 Linear output + fp32 skip connection) and every normalization run in fp32.
    Measured on MiniLM-L6: as fast as casting the whole model to bf16 and as close to fp32 as autocast
    (min cosine 0.99997 vs 0.99992). Returns the hook handles.
    """

    def to_weight_dtype(mod: torch.nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...]:
        weight = mod.weight
        assert isinstance(weight, torch.Tensor)  # hooked on Linear layers only
        return tuple(a.to(weight.dtype) if torch.is_tensor(a) and a.is_floating_point() else a for a in args)

    handles = []
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            module.to(torch.bfloat16)
            handles.append(module.register_forward_pre_hook(to_weight_dtype))
        elif isinstance(module, (torch.nn.LayerNorm, torch.nn.Embedding)):
            handles.append(keep_fp32(module))
    return handles


def _probe(model: torch.nn.Module) -> None:
    """One tiny forward pass, so a dtype mix the architecture cannot run fails at load, not mid-sync."""
    device = next(model.parameters()).device
    ids = torch.full((1, 4), 1, dtype=torch.long, device=device)
    with torch.inference_mode():
        model(input_ids=ids, attention_mask=torch.ones_like(ids))


def keep_fp32(module: torch.nn.Module) -> Any:
    """Run `module` in fp32 inside a reduced-precision model: cast it up and cast its float inputs up."""

    def up(_mod: torch.nn.Module, args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        cast: Callable[[Any], Any] = (  # noqa: E731
            lambda a: a.float() if torch.is_tensor(a) and a.is_floating_point() else a)
        return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}

    module.float()
    return module.register_forward_pre_hook(up, with_kwargs=True)


def collate(
    features: Mapping[str, Sequence[Sequence[int]]],
    indices: Sequence[int],
    *,
    pad_values: Mapping[str, int],
    padding_side: str,
    device: torch.device,
    round_to: int = 16,
) -> dict[str, torch.Tensor]:
    """Pad the rows `indices` of unpadded tokenizer output to their own longest: one (batch, seq) tensor per key.

    For CUDA the batch is built in pinned host memory and copied with non_blocking=True: the copy overlaps
    the previous batch's kernels instead of stalling the host.
    """
    lengths = np.fromiter((len(features["input_ids"][i]) for i in indices), dtype=np.int64, count=len(indices))
    width = int(lengths.max())
    if width > 32 and round_to > 1:
        # oneDNN caches a primitive (with repacked bf16 weights, tens of MB) per input shape: rounding long
        # batches up to a multiple of 16 bounds the shapes, so memory stops growing over a long sync.
        # fp32 (MKL) and CUDA have no such cache: their callers pass round_to=1 and pad no further.
        width = -(-width // round_to) * round_to
    pinned = device.type == "cuda"
    cols = np.arange(width)
    # (batch, seq) True where a token goes: row-major, so the rows' ids laid end to end fill it in order.
    filled = cols >= (width - lengths)[:, None] if padding_side == "left" else cols < lengths[:, None]
    total = int(lengths.sum())
    out: dict[str, torch.Tensor] = {}
    for key, rows in features.items():
        arr = np.full((len(indices), width), pad_values.get(key, 0), dtype=np.int64)  # (batch, seq)
        arr[filled] = np.fromiter(itertools.chain.from_iterable(rows[i] for i in indices), dtype=np.int64,
                                  count=total)
        host = torch.from_numpy(arr)
        if pinned:
            host = host.pin_memory()
        out[key] = host.to(device, non_blocking=pinned)
    return out


def pad_values_for(tokenizer: Any) -> dict[str, int]:
    return {
        "input_ids": int(tokenizer.pad_token_id),
        "attention_mask": 0,
        "token_type_ids": int(getattr(tokenizer, "pad_token_type_id", 0) or 0),
    }


def model_inputs(tokenizer: Any, encoding: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The tokenizer outputs the model takes (token_type_ids only where the model has them)."""
    names = set(getattr(tokenizer, "model_input_names", ("input_ids", "attention_mask")))
    names |= {"input_ids", "attention_mask"}
    return {k: v for k, v in encoding.items() if k in names}


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Use `n` intra-op threads for the enclosed work (0: leave torch's setting), then restore."""
    if n <= 0:
        yield
        return
    before = torch.get_num_threads()
    if before != n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if before != n:
            torch.set_num_threads(before)


def precision_context(device: torch.device,
                      autocast_dtype: torch.dtype | None) -> contextlib.AbstractContextManager[Any]:
    if autocast_dtype is None:
        return contextlib.nullcontext()
    autocast: contextlib.AbstractContextManager[Any] = torch.autocast(device_type=device.type, dtype=autocast_dtype)
    return autocast


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """No loading/saving bars or load reports on stderr: the app and the trainer report progress themselves."""
    from transformers.utils import logging as hf_logging

    with _LOAD_LOCK:
        bars = hf_logging.is_progress_bar_enabled()
        level = hf_logging.get_verbosity()
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        try:
            yield
        finally:
            hf_logging.set_verbosity(level)
            if bars:
                hf_logging.enable_progress_bar()
