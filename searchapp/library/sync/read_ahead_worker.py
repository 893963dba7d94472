"""The read-ahead worker process's side (read_ahead.py): the sync's own read, extract and chunk steps, run on a
tokenizer rebuilt from the encoder's chunking tokenizer (no model, no torch). A file that fails here fails for the
sync too, with the reason (Read.failed): it is not read a second time. What the sync says otherwise (the file is
gone, not a regular file, unreadable) or a cancel is handed back as None: the sync then reads that file itself,
with its own error handling."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

if TYPE_CHECKING:  # for the type checker alone: the worker process imports no more than it needs
    from multiprocessing.sharedctypes import SynchronizedArray

    from ...base.config import Config
    from ...base.progress import CancelToken
    from ...base.types import ChunkSpan, Document
    from ...ingest.passages import PassageTokenizer

__all__ = ["init", "start", "read_group", "read_one", "read_files", "Read"]

_STATE: dict[str, Any] = {}  # the worker's config, chunking tokenizer and `now` (start, init)


@dataclass
class Read:
    """One file read by the worker: its sha256 and, unless it is unchanged (same sha as the stored row), its
    passages exactly as passages_of gives them."""

    sha: str
    kind: str = ""
    title: str = ""
    spans: Optional[list[ChunkSpan]] = None  # None: not extracted (the sha matched the stored one)
    hashes: Optional[list[str]] = None
    ocr: Optional[str] = None
    failed: Optional[str] = None  # why this file failed here (file_boundary.file_failure): the sync records it
    notes: tuple[str, ...] = ()  # Document.notes of what it read


class _NoBatch:
    """passages_of's batcher where nothing is batched: a cancel inside the chunking just stops this file."""

    def __init__(self, cancel: Optional[CancelToken]) -> None:
        self.cancel = cancel

    def flush_and_stop(self) -> None:
        from ...base.errors import Cancelled

        raise Cancelled("cancelled")


def start(config: Config, spec: tuple[str, int, bool]) -> bool:
    """The worker's first task: the config and the chunking tokenizer; done once the worker is ready."""
    _STATE["config"] = config
    from ...models.chunking_tokenizer import ChunkingTokenizer  # no torch: the worker loads no model

    encoder = _STATE["encoder"] = ChunkingTokenizer(*spec)
    encoder.share_pieces()  # each read_group hands its new words back (see read_group)
    return True


def init(now: SynchronizedArray[float]) -> None:
    """The worker process's initializer: `now` is shared with the sync (read_ahead.ReadAhead): [the number of
    the file being read, when its reading began (time.monotonic(), the same clock in every process), 0 when
    none is]."""
    _STATE["now"] = now


def read_group(paths: Sequence[str], old_shas: Sequence[Optional[str]], first: int = 0,
               pieces: Optional[dict[str, bytes]] = None) -> tuple[list[Optional[Read]], dict[str, bytes]]:
    """(the Reads of `paths`, the files numbered `first`, `first + 1`, ... in the sync's list; the words this
    worker tokenized for them). `pieces`: the words the sync tokenized since its last group, so neither side
    tokenizes a word the other already has (each side on its own tokenized most of a folder's words again:
    SciFact's 10,000 files, 98,565 distinct words, 177,000 tokenized between the two)."""
    config, encoder, now = _STATE["config"], _STATE["encoder"], _STATE.get("now")
    remember, learned = getattr(encoder, "remember_pieces", None), getattr(encoder, "learned_pieces", None)
    if pieces and remember is not None:
        remember(pieces)
    reads = read_files(paths, old_shas, config, encoder,
                       clocks=None if now is None else [partial(_clock, now, first + k) for k in range(len(paths))])
    return reads, (learned() if learned is not None else {})


def _clock(now: SynchronizedArray[float], number: int, running: bool) -> None:
    """Start (`running`) or stop the budget's clock of file `number`: `now` is read together by the sync, which
    kills this process past the file's budget. It runs while the file is extracted, as FileBudget does in the
    sync's own process: not while it is hashed or chunked."""
    import time

    with now.get_lock():
        now[0], now[1] = number, (time.monotonic() if running else 0.0)


def read_one(path: str, old_sha: Optional[str], config: Config, encoder: PassageTokenizer,
             cancel: Optional[CancelToken] = None, clock: Optional[Callable[[bool], None]] = None) -> Optional[Read]:
    """The file's Read (with `failed` set when it failed), or None (the sync reads it again itself). `clock`:
    started just before the extraction and stopped right after it (the worker's budget, see _clock)."""
    return read_files([path], [old_sha], config, encoder, cancel, None if clock is None else [clock])[0]


def read_files(paths: Sequence[str], old_shas: Sequence[Optional[str]], config: Config, encoder: PassageTokenizer,
               cancel: Optional[CancelToken] = None, clocks: Optional[Sequence[Callable[[bool], None]]] = None
               ) -> list[Optional[Read]]:
    """read_one of each of `paths`: every file read and extracted first, then the word pieces of the small ones
    put together in one pass for them all (ChunkingTokenizer.token_bounds_many: one tokenizer call and one numpy
    pass for a group of small files, not one per file), then each chunked. The passages are the very ones each
    file's own chunking gives. A cancel leaves None (the sync's own cancel check follows) for every file it stops
    and every file after it, and the files read before it are chunked all the same where their text is small (one
    pass, `bounds`): a cancel in the middle of a group had lost the whole group read so far, and the sync, which
    keeps the files read before a stop, had none to keep (a newcomer's 55 PDFs: "1/55", then 0 files kept)."""
    from ...base.errors import Cancelled

    got: list[Optional[Read | _Extracted]] = []
    for k, (p, s) in enumerate(zip(paths, old_shas, strict=True)):
        try:
            if cancel is not None and cancel.cancelled:
                raise Cancelled("cancelled")
            got.append(_extract(p, s, config, cancel, None if clocks is None else clocks[k]))
        except Cancelled:  # inside this file's extraction, or before it
            got += [None] * (len(paths) - k)
            break
    from ...ingest.chunking import SEGMENT_CHARS

    bounds = _bounds_of([g for g in got if isinstance(g, _Extracted)], encoder)
    # after a cancel, a text of one tokenizer segment is still cut (a moment's work); a longer one is cut under the
    # cancel, which stops it (None: the sync stops there)
    after = None if cancel is not None and cancel.cancelled else cancel
    return [_chunk(g, config, encoder, after if len(g.doc.text) <= SEGMENT_CHARS else cancel, bounds.get(id(g)))
            if isinstance(g, _Extracted) else g for g in got]


@dataclass
class _Extracted:
    """A file read and extracted, waiting to be chunked."""

    sha: str
    doc: Document


def _extract(path: str, old_sha: Optional[str], config: Config, cancel: Optional[CancelToken],
             clock: Optional[Callable[[bool], None]]) -> Optional[Read | _Extracted]:
    """A Read (unchanged, or failed), None (the sync reads it itself) or the file's _Extracted."""
    from ...base.errors import Cancelled, UnsupportedFileError
    from ...base.hashing import file_sha256, file_sha256_and_bytes
    from ...ingest.extractors import extract, takes_data
    from ...ingest.extractors.members import container_suffix, hashed_with_bytes
    from .file_boundary import file_failure
    from .file_budget import FileBudget, too_long

    max_bytes = int(config.scan.max_file_mb * 2**20)
    where = Path(path)
    sha = ""  # kept with a failure once read: the same bytes renamed, failing the same way, are one move
    try:
        sha, data = file_sha256_and_bytes(where, max_bytes) if hashed_with_bytes(where) else (file_sha256(where), None)
        if old_sha is not None and sha == old_sha:
            return Read(sha)  # touched, not changed: the sync only updates its stat
        # a document holding files is a container, told from the bytes just hashed: the sync reads its members itself
        if data is not None and container_suffix(where, data):
            return None
        data = data if takes_data(where) else None  # a document's bytes told that: its reader opens it itself
        budget = FileBudget(cancel, config.scan.file_budget_s)
        if clock is not None:
            clock(True)
        try:
            doc = extract(where, max_bytes=max_bytes, max_chars=config.scan.max_text_chars, cancel=budget, data=data)
        except Cancelled:
            if budget.expired:
                return Read(sha, failed=too_long(budget.seconds))
            raise
        finally:
            if clock is not None:
                clock(False)
        return _Extracted(sha, doc)
    except (OSError, UnsupportedFileError):  # the sync reads it again itself and says why, as it always has
        return None
    except Exception as exc:  # the per-file boundary, on this side: the file fails, the worker goes on
        reason = file_failure(exc)
        return None if reason is None else Read(sha, failed=reason)


def _bounds_of(files: list[_Extracted], encoder: PassageTokenizer) -> dict[int, Any]:
    """id(file) -> its text's word pieces, for the files whose text is within one tokenizer segment; {} where the
    encoder cannot put them together (each file is then chunked on its own, to the same passages)."""
    from ...ingest.chunking import SEGMENT_CHARS

    many = getattr(encoder, "token_bounds_many", None)
    small = [f for f in files if len(f.doc.text) <= SEGMENT_CHARS]
    if many is None or len(small) < 2:
        return {}
    try:
        bounds = many([f.doc.text for f in small])
    except Exception:  # a shortcut only: one file's text must not fail its group; each file is
        return {}  # then chunked on its own, inside its own boundary (_chunk), where its failure is its alone
    return {} if bounds is None else {id(f): b for f, b in zip(small, bounds, strict=True)}


def _chunk(got: _Extracted, config: Config, encoder: PassageTokenizer, cancel: Optional[CancelToken], bounds: Any
           ) -> Optional[Read]:
    """The extracted file's Read, with its passages (the per-file boundary around the chunking, as in _extract)."""
    from ...base.errors import UnsupportedFileError
    from .ocr_waits import pdf_waits_for_ocr
    from .file_boundary import file_failure
    from ...ingest.passages import passages_of

    doc = got.doc
    try:
        title, spans, hashes = passages_of(doc, encoder, config, _NoBatch(cancel), bounds)
        return Read(got.sha, doc.kind or "", title, spans, hashes, pdf_waits_for_ocr(doc, config), notes=doc.notes)
    except (OSError, UnsupportedFileError):
        return None
    except Exception as exc:
        reason = file_failure(exc)
        return None if reason is None else Read(got.sha, failed=reason)
