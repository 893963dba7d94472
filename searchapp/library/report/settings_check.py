"""Whether the configured model, pooling or chunking differs from what the library was built with,
decided from the stored settings alone (no model is loaded: `status` stays fast).

The exact check (`Library.check_model`, by weights fingerprint) runs before every dense search and sync;
this one compares the settings by name, so a model named two ways (a folder and its id) reads as a change.
"""

from __future__ import annotations

from typing import Optional

from ...base.config import Config
from ...models.identity import library_settings, reindex_message, reindex_reasons
from ..sync.meta_keys import CONTEXT_META, passage_context

__all__ = ["settings_mismatch", "passage_context_note"]


def settings_mismatch(config: Config, meta: dict[str, str]) -> Optional[str]:
    """A one-line reason ending in what to run, or None when the settings match (or nothing is recorded).
    The rule is models.identity.reindex_reasons, compared by name here (no model is read)."""
    return reindex_message(reindex_reasons(meta, library_settings(config)))


def passage_context_note(config: Config, meta: dict[str, str]) -> Optional[str]:
    """A note when stored passages were embedded with another passage context than configured; a library built
    before the setting existed had none. Not a mismatch: both kinds of vector share one space and search works."""
    stored = meta.get(CONTEXT_META, "none")
    wanted = passage_context(config)
    if stored == wanted:
        return None
    which = "some passages were" if stored == "mixed" else "passages were"
    how, state = ("without", "on") if wanted == "title" else ("with", "off")
    return (f"{which} embedded {how} their file's title in front (chunking.title_context is {state}): "
            f"`searchapp reindex` embeds them all {'with' if wanted == 'title' else 'without'} it")
