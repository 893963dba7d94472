"""Queries through ONNX Runtime: the bi-encoder's own fp32 graph, exported once, run without torch.

A query is one short sequence: per-op overhead, not arithmetic, dominates its forward. ONNX Runtime runs the
same fp32 graph with fused attention and LayerNorm kernels, several times faster than torch at batch 1 and
without importing torch at all (tests/benchmarks/bench_query_paths.py, docs/design-notes.md). Passages stay on
torch (bf16 where it pays): big batches are arithmetic, which torch's bf16 kernels do best.

The graph is this library's own export of the configured bi-encoder (transformer body + the bi-encoder's
pooling + L2 normalization, traced from the same code `BiEncoder` runs), written after a sync into the data
folder's model cache, keyed by the model's fingerprint and the onnxruntime version. Only such a file is ever
loaded: a name we chose, inside that folder, a regular file of ours (mode 0600), under a size cap, whose
answer to a probe sentence matches the one recorded at export. Anything else (onnxruntime missing, an export
that fails, a damaged or foreign file) means queries go through torch or NumPy as before, with one log line.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..base.errors import ModelLoadError
from ..base.no_telemetry import quiet_onnxruntime
from ..base.private import make_private_dir

__all__ = ["OnnxQueryEncoder", "export_query_model", "load_onnx_query_encoder", "cache_files", "CACHE_DIR",
           "QUERY_THREADS", "describe_query_path"]

log = logging.getLogger(__name__)

CACHE_DIR = "model-cache"  # under the data folder
MAX_BYTES = 2 << 30  # a BERT-base export is ~0.4 GB; nothing bigger is ever read
PROBE = "a test sentence"
QUERY_THREADS = 1  # as torch's query path: a second thread collapses when a sync holds the other core
_POOLINGS = ("mean", "cls", "max")  # traceable from the last hidden state alone
_EXPORT_LOCK = threading.Lock()


def _ort_version() -> Optional[str]:
    """The installed onnxruntime's version, from its metadata when it can (importing it costs a third of a
    second, too much for `status`)."""
    from importlib import metadata

    for dist in ("onnxruntime", "onnxruntime-gpu", "onnxruntime-openvino", "onnxruntime-directml"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    try:
        quiet_onnxruntime()
        import onnxruntime
    except ImportError:
        return None
    return str(onnxruntime.__version__)


def describe_query_path(cache_dir: Path, fingerprint: str, pooling: str, *,
                        loaded_dtype: Optional[str] = None) -> str:
    """What encodes queries, said without loading anything: `status` and the window's device label.
    `loaded_dtype`: the torch bi-encoder's dtype when this process has it loaded."""
    files = cache_files(cache_dir, fingerprint)
    if files is not None and _trusted_file(files[0], cache_dir) and files[1].is_file():
        plural = "s" if QUERY_THREADS > 1 else ""
        label = f"onnxruntime fp32 ({QUERY_THREADS} thread{plural})"
        return label if loaded_dtype else f"{label}; numpy fp32 for a cold command-line search"
    later = ""
    if files is not None and pooling in _POOLINGS + ("auto",) and not _failed_mark(files[0]).exists():
        later = "; onnxruntime fp32 after the next sync that loads the model"
    if loaded_dtype:
        name = {"torch.float32": "fp32", "torch.bfloat16": "bf16", "torch.float16": "fp16"}.get(loaded_dtype,
                                                                                               loaded_dtype)
        return f"torch {name}{later}"
    return f"numpy fp32; torch if the model is not plain BERT{later}"  # the label shows the part before the first ;


def cache_files(cache_dir: Path, fingerprint: str) -> Optional[tuple[Path, Path]]:
    """(graph, sidecar) paths for this model and the installed onnxruntime; None without onnxruntime."""
    version = _ort_version()
    if version is None:
        return None
    stem = f"query-{fingerprint}-ort{version}"
    return cache_dir / f"{stem}.onnx", cache_dir / f"{stem}.json"


def _failed_mark(graph: Path) -> Path:
    """Written when this model's export failed with this onnxruntime: later syncs do not spend seconds again."""
    return graph.with_suffix(".failed")


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _export_bytes(module: Any, example: tuple[Any, ...], names: list[str]) -> bytes:
    """TorchScript-exporter ONNX bytes. That exporter ends by passing the model through the `onnx` package only
    to splice in onnxscript functions, which a transformer body never has; without that package the pass is
    skipped here (the result is then checked against torch before it is kept)."""
    import importlib.util
    import io

    import torch
    from torch.onnx._internal.torchscript_exporter import onnx_proto_utils as proto_utils

    patch = None
    if importlib.util.find_spec("onnx") is None:
        patch = proto_utils._add_onnxscript_fn

        def unchanged(model_bytes: bytes, custom_opsets: Any) -> bytes:
            return model_bytes

        proto_utils._add_onnxscript_fn = unchanged
    buf = io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes meant for model authors; the result is checked instead
            torch.onnx.export(module, example, buf,  # a file object works too (torch is Any to mypy: decision 0128)
                              input_names=names, output_names=["vector"],
                              dynamic_axes={**{k: {0: "batch", 1: "tokens"} for k in names}, "vector": {0: "batch"}},
                              opset_version=17, dynamo=False)
    finally:
        if patch is not None:
            proto_utils._add_onnxscript_fn = patch
    return buf.getvalue()


def export_query_model(model_path: Path, *, pooling: str, max_seq_length: int, fingerprint: str,
                       cache_dir: Path) -> Optional[Path]:
    """Export the bi-encoder in `model_path` (fp32, with its pooling and normalization) into `cache_dir`, unless
    a good export is already there. Returns the graph's path, or None (logged once) when this model, pooling
    or machine has no ONNX query path. Costs seconds and imports torch: call it where torch is loaded anyway."""
    files = cache_files(cache_dir, fingerprint)
    pooling = _running_pooling(model_path, pooling)
    if files is None or pooling not in _POOLINGS or not (model_path / "tokenizer.json").is_file():
        return None
    graph, sidecar = files
    with _EXPORT_LOCK:
        if _trusted_file(graph, cache_dir) and sidecar.is_file():
            return graph
        if _failed_mark(graph).exists():
            return None
        try:
            data, meta = _export(model_path, pooling, max_seq_length)
            make_private_dir(cache_dir)
            for old in cache_dir.glob("query-*"):  # exports (or failures) of other models or onnxruntime versions
                if old not in (graph, sidecar):
                    old.unlink(missing_ok=True)
            for tmp in cache_dir.glob(".tmp-*"):  # left by a process that died mid-write (another may be writing)
                if time.time() - tmp.stat().st_mtime > 3600:
                    tmp.unlink(missing_ok=True)
            _write_atomic(graph, data)
            _write_atomic(sidecar, json.dumps(meta).encode())
            encoder = load_onnx_query_encoder(cache_dir, fingerprint, model_path, max_seq_length=max_seq_length)
            if encoder is None:
                raise RuntimeError("the exported graph does not load")
        except Exception as exc:  # optional fast path: torch answers queries instead
            log.info("ONNX query path not available for %s (%s); queries use torch", model_path.name, exc)
            graph.unlink(missing_ok=True)
            sidecar.unlink(missing_ok=True)
            try:
                make_private_dir(cache_dir)
                _write_atomic(_failed_mark(graph), f"{type(exc).__name__}: {exc}\n".encode())
            except OSError:
                pass
            return None
    return graph


def _running_pooling(model_path: Path, pooling: str) -> str:
    """models.pooling as the bi-encoder runs it ("auto": the model's declared one); "" when it cannot run."""
    from .sentence_conventions import read_conventions, resolve_pooling

    try:
        return resolve_pooling(pooling, read_conventions(model_path))
    except ModelLoadError:
        return ""


def _query_prompt(model_path: Path) -> str:
    from .sentence_conventions import read_conventions

    return read_conventions(model_path).query_prompt


def _export(model_path: Path, pooling: str, max_seq_length: int) -> tuple[bytes, dict[str, Any]]:
    import torch
    import torch.nn.functional as F

    from .pooling import pool
    from .transformer import collate, model_inputs, pad_values_for

    tokenizer, model = _load_fp32(model_path)
    names = list(model_inputs(tokenizer, {"input_ids": 0, "attention_mask": 0, "token_type_ids": 0}))

    def tensors(texts: list[str], **kwargs: Any) -> tuple[torch.Tensor, ...]:
        enc = model_inputs(tokenizer, tokenizer(texts, **kwargs))
        batch = collate(enc, range(len(texts)), pad_values=pad_values_for(tokenizer), padding_side="right",
                        device=torch.device("cpu"), round_to=1)
        return tuple(batch[k] for k in names)

    class Query(torch.nn.Module):
        """Transformer body + the bi-encoder's pooling + L2 normalization, as BiEncoder._forward."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            feed = dict(zip(names, inputs, strict=True))
            hidden = self.model(**feed, return_dict=True).last_hidden_state
            return F.normalize(pool(hidden, feed["attention_mask"], pooling).float(), p=2, dim=1)

    example = tensors(["a probe", "a longer probe sentence for tracing"])
    with torch.inference_mode(False), torch.no_grad():
        data = _export_bytes(Query().eval(), example, names)
        probe = Query().eval()(*tensors([PROBE], truncation=True, max_length=max_seq_length))[0].numpy()
    return data, {"inputs": names, "probe": [float(x) for x in probe], "max_seq_length": max_seq_length,
                  "pooling": pooling}


def _load_fp32(model_path: Path) -> tuple[Any, Any]:
    """(tokenizer, fp32 model on the CPU) as BiEncoder loads them: from the files alone for a plain BERT."""
    import torch

    from . import plain_bert
    from .tokenizer_file import FileTokenizer
    from .transformer import load_model, load_tokenizer

    tokenizer = FileTokenizer.from_files(model_path)
    model = plain_bert.load(model_path) if tokenizer is not None else None
    if tokenizer is None or model is None:
        tokenizer = load_tokenizer(model_path, require_fast=True)
        model = load_model(model_path, "AutoModel", torch.device("cpu"), torch.float32, optional_prefixes=("pooler.",))
    return tokenizer, model


def _trusted_file(path: Path, cache_dir: Path) -> bool:
    """Our own export: inside the cache folder (no link out of it), a regular file, 0600-style, size-capped."""
    try:
        if path.resolve().parent != cache_dir.resolve():
            return False
        st = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0 or st.st_size > MAX_BYTES:
        return False
    if os.name == "posix" and (st.st_mode & 0o077 or st.st_uid != os.geteuid()):
        return False
    return True


def load_onnx_query_encoder(cache_dir: Path, fingerprint: str, model_path: Path, *, max_seq_length: int,
                            threads: int = QUERY_THREADS, prompts: bool = True) -> Optional["OnnxQueryEncoder"]:
    """The cached export for this model, ready to encode; None when there is none (or onnxruntime is
    missing). A file that is there but fails any check is removed (the next sync exports it again)."""
    files = cache_files(cache_dir, fingerprint)
    if files is None:
        return None
    graph, sidecar = files
    if not graph.exists() and not sidecar.exists():
        return None
    try:
        if not (_trusted_file(graph, cache_dir) and _trusted_file(sidecar, cache_dir)):
            raise ValueError("not a file this program wrote")
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
        if meta.get("max_seq_length") != max_seq_length:
            raise ValueError("exported for another max_seq_length")
        encoder = OnnxQueryEncoder(graph, model_path / "tokenizer.json", list(meta["inputs"]),
                                   max_seq_length=max_seq_length, threads=threads, prompt=_query_prompt(model_path) if prompts else "")
        got = encoder.encode_text(PROBE)  # the probe was recorded without a prompt
        want = np.asarray(meta["probe"], dtype=np.float32)
        if got.shape != want.shape or not np.isfinite(got).all() or float(got @ want) < 0.99999:
            raise ValueError("its vector for a probe sentence differs from the one recorded at export")
    except Exception as exc:  # a damaged cache means "export again", never a failed search
        log.warning("ignoring the cached ONNX query model %s (%s); queries use torch until the next sync "
                    "exports it again", graph.name, exc)
        graph.unlink(missing_ok=True)
        sidecar.unlink(missing_ok=True)
        return None
    return encoder


class OnnxQueryEncoder:
    """Queries (and a search's passages, search/meaning_now.py) → float32 unit vectors; no torch, no transformers."""

    def __init__(self, graph: Path, tokenizer_json: Path, inputs: Sequence[str], *, max_seq_length: int,
                 threads: int = QUERY_THREADS, prompt: str = "") -> None:
        quiet_onnxruntime()  # no telemetry files, no events (base/no_telemetry.py)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        so = ort.SessionOptions()
        so.intra_op_num_threads = max(1, threads)
        so.inter_op_num_threads = 1
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # shared cores: no busy-waiting
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.log_severity_level = 3
        self.session = ort.InferenceSession(str(graph), so, providers=["CPUExecutionProvider"])
        self.threads = max(1, threads)
        self.inputs = list(inputs)
        self.tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=max_seq_length)
        self.description = f"onnxruntime fp32 ({self.threads} thread{'s' if self.threads > 1 else ''})"
        self.prompt = prompt  # the model's query prompt (sentence_conventions.py)

    def encode_one(self, query: str) -> np.ndarray:
        """A query's vector: the model's query prompt in front, as BiEncoder.encode_query."""
        vector: np.ndarray = self.encode_many([query])[0]
        return vector

    def encode_many(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) vectors of `texts`, the prompt in front of each, in one run: padded to the longest, the
        padding masked (the graph pools with the attention mask, as BiEncoder does)."""
        return self._vectors([self.prompt + t for t in texts])

    def encode_text(self, text: str) -> np.ndarray:
        """`text` as it is, no prompt (the export's probe was recorded so)."""
        vector: np.ndarray = self._vectors([text])[0]
        return vector

    def _vectors(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encs = self.tokenizer.encode_batch(texts)
        width = max((len(e.ids) for e in encs), default=0)
        cols = {k: np.zeros((len(encs), width), dtype=np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
        for i, e in enumerate(encs):  # padding: id 0 under a mask of 0, which no real word piece attends to
            n = len(e.ids)
            cols["input_ids"][i, :n] = e.ids
            cols["attention_mask"][i, :n] = e.attention_mask
            cols["token_type_ids"][i, :n] = e.type_ids
        return np.asarray(self.session.run(None, {k: cols[k] for k in self.inputs})[0], dtype=np.float32)
