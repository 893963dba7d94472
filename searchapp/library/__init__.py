"""The façade over ingest, models, store and ann that every front end (CLI, GUI) uses.

Rooms, each with one job (a newcomer finds a job by its name). The façade, this package's own modules:
  library.py, reconfigure.py      Library(config), and opening it again under new settings
  watch_and_serve.py              the long-lived helpers an open library starts: the watcher, the warm index
  shared.py                       a library shared on PostgreSQL
Its sub-packages, lowest first: each imports only those above it in this list, never one below it nor the façade
(tests/unit/test_architecture.py, LIBRARY_ORDER):
  members/                        copies of container members on disk: private copies, their temporary folders
  resources/                      what an open library holds: the data dir, the one-writer lock and its turns,
                                  read-only connections, the vector index's lifecycle, the models, the searches
                                  in flight a sync steps aside for, one BLAS thread, a cheap sign of another
                                  process's commit, the integrity check, the command line's Undo file
  query/                          the query language, what a filter says, how a long question is read, its help,
                                  checks on a query, history and saved searches
  search/                         where a search is ranked: retrieve, apply filters, fuse, group, snippets; similar
                                  files, duplicates
  sync/                           keeping the index in step: words pass (with container members and the files that
                                  wait for OCR), meaning pass, roots, live watch; a folder's size before it is added
  ocr/                            the OCR step a sync is handed (sync/contract.OcrStep), the "(OCR)" marks on hits
  report/                         what the library says about itself: status, the not-indexed list, explain,
                                  settings drift, recall
  warm/                           the warm index: a long-lived process answers the command line's searches over a
                                  private local socket
"""

from __future__ import annotations

from ..base.lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: the thin entry point (cli/entry.py) starts through this package

if TYPE_CHECKING:
    from .library import Library, LibraryStatus, RootStatus
    from .search.duplicates import DuplicateReport, NearPair, PassagePair
    from .search.near_groups import NearGroup
    from .query.filters import SearchFilters
    from .search.result import Notice, SearchResult
    from .sync.contract import SyncReport

__all__ = ["Library", "LibraryStatus", "RootStatus", "SearchResult", "Notice", "SyncReport", "SearchFilters", "DuplicateReport",
           "NearPair", "NearGroup", "PassagePair"]

# The names load on first use, so a light room (search/result.py, warm/ping.py) is imported without numpy,
# hnswlib or torch: the command line's warm path renders a search without them.
_HOME = {"Library": "library", "LibraryStatus": "library", "RootStatus": "library",
         "DuplicateReport": "search.duplicates", "NearPair": "search.duplicates", "PassagePair": "search.duplicates",
         "NearGroup": "search.near_groups",
         "SearchFilters": "query.filters", "Notice": "search.result", "SearchResult": "search.result",
         "SyncReport": "sync.contract"}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())
