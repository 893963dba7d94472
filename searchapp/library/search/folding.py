"""One row per content in results by file: exact copies of a file share a row, and text repeated across many
files (boilerplate.py) fills at most one.

Runs on the candidates before files are ranked, so the rows it frees are filled by other files:
- exact copies (the same sha256, as the duplicates feature finds them): one copy keeps the row, the others leave
  the candidates and are listed with it (`Hit.copies`). The copy shown is, in this order: one that can be opened
  (a copy on a missing folder or an unplugged drive never hides a readable one), a file on disk before a member
  of a container (`notes.md` opens directly, `backup.zip › notes.md` does not), then the first found (best or
  newest). The same rule picks the row of a listing by date (constraints.py) and of Similar files (similar.py).
  In a search's ranking "first found" is the copy indexed first (the lowest file id): copies share their passages,
  so their order among the candidates is how the index broke a tie, not relevance, and a copy indexed later (a
  backup, `pdfcopy/`) took the row from the file a person knew, which a saved search then counted as new;
- common passages: they leave their files' signals; a file whose best passage is repeated text keeps a row only
  when it is the first matched through that text (`Hit.common_to`: files of the library holding it), the others
  go on by their own passages;
- a container's listing (an mbox's subjects, a zip's names) where a member of it among the candidates answers the
  query (listings.py): the member's own row is the answer.

Decision: a row's copies are those within the search's scope. The candidates are all in scope (the folder of an
`in:`, a `type:`, dates, a name, the filter bar), so the copy shown always is; the copies listed with it are the
library's files with its content that the same scope allows, and a copy outside the scope is left out (a search
`in:~/Recipes` listed `~/Notes/bread.txt` under `+2 copies`, read as if it were in Recipes). That a copy lies
elsewhere is still true: a search without the scope, and `searchapp duplicates`, list every copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional, Sequence

from ...base.member_paths import split_member
from ...base.types import Hit, NearCopy
from ...ingest.fsnames import other_files
from ...store import Store
from ...store.ledger import files_by_id
from ...store.scope import Fragment, all_of, with_content
from .availability import Readable
from .boilerplate import COMMON_WEIGHT, MIN_FILES, find_common, phrase_of
from .grouping import FileGroup
from .listings import answered_listings

__all__ = ["Copies", "Folded", "copies_of", "fold_candidates", "fold_copies", "mark_folded", "on_disk_elsewhere",
           "weigh_common", "weigh_reranked"]


@dataclass
class Folded:
    dropped: set[int] = field(default_factory=set)  # passage ids left out of the file ranking
    common_key: dict[int, str] = field(default_factory=dict)  # file id -> the repeated text its row stands for
    phrase: dict[str, str] = field(default_factory=dict)  # that text (its key) -> its words, to count its files
    sha_of: dict[int, str] = field(default_factory=dict)  # file id -> sha256, of files with a copy among the candidates
    row_of: dict[int, int] = field(default_factory=dict)  # file id -> the copy whose row it shares (Copies.row_of)

    def keep(self, ranked: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
        return [(c, s) for c, s in ranked if c not in self.dropped]


@dataclass
class Copies:
    """Exact copies among listed files: which file's row each shares, and the content of each such row."""

    row_of: dict[int, int] = field(default_factory=dict)  # file id -> the file whose row it shares (itself there)
    sha_of: dict[int, str] = field(default_factory=dict)  # that row's file -> sha256, of files with a copy listed


def fold_copies(store: Store, files: Sequence[int], path_of: Mapping[int, str]) -> Copies:
    """Exact copies among `files` (best or newest first; a file may come again), for results by file of a
    search, of a listing by date and of Similar files alike: each content's row goes to the copy `_shown` picks.
    `path_of`: file id -> its stored path."""
    order = list(dict.fromkeys(files))
    shas = store.file_sha256s(order)
    copies_of: dict[str, list[int]] = {}
    for fid in order:
        if fid in shas:
            copies_of.setdefault(shas[fid], []).append(fid)
    out = Copies()
    readable = Readable(store)  # lazy: asks for the roots only when some content has two files
    for sha, fids in copies_of.items():
        if len(fids) < 2:
            continue
        keeper = _shown(fids, path_of, readable)
        out.sha_of[keeper] = sha
        out.row_of.update(dict.fromkeys(fids, keeper))
    return out


def _shown(fids: list[int], path_of: Mapping[int, str], readable: Callable[[str], bool]) -> int:
    """The copy that shows a content's row: the first that can be opened (availability.Readable: by its root),
    files on disk before members of a container; none can: the first file on disk, else the first member."""
    ordered = sorted(fids, key=lambda f: split_member(path_of[f])[1] is not None)  # stable: the order given kept
    return next((f for f in ordered if readable(path_of[f])), ordered[0])


def on_disk_elsewhere(store: Store, path_of: Mapping[int, str], where: Optional[Fragment]) -> set[int]:
    """Of the rows `path_of` (file id -> path) a member of a container shows, those whose content a file on disk
    that can be opened holds too, within `where`: that file shows the row (`_shown`'s rule), where a listing by
    date read only the member (constraints.py). Asked for all the rows at once, nothing when no member shows one."""
    members = [f for f, p in path_of.items() if split_member(p)[1] is not None]
    if not members:
        return set()
    shas = store.file_sha256s(members)
    paths = copies_of(store, set(shas.values()), where)
    readable = Readable(store)
    return {f for f, sha in shas.items()
            if any(split_member(p)[1] is None and readable(p) for p in paths.get(sha, []))}


def fold_candidates(store: Store, query: str, passage_order: Sequence[int], file_of: Mapping[int, int],
                    texts: Mapping[int, str], path_of: Mapping[int, str]) -> Folded:
    """Which candidate passages leave the file ranking (`passage_order`: best first; `path_of`: file id -> path)."""
    out = Folded()
    # the copy indexed first keeps the row (module doc): copies tie on their shared passages
    copies = fold_copies(store, sorted({file_of[c] for c in passage_order}), path_of)
    out.sha_of, out.row_of = copies.sha_of, copies.row_of
    out.dropped = {c for c in passage_order if copies.row_of.get(file_of[c], file_of[c]) != file_of[c]}
    # A container's listing where a member of it answers the query (listings.py): a member folded away above as a
    # copy of another file counts, its content has that copy's row.
    out.dropped |= answered_listings(query, passage_order, file_of, texts, path_of)
    left = [c for c in passage_order if c not in out.dropped]
    common = find_common(query, {c: texts[c] for c in left}, {c: file_of[c] for c in left},
                         count_files=store.files_with_phrase)
    if not common.key_of:
        return out
    out.phrase = common.phrase
    best: dict[int, int] = {}  # file -> its best candidate passage
    for cid in left:
        best.setdefault(file_of[cid], cid)
    # A file is matched through repeated text when its best passage is one: the first such file stands for that
    # text, the others go on by their own passages, if any, below. A file whose own passage comes first is ranked
    # by its own passages. (Having any own passage among the candidates is not enough: in a small library, or by
    # meaning, every file has some, and the text's row then vanished while each file kept a weak row of its own.)
    row_of_text: dict[str, int] = {}
    for fid, cid in best.items():
        if cid in common:
            key = common.key_of[cid]
            if row_of_text.setdefault(key, fid) == fid:
                out.common_key[fid] = key
    out.dropped.update(c for c in left if c in common and file_of[c] not in out.common_key)
    # A file whose every passage was dropped above leaves the list whole.
    stands = set(out.common_key) | {file_of[c] for c in left if c not in out.dropped}
    out.dropped.update(c for c in left if file_of[c] not in stands)
    return out


def mark_folded(store: Store, hits: list[Hit], file_of: Mapping[int, int], folded: Folded,
                where: Optional[Fragment] = None) -> None:
    """Fill `copies` and `common_to` of the rows shown (counted in the whole library); `where`: the search's scope,
    the copies listed are those it allows (module docstring). Copies share every passage and so are candidates
    together: only a file with one among the candidates is looked up (no scan of every file's hash at each
    search)."""
    shown = {file_of[h.chunk_id]: h for h in hits if h.chunk_id in file_of}
    near = {n.file_id: folded.sha_of[n.file_id] for h in hits for n in h.near_copies if n.file_id in folded.sha_of}
    copies = copies_of(store, {folded.sha_of[f] for f in shown if f in folded.sha_of} | set(near.values()), where)
    for fid, h in shown.items():
        sha = folded.sha_of.get(fid)
        # its own other names (a link to it, a hard link) are the file itself, not a copy (decision 0192)
        h.copies = other_files(h.path, copies.get(sha, [])) if sha is not None else []
        _near_copies_copies(h, near, copies)
        key = folded.common_key.get(fid)
        if key is not None:
            h.common_to = max(store.files_with_phrase(phrase_of(folded.phrase[key])), MIN_FILES)


def _near_copies_copies(h: Hit, near: Mapping[int, str], copies: Mapping[str, list[str]]) -> None:
    """A near copy's own exact copies listed with it among `h.near_copies`: they left the candidates for its row
    before that row was folded into `h` (near_copies.py), and were then in no row at all (report.pdf folded under
    report.docx, "report (1).pdf" beside it nowhere)."""
    listed = {n.path for n in h.near_copies}
    for n in list(h.near_copies):
        sha = near.get(n.file_id) if n.file_id is not None else None
        for path in other_files(n.path, copies.get(sha, [])) if sha is not None else []:
            if path not in listed and path != h.path:
                listed.add(path)
                h.near_copies.append(NearCopy(path, n.similarity, n.file_id))
    h.near_copies.sort(key=lambda n: -n.similarity)  # best first, each copy beside its near copy (a stable sort)


def copies_of(store: Store, hashes: Iterable[str], where: Optional[Fragment] = None) -> dict[str, list[str]]:
    """sha256 -> paths of the indexed files with that content, by path: those `where` allows (a search's scope)."""
    copies = store.paths_by_sha256(hashes)
    if where is None or not copies:
        return copies
    n = sum(len(paths) for paths in copies.values())
    firsts = store.newest_first(all_of([where, with_content(list(copies))]), n, by_file=True)  # a passage a file
    # the allowed files' paths by their ids: files_by_path would ask this machine's files alone (a shared
    # library's), and drop the copies another desktop indexed
    allowed = {row.path for row in files_by_id(store, store.chunk_files(firsts).values()).values()}
    return {sha: [p for p in paths if p in allowed] for sha, paths in copies.items()}


def weigh_common(folded: Folded, groups: Mapping[int, FileGroup], dense_files: list[int],
                 lexical_files: list[int]) -> tuple[list[int], list[int]]:
    """Hybrid: a row of repeated text keeps COMMON_WEIGHT of its signals (convex fusion) and goes last in each
    side's file order (rank fusion), so a file matching by its own words comes first."""
    rows = [f for f in folded.common_key if f in groups]
    for f in rows:
        g = groups[f]
        g.dense = None if g.dense is None else g.dense * COMMON_WEIGHT
        g.lexical = None if g.lexical is None else g.lexical * COMMON_WEIGHT
    last = set(rows)
    return ([f for f in dense_files if f not in last] + [f for f in dense_files if f in last],
            [f for f in lexical_files if f not in last] + [f for f in lexical_files if f in last])


def weigh_reranked(folded: Folded, head: list[Hit], file_of: Mapping[int, int]) -> None:
    """Reranked: a row of repeated text keeps COMMON_WEIGHT of the reranker's probability, the relevance it shows
    and is ordered by (its logit stays the cross-encoder's), so it does not outrank a file matching by its own
    words there either."""
    for h in head:
        if file_of.get(h.chunk_id) in folded.common_key and h.scores.rerank is not None:
            h.scores.rerank *= COMMON_WEIGHT
