"""What the warm server and the command runner it is handed ask of the open library: exactly the Library
methods they call, as Protocols. Here, not as the Library class itself, because no library sub-package may
import the façade (docs/decisions/0122-an-order-for-library-sub-packages.md), and cli/warm_run.py needs no more
than this. Its imports are for the type checker alone: the thin client's start-up loads none of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

if TYPE_CHECKING:
    from ...base.config import Config
    from ..query.filters import SearchFilters
    from ..report.status import LibraryStatus
    from ..search.result import SearchResult

__all__ = ["CommandLibrary", "ServedLibrary", "ServedSearch"]

# WarmServer.search: a checked search request -> (its SearchResult, the query's marks, history: None when not
# asked to record the query, "" when kept, else why not).
ServedSearch = Callable[[dict[str, Any]], "tuple[SearchResult, str, Optional[str]]"]


class CommandLibrary(Protocol):
    """What cli/warm_run.run_command calls: the settings, `status` and `similar`."""

    @property
    def config(self) -> Config: ...

    def status(self, *, wait_for_meaning: bool = True, fresh_check: bool = False) -> LibraryStatus: ...

    def similar(self, path: str, *, page: Optional[int] = None, k: Optional[int] = None,
                filters: Optional[SearchFilters] = None) -> SearchResult: ...


class ServedLibrary(CommandLibrary, Protocol):
    """What WarmServer calls, and hands on to the command runner."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def read_only(self) -> bool: ...

    def search(self, query: str, *, k: Optional[int] = None, mode: Optional[str] = None,
               rerank: Optional[bool] = None, candidates: Optional[int] = None, rerank_depth: Optional[int] = None,
               filters: Optional[SearchFilters] = None, group: Optional[str] = None, literal: bool = False,
               meaning_wait: Optional[float] = None) -> SearchResult: ...
