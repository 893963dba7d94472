"""Training sets from the TSV and BEIR layouts (see ../shared/data/README.md for the formats).

Bi-encoder objectives:  regression  `score<TAB>s1<TAB>s2` (scores divided by max_score, 0..5 → 0..1)
                        softmax     `label<TAB>s1<TAB>s2` (class names, e.g. entailment/neutral/contradiction)
                        triplet     `anchor<TAB>positive<TAB>negative`, or a BEIR folder + mined negatives
Cross-encoder:          `label<TAB>s1<TAB>s2` with 0/1 (binary), numbers (graded) or names (k classes),
                        or a BEIR folder: judged pairs are positives, mined negatives are label 0.
Malformed rows raise ConfigError with file:line and the reason; nothing is skipped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..base.errors import ConfigError
from ..base.progress import CancelToken, ProgressFn
from ..datasets.beir import load_beir
from ..datasets.pairs import read_labeled_pairs, read_rows, read_scored_pairs, read_triplets
from .mining import TextEncoder, mine_hard_negatives

__all__ = ["TextColumns", "regression_data", "softmax_data", "triplet_data", "cross_encoder_data", "OBJECTIVES"]

OBJECTIVES = ("regression", "softmax", "triplet")


@dataclass
class TextColumns:
    """Parallel text columns (2 for pairs, 3 for triplets), one label per row (None for triplets)."""

    columns: list[list[str]]
    labels: Optional[list[float]] = None
    label_names: list[str] = field(default_factory=list)  # class index -> name (softmax / k-label)
    kind: str = ""  # regression | softmax | triplet | binary | graded | classes
    sources: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def subsample(self, n: Optional[int], seed: int) -> "TextColumns":
        """The first n rows of a seeded shuffle (the same n rows for the same seed)."""
        if n is None or n >= len(self):
            return self
        import random

        keep = sorted(random.Random(seed).sample(range(len(self)), n))
        return TextColumns([[c[i] for i in keep] for c in self.columns],
                           None if self.labels is None else [self.labels[i] for i in keep],
                           self.label_names, self.kind, self.sources)


def regression_data(paths: Sequence[Path], max_score: float = 5.0) -> TextColumns:
    if max_score <= 0:
        raise ConfigError("max score must be > 0")
    a, b, y = [], [], []
    for path in paths:
        _require_file(path, "regression")
        for p in read_scored_pairs(Path(path), min_score=0.0, max_score=max_score):
            a.append(p.text1)
            b.append(p.text2)
            y.append(p.score / max_score)
    return TextColumns([a, b], y, kind="regression", sources=[str(p) for p in paths])


def softmax_data(paths: Sequence[Path], label_names: Optional[Sequence[str]] = None) -> TextColumns:
    pairs = []
    for path in paths:
        _require_file(path, "softmax")
        pairs += read_labeled_pairs(Path(path), labels=label_names)
    names = list(label_names) if label_names else sorted({p.label for p in pairs})
    if len(names) < 2:
        raise ConfigError(f"the softmax objective needs at least 2 labels, found {names}")
    index = {n: i for i, n in enumerate(names)}
    return TextColumns([[p.text1 for p in pairs], [p.text2 for p in pairs]], [float(index[p.label]) for p in pairs],
                       names, "softmax", [str(p) for p in paths])


def triplet_data(paths: Sequence[Path], miner: Optional[Callable[[], TextEncoder]] = None, *, negatives: int = 1,
                 pool: int = 30, split: str = "test", seed: int = 42, progress: Optional[ProgressFn] = None,
                 cancel: Optional[CancelToken] = None) -> TextColumns:
    """TSV triplets as given; BEIR folders through `miner()` (a bi-encoder, loaded only if needed)."""
    a, p, n = [], [], []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            if miner is None:
                raise ConfigError(f"{path}: a BEIR folder needs a bi-encoder to mine negatives")
            for ex in mine_hard_negatives(miner(), load_beir(path, split), negatives=max(1, negatives), pool=pool,
                                          seed=seed, progress=progress, cancel=cancel):
                for neg in ex.negatives:
                    a.append(ex.query)
                    p.append(ex.positive)
                    n.append(neg)
        else:
            for t in read_triplets(path):
                a.append(t.anchor)
                p.append(t.positive)
                n.append(t.negative)
    if not a:
        raise ConfigError("no triplets in " + ", ".join(str(x) for x in paths))
    return TextColumns([a, p, n], None, kind="triplet", sources=[str(x) for x in paths])


def cross_encoder_data(paths: Sequence[Path], miner: Optional[Callable[[], TextEncoder]] = None, *, negatives: int = 4,
                       pool: int = 30, split: str = "test", max_score: Optional[float] = None, seed: int = 42,
                       progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> TextColumns:
    """(text1, text2, label) rows; kind is binary (0/1), graded (numbers → /max_score) or classes (names)."""
    a, b, raw = [], [], []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            if miner is None:
                raise ConfigError(f"{path}: a BEIR folder needs a bi-encoder to mine negatives")
            for ex in mine_hard_negatives(miner(), load_beir(path, split), negatives=negatives, pool=pool, seed=seed,
                                          progress=progress, cancel=cancel):
                a.append(ex.query)
                b.append(ex.positive)
                raw.append(("1", f"{path} (judged)"))
                for neg in ex.negatives:
                    a.append(ex.query)
                    b.append(neg)
                    raw.append(("0", f"{path} (mined)"))
        else:
            for where, (label, s1, s2) in read_rows(path):
                a.append(s1)
                b.append(s2)
                raw.append((label, where))
    if not a:
        raise ConfigError("no pairs in " + ", ".join(str(x) for x in paths))
    labels = [r for r, _ in raw]
    if set(labels) <= {"0", "1"}:
        return TextColumns([a, b], [float(x) for x in labels], ["not relevant", "relevant"], "binary",
                           [str(x) for x in paths])
    numbers = [v for v in map(_number, labels) if v is not None]
    if len(numbers) == len(labels):  # every label a number
        top = max_score if max_score is not None else max(numbers)
        if top <= 0:
            raise ConfigError(f"graded scores need a maximum above 0 (got {top:g}); pass --max-score")
        for (label, where), v in zip(raw, numbers, strict=True):
            if v < 0 or v > top:
                raise ConfigError(f"{where}: score {label!r} is outside 0..{top:g}")
        return TextColumns([a, b], [v / top for v in numbers], [], "graded", [str(x) for x in paths])
    mixed = [(label, where) for label, where in raw if _number(label) is not None]
    if mixed:
        label, where = mixed[0]
        raise ConfigError(f"{where}: numeric label {label!r} in a file of class names")
    names = sorted(set(labels))
    index = {n: i for i, n in enumerate(names)}
    return TextColumns([a, b], [float(index[x]) for x in labels], names, "classes", [str(x) for x in paths])


def _number(text: str) -> Optional[float]:
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _require_file(path: Path, objective: str) -> None:
    if Path(path).is_dir():
        raise ConfigError(f"{path}: the {objective} objective reads a TSV file, not a folder")
