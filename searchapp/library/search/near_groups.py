"""Near duplicates in groups: the files that near pairs link, as exact copies are grouped by their sha256.

30 daily notes written from one template were 435 near pairs, 12 versions of one report 66: a person deciding what
to delete reads "these 12 files are one document in versions", then looks inside. A group is a connected component
of the near pairs (a file is in exactly one group; decision 0186): versions v1 ~ v2 ~ ... ~ v12 are one group though
v1 and v12 are far apart, and that is said, not hidden: the group's weakest near pair, and how many of its pairs of
files are not near duplicates at all, with the two that are the most near pairs apart. Exact copies inside a group
count as alike (they are never repeated as near pairs).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Protocol

from ...base.member_paths import display_path
from ...base.natural_order import natural_key

__all__ = ["NearGroup", "near_groups"]


class NearPairLike(Protocol):  # duplicates.NearPair, which imports this module
    a: str
    b: str
    similarity: float


@dataclass
class NearGroup:
    paths: list[str]  # its files, by path (as an exact group's)
    near: list[int]  # its near pairs: their places in DuplicateReport.near (best first)
    weakest: int  # the place of its near pair of lowest similarity
    lowest: float  # the similarity of that pair
    highest: float  # the similarity of its best near pair
    # Pairs of its files that are neither a near pair nor exact copies: they are in the group only through others
    # (A ~ B and B ~ C, A and C below the threshold or never compared)
    not_near: int = 0
    # When not_near: two of its files that are not near duplicates, the most near pairs apart, and how many
    apart: Optional[tuple[str, str, int]] = None
    caution: bool = False  # it may hold different documents: compare before deleting (duplicates.CAUTION)

    def to_json(self) -> dict[str, Any]:
        return {"paths": [display_path(p) for p in self.paths], "keys": self.paths, "near": self.near,
                "weakest": self.weakest, "lowest": round(self.lowest, 4), "highest": round(self.highest, 4),
                "not_near": self.not_near, "caution": self.caution,
                **({"apart": {"a": display_path(self.apart[0]), "b": display_path(self.apart[1]),
                              "a_key": self.apart[0], "b_key": self.apart[1], "steps": self.apart[2]}}
                   if self.apart else {})}


def near_groups(near: Sequence[NearPairLike], exact: list[list[str]], threshold: float,
                one_document: float) -> list[NearGroup]:
    """The connected components of `near` (each with at least one near pair), the surest first: by their weakest
    near pair, best first (a group of one pair sorts as that pair did), then the larger, then by path. A group
    carries the caution when its weakest near pair is below `one_document`, or when two of its files are not near
    duplicates at a `threshold` below it (their similarity is then below `one_document` too)."""
    parent: dict[str, str] = {}

    def root(p: str) -> str:
        parent.setdefault(p, p)
        while parent[p] != p:
            parent[p] = parent[parent[p]]  # path halving: a chain of 1,000 versions stays flat
            p = parent[p]
        return p

    for pair in near:
        ra, rb = root(pair.a), root(pair.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[str, list[int]] = defaultdict(list)
    for i, pair in enumerate(near):
        members[root(pair.a)].append(i)
    copy_of = {p: n for n, g in enumerate(exact) for p in g}  # a file -> its exact group
    groups = [_group(near, places, copy_of, threshold, one_document) for places in members.values()]
    return sorted(groups, key=lambda g: (-g.lowest, -len(g.paths), natural_key(g.paths[0])))


def _group(near: Sequence[NearPairLike], places: list[int], copy_of: dict[str, int], threshold: float,
           one_document: float) -> NearGroup:
    paths = sorted({p for i in places for p in (near[i].a, near[i].b)}, key=natural_key)
    weakest = min(places, key=lambda i: (near[i].similarity, -i))  # of equals, the one listed last
    group = NearGroup(paths, places, weakest, near[weakest].similarity, max(near[i].similarity for i in places))
    # Content, not files, is what the pairs link: exact copies are one node of the graph, alike by their bytes.
    node = {p: copy_of.get(p, p) for p in paths}
    links: dict[object, set[object]] = defaultdict(set)
    for i in places:
        a, b = node[near[i].a], node[near[i].b]
        if a != b:
            links[a].add(b)
            links[b].add(a)
    sizes: dict[object, int] = defaultdict(int)
    for p in paths:
        sizes[node[p]] += 1
    alike = sum(sizes[a] * sizes[b] for a in links for b in links[a]) // 2 + sum(n * (n - 1) // 2
                                                                                 for n in sizes.values())
    group.not_near = len(paths) * (len(paths) - 1) // 2 - alike
    if group.not_near and links:
        named: dict[object, str] = {}
        for p in paths:
            named.setdefault(node[p], p)  # a content by its first file
        group.apart = _farthest(links, named)
    group.caution = group.lowest < one_document or (group.not_near > 0 and threshold < one_document)
    return group


def _farthest(links: dict[object, set[object]], named: dict[object, str]) -> Optional[tuple[str, str, int]]:
    """Two files that are not near duplicates, the most near pairs apart from the least linked file: (its path, the
    other's path, how many near pairs lead from one to the other), breadth first."""
    start = min(links, key=lambda n: (len(links[n]), named[n]))
    steps = {start: 0}
    queue = deque([start])
    while queue:
        n = queue.popleft()
        for m in sorted(links[n], key=lambda m: named[m]):
            if m not in steps:
                steps[m] = steps[n] + 1
                queue.append(m)
    end = max(steps, key=lambda n: (steps[n], named[n]))
    if steps[end] < 2:  # the least linked file is near all the others: two copies of one file apart are not
        return None
    return named[start], named[end], steps[end]
