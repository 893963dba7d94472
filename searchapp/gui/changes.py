"""What an operation changed, so each part of the window refreshes only what it shows (as Anki's operations
return OpChanges and announce them through operation_did_execute).

A write's completion reports one Changes through the window's `changed` signal; every part subscribes and
decides for itself what to refresh. No part refreshes another, and none asks the window to.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["Changes"]


@dataclass(frozen=True)
class Changes:
    roots: bool = False  # the indexed folders: one added or removed
    files: bool = False  # indexed files and passages: a sync, a removal, a re-index (cancelled ones too)
    settings: bool = False  # the config: the library was reopened under it
    library: bool = False  # with settings: another library is in use now (File → Open Shared Library…)
    stale_index: bool = False  # the new settings cut or embed passages differently: a re-index is due
    searches: bool = False  # the saved searches
    elsewhere: bool = False  # another process wrote the library (a sync in a terminal); alone: it is still writing
    meaning: bool = False  # the vector index, opening in the background, is open: searches are hybrid again

    def __or__(self, other: "Changes") -> "Changes":
        return Changes(**{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)})

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @property
    def index(self) -> bool:
        """Something a search or the library's status shows."""
        return self.roots or self.files or self.settings
