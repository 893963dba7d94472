"""More like this: files ranked by similarity to one indexed file (or one page of it), from stored vectors only.

No text is encoded and no model is loaded: the source file's passage vectors come from SQLite, their
nearest neighbours from the vector index gather candidate files, and each candidate is then scored
exactly against the source:

    file score = mean over the source's passages of the best cosine to any passage of the candidate

i.e. how much of the source the candidate also says (1.0: every source passage has an identical one
there). The best passage pair is kept to show why a file matched. The source file itself is excluded, and so
are its exact copies (the same sha256): they are the same file, not a similar one, and are said apart
(`SearchResult.same_file`, a SAME notice: "the same file elsewhere: …"). Exact copies among the hits share one
row as in a search (folding.py: the copy shown, `Hit.copies`), so k rows are k contents. The source's near copies
(near_copies.py: its PDF export, a copy with a sentence edited) are the same document too: said once, apart
(`SearchResult.near_copies`, a NEAR notice: "near copies of this file: …"), not k rows of the same text; the
setting `search.fold_near_copies` (`fold_near`) keeps them as rows.

While meaning fills (`by_words`), the files meaning cannot compare yet follow the meaning rows, found by the
source's distinctive words (similar_words.py, decision 0159): marked `by = "words"`, scored by words, never by a
cosine. With meaning complete there are none.

A container's listing (its name and its members' names, listings.py) is compared neither as the source nor as a
candidate: `similar notes-backup.zip` compared the zip's names and answered its own member first (a newcomer). A
source that is only a listing (an archive, a mailbox, a document of no text of its own but files) is compared by its
members' text instead, as one source (decision 0208): its passages are those of its members, nested ones too, and
its members, parts of the source, are never its similar files. A notice says so (MEMBERS). It said "… is a
container" and named a member to ask of: a person asking what else is like a zip of notes was sent elsewhere.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

import numpy as np

from ...ann import VectorIndex
from ...base.errors import ConfigError
from ...base.member_paths import MEMBER_SEP, display_path, key_of, member_order, split_member
from ...base.types import Hit, NearCopy, StageRanks, StageScores
from ...store import Store
from ...store.rows import FileRow
from ..query.field_values import MAX_PAGE
from ..resources.blas_limit import one_blas_thread
from ..members.names import members_like, members_said
from ..query.filters import SearchFilters
from .filter_scope import FilterScope
from .listings import listing_entry
from .folding import Folded, copies_of, fold_copies, mark_folded
from .meaning_now import PassageEmbedder
from .near_copies import fold_near_copies, near_copies_of
from .result import MEMBERS, NEAR, SAME, Notice, SearchResult
from .similar_hit import SimilarHit
from .similar_words import add_words_rows
from .weak import mark_weak_similar

__all__ = ["SimilarHit", "find_similar", "same_text", "near_text", "MAX_SOURCE_PASSAGES"]

MAX_SOURCE_PASSAGES = 256  # a long source is sampled evenly: its score barely moves, the work is bounded
NEIGHBOURS = 50  # per source passage, before the source's own passages are dropped
RESCORE_FILES = 5  # candidate files scored exactly: RESCORE_FILES x k, best first by their best pair
WIDEN = 4  # neighbours asked again, x this deeper, while they come from fewer than k files (_candidates)
NEIGHBOUR_BUDGET = 1 << 18  # the most neighbours asked over all the source's passages (a widened query's bound)


def find_similar(store: Store, index: Optional[VectorIndex], dim: Optional[int], path: str, *,
                 page: Optional[int] = None, k: int = 10, filters: Optional[SearchFilters] = None,
                 embed: Optional[PassageEmbedder] = None, embed_budget: int = 0,
                 source: Optional[FileRow] = None, by_words: bool = False, fold_near: bool = True) -> SearchResult:
    """`embed`: while meaning is unfinished, how the source's passages without a vector are embedded for this
    answer (at most `embed_budget`, an even sample: the score is a mean over the source's passages). `source`:
    `path`'s entry when the caller found it already (a shared library: another machine's, by the path map).
    `by_words`: meaning is unfinished, so rows found by words follow the meaning rows, up to k. `fold_near`: the
    source's near copies said apart, not rows (search.fold_near_copies)."""
    t0 = time.perf_counter()
    ms: Callable[[], float] = lambda: (time.perf_counter() - t0) * 1000.0  # noqa: E731
    if page is not None and not 1 <= page <= MAX_PAGE:  # SQLite integers are 64-bit: 10**20 overflowed the query
        raise ConfigError(f"--page must be between 1 and {MAX_PAGE}, got {page}")
    source = source or store.file_by_path(key_of(path))  # a member as shown (a.zip › m.txt) or as its key (a.zip//m.txt)
    if source is None and (named := split_member(key_of(path)))[1] is not None:  # a part of its name (`box › 24`)
        like = members_like(store, named[0], named[1] or "")
        if len(like) > 1:
            raise ConfigError(f"{path}: {members_said(like)}")
        source = store.file_by_path(like[0]) if like else None
    if source is None:
        raise ConfigError(f"{path} is not an indexed file of this library (`searchapp status` lists what is)")
    if source.status != "indexed":  # explain lists it: say why it has nothing to compare, as explain does
        raise ConfigError(f"{path} is in the library but not indexed ({source.status}"
                          + (f": {source.error}" if source.error else "")
                          + "), so it has no passages to compare; `searchapp explain` says more")
    src_ids = store.chunk_ids_of_file(source.id)
    own: frozenset[int] = frozenset()  # the source's own entries: never its similar files
    if src_ids and _a_listing(store, src_ids[0]):  # names only: its members' text is what it holds (a page: theirs)
        src_ids, own, compared = _members_passages(store, source, path, page)
    elif page is not None:
        src_ids = store.chunk_ids_of_file(source.id, page)
    if not src_ids:
        where = f"page {page} of {path}" if page is not None else path
        raise ConfigError(f"{where} has no indexed passages")
    if len(src_ids) > MAX_SOURCE_PASSAGES:
        src_ids = [src_ids[i] for i in np.linspace(0, len(src_ids) - 1, MAX_SOURCE_PASSAGES).astype(int)]
    result = SearchResult(source.path, "similar", [], False)
    if own:
        result.notices.append(Notice(MEMBERS, compared))
    scope = FilterScope(store, filters) if filters is not None and filters.active else None
    same_sha, result.same_file = _same_file(store, source, scope)
    if result.same_file:
        result.notices.append(Notice(SAME, same_text(result.same_file)))
    judged = False
    if index is not None and len(index) and dim is not None:
        judged = _by_meaning(store, index, dim, source, list(src_ids), k, scope, same_sha, result,
                             (embed, embed_budget) if embed is not None else None, ms, own, fold_near)
        if result.near_copies:
            result.notices.append(Notice(NEAR, near_text(result.near_copies)))
    if by_words and len(result.hits) < k:
        shown = store.chunk_files([h.chunk_id for h in result.hits])
        said = set(store.file_sha256s(list(shown.values())).values()) | ({same_sha} if same_sha else set())
        # the near copies said (the source's, a row's) are not said again as rows found by words
        near = {n.file_id for n in (*result.near_copies, *(c for h in result.hits for c in h.near_copies))}
        add_words_rows(store, result, source, src_ids, k, scope, said,
                       set(shown.values()) | own | {f for f in near if f is not None}, judged)
        result.timings_ms["words"] = ms()
    result.timings_ms["total"] = ms()
    if scope is not None:
        result.filter_stats = scope.stats
    return result


def _a_listing(store: Store, first: int) -> bool:
    """Whether the source's first passage is a container's listing (listings.listing_entry)."""
    row = store.chunks([first]).get(first)
    return row is not None and row.ordinal == 0 and listing_entry(row)


def _members_passages(store: Store, source: FileRow, path: str, page: Optional[int]
                      ) -> tuple[list[int], frozenset[int], str]:
    """A container's passages for `similar`: its indexed members' (nested ones too; `page`: that page of each), in
    its order, listings left out; the ids of all its entries, itself too; the notice that says so. Raises where no
    member has a passage."""
    members = sorted((r for key, r in store.files_under(source.root_id, source.path).items()
                      if key.startswith(source.path + MEMBER_SEP)), key=lambda r: member_order(r.path))
    firsts: dict[int, list[int]] = {}
    for r in members:
        if r.status == "indexed" and (ids := store.chunk_ids_of_file(r.id, page)):
            firsts[ids[0]] = ids
    rows = store.chunks(list(firsts))
    src_ids = [c for first, ids in firsts.items() if first in rows and not listing_entry(rows[first]) for c in ids]
    if not src_ids:
        where = f"on page {page}" if page is not None else "indexed"
        raise ConfigError(f"{display_path(path)} is a container whose members hold no text {where} to compare: its "
                          "own passage lists only their names")
    n = len({rows[c].file_id for c in firsts if c in rows and not listing_entry(rows[c])})
    said = f"compared by the text of its {n} member{'s' if n != 1 else ''}: its own passage lists only their names"
    return src_ids, frozenset({source.id} | {r.id for r in members}), said


def _by_meaning(store: Store, index: VectorIndex, dim: int, source: FileRow, src_ids: list[int], k: int,
                scope: Optional[FilterScope], same_sha: Optional[str], result: SearchResult,
                embed: Optional[tuple[PassageEmbedder, int]], ms: Callable[[], float],
                own: frozenset[int] = frozenset(), fold_near: bool = True) -> bool:
    """The meaning rows, into `result`; whether the source had vectors to compare with: then the files with a
    vector were the meaning side's to judge (its neighbours among them), and the words side leaves them out."""
    found, src_vecs = store.vectors(src_ids, dim)
    if embed is not None and embed[1] > 0 and len(found) < len(src_ids):
        found, src_vecs = _with_meaning_now(store, embed[0], embed[1], dim, src_ids, found, src_vecs)
        result.timings_ms["meaning_now"] = ms()
    src_ids = found.tolist()  # rows with unusable (non-finite) vectors are left out
    if not src_ids:
        return False

    # 1. Candidate files: the files of the source passages' nearest neighbours, by their best pair.
    if scope is not None:
        scope.ids = scope.ids[~np.isin(scope.ids, np.array(src_ids))]
    best = _candidates(store, index, dim, source, src_vecs, k, scope, same_sha, own)
    result.timings_ms["neighbours"] = ms()
    shortlist = sorted(best, key=lambda f: -best[f])[: max(RESCORE_FILES * k, 20)]

    # 2. Exact file scores from every stored vector of each shortlisted file.
    scored = _scored(store, shortlist, src_vecs, src_ids, dim)
    result.timings_ms["rescore"] = ms()
    _add_rows(store, result, scored, k, scope, source.id if fold_near else None, container=bool(own))
    return True


def _candidates(store: Store, index: VectorIndex, dim: int, source: FileRow, src_vecs: np.ndarray, k: int,
                scope: Optional[FilterScope], same_sha: Optional[str], own: frozenset[int] = frozenset()
                ) -> dict[int, float]:
    """{file: its best pair's cosine} of the files among the source passages' nearest neighbours (the source, its
    exact copies and, of a container, its own members (`own`) left out), asked NEIGHBOURS deep per passage, then
    WIDEN x deeper until they are k contents.

    Why widen: a fixed depth grouped by file let one huge file crowd out the rest. A 29 MB log held 17,216 of a
    library's 26,876 passages; nearly every neighbour asked was one of its lines, and `similar --k 6` answered the
    log alone though related notes existed. The depth stops at the whole index (or the filters' passages) and
    at NEIGHBOUR_BUDGET neighbours over all the source's passages, so one query's cost stays bounded; the hnsw
    backend raises its ef to the depth asked. The ranking rule (file score, module docstring) is unchanged."""
    available = len(scope.ids) if scope is not None else len(index)
    depth = min(NEIGHBOURS + min(source.n_chunks, 4 * NEIGHBOURS), available)  # the source's own passages come back too
    # A filter's scope asks the index for depth / its share x 2 (FilterScope._widened): counted in the budget too
    cost = 2 * max(len(index), 1) / max(available, 1) if scope is not None else 1.0
    widest = min(available, max(depth, int(NEIGHBOUR_BUDGET / cost) // max(len(src_vecs), 1)))
    owner: dict[int, int] = {}
    while True:
        if scope is not None:
            labels, sims = scope.dense(index, src_vecs, depth, dim)
        else:
            labels, sims = index.search(src_vecs, depth)
        owner.update(store.chunk_files([c for c in np.unique(labels).tolist() if c not in owner]))
        best: dict[int, float] = {}
        for lab, sim in zip(labels.reshape(-1).tolist(), sims.reshape(-1).tolist(), strict=True):
            fid = owner.get(lab)
            if fid is not None and fid != source.id and fid not in own and sim > best.get(fid, -2.0):
                best[fid] = sim
        shas = store.file_sha256s(list(best))
        for fid, sha in shas.items():
            if sha == same_sha:  # the source's exact copy: said apart (find_similar)
                del best[fid]
        contents = {shas.get(fid, fid) for fid in best}  # exact copies share a row (_add_rows): one content
        if len(contents) >= k or depth >= widest:
            return best
        depth = min(widest, depth * WIDEN)


def _scored(store: Store, shortlist: list[int], src_vecs: np.ndarray, src_ids: list[int],
            dim: int) -> list[tuple[float, float, int, int, int]]:
    """(file score, best pair's cosine, its source passage, its passage there, file id) of each shortlisted file
    with vectors, best first."""
    scored = []
    for fid in shortlist:
        own = store.chunk_ids_of_file(fid)
        first = store.chunks(own[:1])
        if not own or any(listing_entry(r) for r in first.values()):  # names only: says nothing of what they hold
            continue
        ids, vecs = store.vectors(own, dim)
        if not len(ids):
            continue
        with one_blas_thread():
            s = src_vecs @ vecs.T  # (source passages, candidate passages)
        i, j = np.unravel_index(int(np.argmax(s)), s.shape)
        scored.append((float(s.max(axis=1).mean()), float(s[i, j]), src_ids[i], int(ids[j]), fid))
    scored.sort(key=lambda t: (-t[0], -t[1]))
    return scored


def _add_rows(store: Store, result: SearchResult, scored: list[tuple[float, float, int, int, int]], k: int,
              scope: Optional[FilterScope], source: Optional[int] = None, container: bool = False) -> None:
    """The k best contents of `scored` as hits: exact copies share a row, as in a search (folding.py), so the rows
    they free go to other files; the near copies of the file `source` (None: not looked for, nor folded) leave the
    rows for `result.near_copies`, with their own exact copies, and rows that are near copies of each other share
    one (near_copies.fold_near_copies, as a search's: the rows' passages of their best pairs are the gate). A
    `container`'s own text is its listing, no file's near copy: not compared (a backup zip's loose copies of its
    members, each a row whose pair is one text, read every row's whole text against the names)."""
    rows = store.chunks([c for t in scored for c in (t[2], t[3])])
    scored = [t for t in scored if t[2] in rows and t[3] in rows]  # else deleted by a sync since the vectors were read
    copies = fold_copies(store, [t[4] for t in scored], {t[4]: rows[t[3]].path for t in scored})
    every = scored
    scored = [t for t in scored if copies.row_of.get(t[4], t[4]) == t[4]]
    if source is not None and not container:
        near = near_copies_of(store, source, [(t[4], rows[t[3]].text, rows[t[2]].text) for t in scored])
        result.near_copies = sorted((NearCopy(rows[t[3]].path, near[copies.row_of.get(t[4], t[4])], t[4])
                                     for t in every if copies.row_of.get(t[4], t[4]) in near),
                                    key=lambda n: -n.similarity)  # best first, each copy beside its near copy
        scored = [t for t in scored if t[4] not in near]
    hits: list[Hit] = [SimilarHit(
        chunk_id=cid, path=rows[cid].path, page=rows[cid].page, start=rows[cid].start, end=rows[cid].end,
        text=rows[cid].text, scores=StageScores(dense=min(max(score, -1.0), 1.0)), source_text=rows[src_cid].text,
        source_page=rows[src_cid].page, best_pair=min(pair, 1.0), date_ns=rows[cid].date_ns)
        for score, pair, src_cid, cid, _ in scored]
    file_of = {t[3]: t[4] for t in scored}
    if source is not None:
        hits = fold_near_copies(store, hits, file_of, k)
    result.hits = hits[:k]
    for rank, h in enumerate(result.hits, start=1):
        h.ranks = StageRanks(dense=rank, final=rank)
    mark_weak_similar(result.hits)  # the nearest there are, far in meaning: marked as a search's (decision 0207)
    mark_folded(store, result.hits, file_of, Folded(sha_of=copies.sha_of),
                scope.filters.where() if scope is not None else None)


def _same_file(store: Store, source: FileRow, scope: Optional[FilterScope]) -> tuple[Optional[str], list[str]]:
    """(the source's sha256, the paths of its exact copies), the copies in the scope as a search lists them
    (folding.py), by path."""
    sha = store.file_sha256s([source.id]).get(source.id)
    if sha is None:
        return None, []
    where = scope.filters.where() if scope is not None else None
    return sha, [p for p in copies_of(store, [sha], where).get(sha, []) if p != source.path]


def near_text(near: list[NearCopy]) -> str:
    """The note of a Similar files whose source has near copies (not listed as similar files)."""
    shown = ", ".join(f"{display_path(n.path)} ({round(100 * n.similarity)}% same text)" for n in near[:3])
    return f"near copies of this file: {shown}" + (f" and {len(near) - 3} more" if len(near) > 3 else "")


def same_text(paths: list[str]) -> str:
    """The note of a Similar files whose source is kept in other places too."""
    shown = ", ".join(display_path(p) for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return f"the same file elsewhere: {shown}"


def _with_meaning_now(store: Store, embed: PassageEmbedder, budget: int, dim: int, src_ids: list[int],
                      found: np.ndarray, vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The source's stored vectors and, for its passages without one, vectors embedded now: at most `budget`
    of them, spread evenly over the file (the stored ones already stand for their parts of it)."""
    have = set(found.tolist())
    missing = [c for c in src_ids if c not in have]
    room = max(0, budget)
    if len(missing) > room:
        missing = [missing[i] for i in np.linspace(0, len(missing) - 1, room).astype(int)] if room else []
    got = {c: v for c, v in embed.vectors(store, missing, room).items() if v.shape == (dim,)}
    if not got:
        return found, vecs
    ids = np.concatenate([found, np.fromiter(got, dtype=np.int64)])
    return ids, np.vstack([vecs.reshape(-1, dim), np.stack(list(got.values()))]).astype(np.float32)
