"""One error hierarchy. The CLI maps each class to a clean message and an exit code; anything else is a bug."""

from __future__ import annotations

from typing import Any

__all__ = [
    "SearchAppError",
    "ConfigError",
    "QueryError",
    "DataDirError",
    "HeldElsewhere",
    "ExtractionError",
    "UnsupportedFileError",
    "SecretFileError",
    "StoreError",
    "WriterBusy",
    "IndexCorruptError",
    "NoSharedLibrary",
    "ModelMismatchError",
    "ModelLoadError",
    "ModelNotFoundError",
    "Cancelled",
]


class SearchAppError(Exception):
    """Base of every expected error; `exit_code` is what the CLI returns for it."""

    exit_code = 1


class ConfigError(SearchAppError):
    exit_code = 2


class QueryError(ConfigError):
    """A value the query itself holds is refused (a date field mistyped: after:2026-13-01), as its flag would be.
    Exit 2; the window says it over the emptied list, no dialog: it searches as the person types."""


class DataDirError(ConfigError):
    """The data dir cannot hold or show a library: missing (for a read-only command), a file, unreadable,
    or read-only for a command that writes. Exit 2, like any bad path."""


class HeldElsewhere(ConfigError):
    """A folder another machine of a shared library indexes already, the very files (decision 0173): added only
    when the person asks again knowing it (`index --also`, the window's "Index here too"). `why` says whose it is
    without the command line's advice; `root` is the folder asked for."""

    def __init__(self, why: str, root: str, one_file: bool = False) -> None:
        twice = ("it as this machine's too (then twice)" if one_file
                 else "them as this machine's too (each file then twice)")
        super().__init__(f"{why}. `searchapp index --also {root}` indexes {twice}")
        self.why, self.root = why, root


class ExtractionError(SearchAppError):
    """A file could not be turned into text. Collected per file; never aborts a sync."""


class UnsupportedFileError(ExtractionError):
    """No extractor for this file, or it is binary behind a text suffix. `status`: the entry's state in the
    library (store/ledger.py)."""

    status = "skipped"


class SecretFileError(UnsupportedFileError):
    """The file holds a secret (a private key, a list of passwords): never read into the library, whatever its
    name (ingest/secrets.py, decision 0177)."""

    status = "excluded"


class GeneratedFileError(UnsupportedFileError):
    """A file a tool wrote for another tool, told by its text (a minified bundle named like code): left out on
    purpose, not for a problem (ingest/generated.py, decision 0178)."""

    status = "excluded"


class StoreError(SearchAppError):
    exit_code = 3


class WriterBusy(StoreError):
    """Another process kept the writer lock past the wait (library/resources/lock.py): a write that can try again
    later (the window's folder watch) tells it apart from a failing store."""


class ConnectionLost(StoreError):
    """A shared library's server could not be reached, or the connection to it was lost mid-request (a restart, a
    network cut): asked again in a while, the same request may well be answered (decision 0171).

    `advice`: what a command that stops on it adds ("(a command: run it again once the server is back)"); `retried`
    is the line without it, for a caller that asks again itself (`watch`, `search -`): "will retry" beside "run it
    again" contradicted itself."""

    def __init__(self, said: str, advice: str = "") -> None:
        super().__init__(said + advice)
        self.retried = said


class IndexCorruptError(StoreError):
    pass


class NoSharedLibrary(StoreError):
    """The database holds no shared library yet (the window offers to make one there: decision 0144)."""


class ModelMismatchError(SearchAppError):
    """The library was built with another model, pooling or chunking than the one configured."""

    exit_code = 4


class ModelLoadError(SearchAppError):
    exit_code = 5


class ModelNotFoundError(ModelLoadError):
    pass


class Cancelled(SearchAppError):
    """A long job stopped at a batch boundary because the user asked; state is consistent. `report`: what a
    cancelled sync had done by then (a SyncReport), so the person hears how far it got."""

    exit_code = 130

    def __init__(self, *args: object, report: Any = None) -> None:
        super().__init__(*args)
        self.report = report
