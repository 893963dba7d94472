"""Open the library a config names (the desktop's, or a shared one), and again under new settings, keeping
models that are already loaded when they still fit.

The GUI's settings dialog uses this so saving a setting that does not touch a model never reloads one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

from ..base.config import Config
from ..base.errors import ModelLoadError, UnsupportedFileError
from ..models.identity import bi_encoder_identity, library_settings, reindex_reasons
from .library import Library

if TYPE_CHECKING:
    from ..models.bi_encoder import BiEncoder
    from ..models.cross_encoder import CrossEncoder
    from .shared import SharedLibrary

__all__ = ["library_for", "open_chosen", "reopen_library", "needs_reindex"]

_ENCODER_KEYS = ("bi_encoder", "pooling", "device", "precision", "batch_size", "threads")
_RERANKER_KEYS = ("reranker", "device", "precision", "rerank_max_length", "threads")


def _same(a: Config, b: Config, keys: tuple[str, ...]) -> bool:
    return all(getattr(a.models, k) == getattr(b.models, k) for k in keys)


def needs_reindex(old: Config, new: Config) -> bool:
    """True when passages or vectors built under `old` cannot be used under `new` (the one rule:
    models.identity.reindex_reasons; chunking.title_context is soft, so it alone is not a reason)."""
    a, b = library_settings(old), library_settings(new)
    if a["pooling"] != b["pooling"] and "auto" in (a["pooling"], b["pooling"]):
        # By name "auto" matches any pooling, but status and check_model compare the pooling that runs (the
        # model's declared one): auto -> cls on a model that declares mean needs a reindex there, so here too.
        a["pooling"], b["pooling"] = _pooling_that_runs(old), _pooling_that_runs(new)
    return bool(reindex_reasons(a, b))


def _pooling_that_runs(config: Config) -> str:
    if config.models.pooling != "auto":
        return config.models.pooling
    try:
        return bi_encoder_identity(config.models.bi_encoder, pooling="auto").pooling
    except (ModelLoadError, UnsupportedFileError, OSError):
        return "auto"  # a model that cannot be read: loading it says why, where it is used


def library_for(config: Config, *, create: bool = True, encoder: Optional[BiEncoder] = None,
                reranker: Optional[CrossEncoder] = None) -> Library | SharedLibrary:
    """The shared library when the config names one (library.address: decision 0124), else the desktop's."""
    if config.library.address:
        # Imported only here: a desktop command's start-up (`index --words-only`) never loads the search pipeline
        # the shared library's module imports (tests/e2e/test_words_without_torch.py).
        from .shared import SharedLibrary

        return SharedLibrary(config, config.library.address, create=create, encoder=encoder, reranker=reranker)
    return Library(config, create=create, encoder=encoder, reranker=reranker)


def open_chosen(old: Library | SharedLibrary, config: Config, *, make: bool = False) -> Library | SharedLibrary:
    """The library a person chose in the window (File → Open Shared Library…, decision 0144), as reopen_library
    opens it, but a shared library must be there already unless `make` (NoSharedLibrary: the window asks first,
    so a mistyped address never fills a database with empty tables); an older one is brought up to this version
    where this role may, as the window's start opens it."""
    lib = reopen_library(old, config, create=make or not config.library.address)
    if config.library.address:
        try:
            cast("SharedLibrary", lib).store.upgrade()  # a no-op on a current library or for a role that may not
        except BaseException:
            lib.close()
            raise
    return lib


def reopen_library(old: Library | SharedLibrary, config: Config, *, create: bool = True) -> Library | SharedLibrary:
    """The library on `config`, reusing `old`'s loaded encoder and reranker where their settings are unchanged."""
    encoder = old.models.loaded_encoder if _same(old.config, config, _ENCODER_KEYS) else None
    reranker = old.models.loaded_reranker if _same(old.config, config, _RERANKER_KEYS) else None
    return library_for(config, create=create, encoder=encoder, reranker=reranker)
