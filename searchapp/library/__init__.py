"""The façade over ingest, models, store and ann that every front end (CLI, GUI) uses."""

from .library import Library, LibraryStatus, RootStatus
from .search import SearchResult
from .sync import SyncReport

__all__ = ["Library", "LibraryStatus", "RootStatus", "SearchResult", "SyncReport"]
