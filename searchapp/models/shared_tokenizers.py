"""One parsed tokenizer per tokenizer.json and truncation, shared by everything in the process that reads it.

Building a tokenizers.Tokenizer from its JSON costs ~40 ms of CPU for MiniLM's 30,522 word pieces, and a process
built the same one again and again: the chunker, the file tokenizer, each of its truncating copies, the bulk
tokenizer of the passage encoder, once more for every library it opens (the window switching libraries, the
warm server, the test suite: 874 builds, 36 CPU s of its ~290, 2026-12-03 on a 2-core Zen 5). A Tokenizer
configured once and never changed after is safe to share between threads: encode and encode_batch only read it;
a change (enable_truncation, no_padding) beside another thread's encode is what raises "Already borrowed". So
each one here is configured before it is handed out, and whoever takes one must never change it (a caller that
needs another setting asks for it here: `truncating`). Decision 0182.

Keyed by the SHA-256 of the JSON text (a folder's tokenizer.json, or a tokenizer's to_str()): the same text is
the same tokenizer, wherever it was read from. At most KEEP texts are kept; a tokenizer handed out stays valid
after it is dropped here (its holders keep it alive).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["shared_tokenizer", "file_settings", "truncating", "json_of", "fact_of", "KEEP"]

KEEP = 8  # tokenizer texts (a process has one or two models; a test suite's tiny ones share MiniLM's file)


class _Entry:
    """A text's tokenizers, by truncation (None: none, no padding), and what its file set before they were unset."""

    def __init__(self, text: str) -> None:
        from tokenizers import Tokenizer

        base = Tokenizer.from_str(text)
        self.truncation: dict[str, Any] = dict(base.truncation or {})  # the file's own, read before unset
        self.padding: dict[str, Any] = dict(base.padding or {})
        base.no_truncation()
        base.no_padding()
        self.text = text
        self.by_truncation: dict[Optional[tuple[int, str, str]], "Tokenizer"] = {None: base}
        self.spec: Optional[str] = None  # base.to_str(), once asked for
        self.facts: dict[str, Any] = {}  # what was read from the tokenizer once (fact_of)


_LOCK = threading.Lock()
_ENTRIES: "OrderedDict[str, _Entry]" = OrderedDict()
_DIGEST_OF: dict[int, str] = {}  # id() of a tokenizer handed out and still kept here -> its text's digest


def _entry(text: str) -> tuple[str, _Entry]:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    with _LOCK:
        entry = _ENTRIES.get(digest)
        if entry is not None:
            _ENTRIES.move_to_end(digest)
            return digest, entry
    entry = _Entry(text)  # outside the lock: two threads may both build it once; the first one kept wins
    with _LOCK:
        kept = _ENTRIES.setdefault(digest, entry)
        if kept is entry:
            _DIGEST_OF[id(entry.by_truncation[None])] = digest
            while len(_ENTRIES) > KEEP:
                _, dropped = _ENTRIES.popitem(last=False)
                for tok in dropped.by_truncation.values():
                    _DIGEST_OF.pop(id(tok), None)  # its id may be reused once its holders let it go
        return digest, kept


def shared_tokenizer(text: str) -> "Tokenizer":
    """The tokenizer of the JSON `text` with truncation and padding off: shared, never to be changed."""
    return _entry(text)[1].by_truncation[None]


def file_settings(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(truncation, padding) the JSON `text` itself sets (empty when none): transformers' defaults for the sides
    and the padding token (models/tokenizer_file.py)."""
    entry = _entry(text)[1]
    return dict(entry.truncation), dict(entry.padding)


def _base_entry(tokenizer: "Tokenizer") -> Optional[_Entry]:
    """The entry whose tokenizer without truncation `tokenizer` is, or None (not one of ours)."""
    digest = _DIGEST_OF.get(id(tokenizer))
    with _LOCK:
        entry = _ENTRIES.get(digest) if digest is not None else None
    return entry if entry is not None and entry.by_truncation.get(None) is tokenizer else None


def json_of(tokenizer: "Tokenizer") -> str:
    """`tokenizer.to_str()`, without serializing again a shared one without truncation (its text is kept)."""
    entry = _base_entry(tokenizer)
    if entry is None:
        return tokenizer.to_str()
    if entry.spec is None:
        entry.spec = tokenizer.to_str()
    return entry.spec


def fact_of(tokenizer: "Tokenizer", name: str, read: Callable[["Tokenizer"], Any]) -> Any:
    """`read(tokenizer)`, read once for a shared tokenizer without truncation (`name` tells the facts apart):
    whether it reads words alone parses its whole JSON (word_pieces.py), ~15 ms each time."""
    entry = _base_entry(tokenizer)
    if entry is None:
        return read(tokenizer)
    if name not in entry.facts:
        entry.facts[name] = read(tokenizer)
    return entry.facts[name]


def truncating(tokenizer: "Tokenizer", max_length: int, strategy: str = "longest_first",
               direction: str = "right") -> "Tokenizer":
    """`tokenizer` (shared or not; not changed) truncating to `max_length` by `strategy` from `direction`, padding
    off: shared, never to be changed."""
    digest = _DIGEST_OF.get(id(tokenizer), "")
    with _LOCK:
        entry = _ENTRIES.get(digest)
    if entry is None or not any(t is tokenizer for t in entry.by_truncation.values()):
        digest, entry = _entry(tokenizer.to_str())  # not one of ours: read as its text says
    key = (int(max_length), strategy, direction)
    with _LOCK:
        tok = entry.by_truncation.get(key)
    if tok is not None:
        return tok
    from tokenizers import Tokenizer

    built = Tokenizer.from_str(entry.text)
    built.no_padding()
    built.enable_truncation(int(max_length), strategy=strategy, direction=direction)
    with _LOCK:
        tok = entry.by_truncation.setdefault(key, built)
        if tok is built and _ENTRIES.get(digest) is entry:
            _DIGEST_OF[id(tok)] = digest
    return tok
