"""The façade over ingest, models, store and ann that every front end (CLI, GUI) uses."""

from .duplicates import DuplicateReport, NearPair, PassagePair
from .filters import SearchFilters
from .library import Library, LibraryStatus, RootStatus
from .search import SearchResult
from .sync import SyncReport

__all__ = ["Library", "LibraryStatus", "RootStatus", "SearchResult", "SyncReport", "SearchFilters", "DuplicateReport",
           "NearPair", "PassagePair"]
