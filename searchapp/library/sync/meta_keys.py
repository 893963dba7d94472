"""What a sync writes in the library's meta table for `status` to read (library/report/): a reindex under way, and
the passage context the stored vectors were embedded with. Here, below report/, so the writer and the reader share
one spelling of each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base.config import Config

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["REINDEX_META", "CONTEXT_META", "passage_context", "record_passage_context"]

REINDEX_META = "reindex_from"  # passages before a reindex began; "" (or absent) when none is under way
CONTEXT_META = "chunk_context"  # "title", "none", or "mixed" once passages of both kinds exist


def passage_context(config: Config) -> str:
    """What the bi-encoder reads before each passage under `config`: "title" or "none"."""
    return "title" if config.chunking.title_context else "none"


def record_passage_context(store: Store, config: Config, had_passages: bool, embedded: int) -> None:
    """Meta `chunk_context`: what the stored passages were embedded with ("title", "none", or "mixed" once
    passages of both kinds exist). Unlike a model change this one is soft: both kinds of vector live in one
    space, so the library stays usable and `status` suggests a reindex (report/settings_check.passage_context_note).
    `had_passages`: the library had passages before this sync; `embedded`: passages this sync stored to be
    embedded with the current settings. The desktop's sync and a shared library's write it alike."""
    context = passage_context(config)
    with store.atomic():
        if not had_passages:
            store.set_meta(CONTEXT_META, context)
        elif embedded and store.get_meta(CONTEXT_META) != context:
            store.set_meta(CONTEXT_META, "mixed")
