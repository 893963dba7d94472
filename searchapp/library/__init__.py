"""The façade over ingest, models, store and ann that every front end (CLI, GUI) uses.

Rooms, each with one job (a newcomer finds a job by its name):
  library.py, reconfigure.py      the façade: Library(config) and opening it again under new settings
  data_dir, lock, readers,        opening a data dir, the one-writer lock, read-only connections, a cheap sign
  disk_mark, index_keeper,        that another process wrote, the vector index's lifecycle, the models a library
  model_set, blas                 uses, one BLAS thread for many small products
  search/                         finding: retrieve, fuse, filter, group, snippets; similar files, duplicates
  query/                          the query language, how a long question is read, its help, checks on a query,
                                  history and saved searches
  sync/                           keeping the index in step: words pass, meaning pass, roots, live watch;
                                  a folder's size before it is added
  ocr/                            OCR: which files wait (text pass), the OCR step, the "(OCR)" marks on hits
  members/                        members of containers: their sync, private copies on disk, opening one
  report/                         what the library says about itself: status, the not-indexed list, explain,
                                  settings drift, recall
  serve/                          the warm index: a long-lived process answers the command line's searches
                                  over a private local socket
"""

from __future__ import annotations

from ..base.lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: the thin entry point (cli/entry.py) starts through this package

if TYPE_CHECKING:
    from .library import Library, LibraryStatus, RootStatus
    from .search.duplicates import DuplicateReport, NearPair, PassagePair
    from .search.filters import SearchFilters
    from .search.result import Notice, SearchResult
    from .sync.contract import SyncReport

__all__ = ["Library", "LibraryStatus", "RootStatus", "SearchResult", "Notice", "SyncReport", "SearchFilters", "DuplicateReport",
           "NearPair", "PassagePair"]

# The names load on first use, so a light room (search/result.py, warm/ping.py) is imported without numpy,
# hnswlib or torch: the command line's warm path renders a search without them.
_HOME = {"Library": "library", "LibraryStatus": "library", "RootStatus": "library",
         "DuplicateReport": "search.duplicates", "NearPair": "search.duplicates", "PassagePair": "search.duplicates",
         "SearchFilters": "search.filters", "Notice": "search.result", "SearchResult": "search.result",
         "SyncReport": "sync.contract"}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())
