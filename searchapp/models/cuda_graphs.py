"""A forward replayed from captured CUDA graphs, one per padded batch shape.

A rerank call is one small forward: on a GPU its kernels take far less time than Python takes to launch
them. A CUDA graph records the launches once and replays them with one call. Shapes are bucketed (rows to a
power of two, word pieces to a multiple of 32) so a handful of graphs serves every call; each is captured the
first time its shape is needed (tens of milliseconds), inputs are copied into its fixed buffers, and the
extra rows and columns are padding the attention mask hides. Replays share one memory pool and one lock:
two searches reranking at once take turns, which costs less than either's Python launch overhead did.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping

import numpy as np
import torch

__all__ = ["GraphedForward", "bucket"]

WIDTH_STEP = 32
MIN_ROWS = 8
KEYS = ("input_ids", "attention_mask", "token_type_ids")


def bucket(rows: int, width: int, *, max_rows: int, max_width: int) -> tuple[int, int]:
    """The captured shape a (rows, width) batch is padded to: rows up to a power of two (at least MIN_ROWS,
    at most max(max_rows, rows)), width up to a multiple of WIDTH_STEP (at most max(max_width, width))."""
    r = MIN_ROWS
    while r < rows:
        r *= 2
    w = -(-width // WIDTH_STEP) * WIDTH_STEP
    return min(r, max(max_rows, rows)), min(w, max(max_width, width))


def padded_batch(arrays: Mapping[str, np.ndarray], shape: tuple[int, int],
                 pad_values: Mapping[str, int]) -> dict[str, np.ndarray]:
    """`arrays` ((n, w) int64 per key, right-padded) padded to `shape` (R >= n, W >= w). Rows past the batch
    attend to their first position only, so their (discarded) outputs stay finite."""
    n, w = arrays["input_ids"].shape
    out = {}
    for key in KEYS:
        arr = np.full(shape, pad_values.get(key, 0), dtype=np.int64)
        if key in arrays:
            arr[:n, :w] = arrays[key]
        out[key] = arr
    out["attention_mask"][n:, 0] = 1
    return out


class GraphedForward:
    """fn(input_ids, attention_mask, token_type_ids) -> (rows,) logits, replayed from CUDA graphs."""

    def __init__(self, fn: Callable[..., torch.Tensor], device: torch.device, *, max_rows: int,
                 max_width: int, pad_values: Mapping[str, int]) -> None:
        self._fn = fn
        self._device = device
        self._max_rows, self._max_width = max_rows, max_width
        self._pad = dict(pad_values)
        self._graphs: dict[tuple[int, int], tuple[torch.cuda.CUDAGraph, dict[str, torch.Tensor], torch.Tensor]] = {}
        self._pool: Any = None  # one memory pool for every shape's graph (replays take turns)
        self._lock = threading.Lock()

    @property
    def shapes(self) -> list[tuple[int, int]]:
        return sorted(self._graphs)

    def __call__(self, arrays: Mapping[str, np.ndarray]) -> torch.Tensor:
        """(n,) fp32 logits on the device for (n, w) right-padded token arrays (n <= max_rows)."""
        n, width = arrays["input_ids"].shape
        shape = bucket(n, width, max_rows=self._max_rows, max_width=self._max_width)
        host = padded_batch(arrays, shape, self._pad)
        with self._lock, torch.inference_mode():
            graph, inputs, output = self._graphs.get(shape) or self._capture(shape)
            for key in KEYS:
                inputs[key].copy_(torch.from_numpy(host[key]), non_blocking=False)
            graph.replay()
            return output[:n].clone()  # the next replay reuses `output`

    def _capture(self, shape: tuple[int, int]) -> tuple[Any, dict[str, Any], Any]:
        empty = {"input_ids": np.zeros((0, 0), dtype=np.int64)}
        inputs = {k: torch.from_numpy(v).to(self._device) for k, v in padded_batch(empty, shape, self._pad).items()}
        args = (inputs["input_ids"], inputs["attention_mask"], inputs["token_type_ids"])
        side = torch.cuda.Stream(self._device)
        side.wait_stream(torch.cuda.current_stream(self._device))
        with torch.cuda.stream(side):  # warm-up outside the capture: kernels chosen, workspaces allocated
            for _ in range(2):
                self._fn(*args)
        torch.cuda.current_stream(self._device).wait_stream(side)
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool):
            output = self._fn(*args)
        self._graphs[shape] = (graph, inputs, output)
        return graph, inputs, output
