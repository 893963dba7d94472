"""Results by file: how passage candidates become file candidates, so a person sees each file once.

A file's signal on each side (dense, lexical) is its best passage's (MaxP): its rank is the rank of its first
passage in that retriever's list and its score that passage's score. Fusion then runs over files, so a file
that one retriever finds through one passage and the other through another passage gets both votes. The
docs/benchmarks.md's "Figures" tables hold the figures behind this choice, including the bonus for a second matching
passage that was measured and not kept (long files with many middling passages climbed).

The retrievers are asked for more passages than files wanted (POOL_FACTOR) and, when one file's passages still
fill the list (a table of near-identical rows, a log), asked again with a wider list (up to MAX_POOL), so that
one file can never crowd the others out of the candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

__all__ = ["POOL_FACTOR", "MAX_POOL", "MORE_MAX", "FileGroup", "widen_to_files", "group_by_file", "file_ranking"]

POOL_FACTOR = 4  # passages asked of each retriever per file wanted
MAX_POOL = 4096  # the widest a retriever is asked when one file fills its list
MORE_MAX = 20  # other passages listed with a file hit (`more`)


def widen_to_files(fetch: Callable[[int], list[tuple[int, float]]], file_of: Callable[[Sequence[int]], Mapping[int, int]],
                   want_files: int, start: int, available: int) -> list[tuple[int, float]]:
    """Ask `fetch(n)` for n = start, 4 * start, ... passages until they come from `want_files` distinct files,
    the retriever has nothing more (`available`), or MAX_POOL is reached."""
    n = max(1, start)
    while True:
        got = fetch(n)
        if len(got) < n or n >= min(available, MAX_POOL):
            return got
        files = set(file_of([cid for cid, _ in got]).values())
        if len(files) >= want_files:
            return got
        n = min(n * 4, MAX_POOL, max(available, 1))


@dataclass
class FileGroup:
    file_id: int
    passages: list[int] = field(default_factory=list)  # chunk ids, best (passage-fused) first
    dense: float | None = None  # best passage cosine
    lexical: float | None = None  # best passage BM25
    dense_rank: int | None = None  # rank among files on the dense side (its first passage)
    lexical_rank: int | None = None


def group_by_file(passage_order: Sequence[int], file_of: Mapping[int, int], dense: Sequence[tuple[int, float]],
                  lexical: Sequence[tuple[int, float]], dense_score: Mapping[int, float | None],
                  lexical_score: Mapping[int, float | None]) -> dict[int, FileGroup]:
    """Files of the candidate passages (keyed by file id, in `passage_order`'s first-seen order)."""
    groups: dict[int, FileGroup] = {}
    for cid in passage_order:
        fid = file_of[cid]
        g = groups.setdefault(fid, FileGroup(fid))
        g.passages.append(cid)
        d, lx = dense_score.get(cid), lexical_score.get(cid)
        if d is not None and (g.dense is None or d > g.dense):
            g.dense = d
        if lx is not None and (g.lexical is None or lx > g.lexical):
            g.lexical = lx
    for side, ranked in (("dense_rank", dense), ("lexical_rank", lexical)):
        r = 0
        for cid, _ in ranked:
            found = groups.get(file_of.get(cid, -1))
            if found is not None and getattr(found, side) is None:
                r += 1
                setattr(found, side, r)
    return groups


def file_ranking(ranked: Sequence[tuple[int, float]], file_of: Mapping[int, int]) -> list[int]:
    """File ids in the order of their first passage in a retriever's list."""
    out: dict[int, None] = {}
    for cid, _ in ranked:
        if cid in file_of:
            out.setdefault(file_of[cid], None)
    return list(out)
