"""Read sentence-pair TSV files: `score<TAB>s1<TAB>s2` (graded) or `label<TAB>s1<TAB>s2` (classes).

A first line whose first field is a column name (score, label) is a header. Fields wrapped in double quotes
(CSV-style, as in MRPC) are unquoted. Every other malformed line raises ConfigError("<file>:<line>: <reason>"):
a silently skipped pair would quietly change a training run or a score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

from ..base.errors import ConfigError

__all__ = ["ScoredPair", "LabeledPair", "read_scored_pairs", "read_labeled_pairs", "read_rows", "Triplet",
           "read_triplets"]

_HEADER_NAMES = {"score", "label", "labels", "gold", "anchor", "query"}


@dataclass(frozen=True)
class ScoredPair:
    text1: str
    text2: str
    score: float


@dataclass(frozen=True)
class LabeledPair:
    text1: str
    text2: str
    label: str


@dataclass(frozen=True)
class Triplet:
    anchor: str
    positive: str
    negative: str


def _unquote(field: str) -> str:
    if len(field) >= 2 and field[0] == '"' and field[-1] == '"':
        return field[1:-1].replace('""', '"')
    return field


def read_rows(path: Path, n_fields: int = 3) -> Iterator[tuple[str, list[str]]]:
    """("<file>:<line>", fields) for every data line: UTF-8, exactly `n_fields` tab-separated, none empty."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: not found")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise ConfigError(f"{where}: not UTF-8 ({exc.reason})") from None
            if not text.strip():
                continue
            fields = [_unquote(f.strip()) for f in text.split("\t")]
            if lineno == 1 and fields[0].lower() in _HEADER_NAMES:
                continue
            if len(fields) != n_fields:
                raise ConfigError(f"{where}: expected {n_fields} tab-separated fields, got {len(fields)}")
            for i, f in enumerate(fields):
                if not f:
                    raise ConfigError(f"{where}: field {i + 1} is empty")
            yield where, fields


def read_scored_pairs(path: Path, *, min_score: Optional[float] = None,
                      max_score: Optional[float] = None) -> list[ScoredPair]:
    """`score<TAB>s1<TAB>s2` rows; scores must be finite numbers (within [min_score, max_score] if given)."""
    out: list[ScoredPair] = []
    for where, (score, s1, s2) in read_rows(path):
        try:
            value = float(score)
        except ValueError:
            raise ConfigError(f"{where}: score {score!r} is not a number") from None
        if not math.isfinite(value):
            raise ConfigError(f"{where}: score {score!r} is not finite")
        if (min_score is not None and value < min_score) or (max_score is not None and value > max_score):
            raise ConfigError(f"{where}: score {value:g} is outside {min_score:g}..{max_score:g}")
        out.append(ScoredPair(s1, s2, value))
    if not out:
        raise ConfigError(f"{path}: no pairs")
    return out


def read_labeled_pairs(path: Path, labels: Optional[Sequence[str]] = None) -> list[LabeledPair]:
    """`label<TAB>s1<TAB>s2` rows; with `labels`, any other label is an error."""
    allowed = set(labels) if labels is not None else None
    out: list[LabeledPair] = []
    for where, (label, s1, s2) in read_rows(path):
        if allowed is not None and label not in allowed:
            raise ConfigError(f"{where}: label {label!r} is not one of {', '.join(sorted(allowed))}")
        out.append(LabeledPair(s1, s2, label))
    if not out:
        raise ConfigError(f"{path}: no pairs")
    return out


def read_triplets(path: Path) -> list[Triplet]:
    """`anchor<TAB>positive<TAB>negative` rows."""
    out = [Triplet(*fields) for _, fields in read_rows(path)]
    if not out:
        raise ConfigError(f"{path}: no triplets")
    return out
