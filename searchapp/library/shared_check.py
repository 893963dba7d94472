"""`status --check` on a shared library (decision 0134): the desktop's exit codes, read from what a shared library
can be wrong about.

4: this desktop's model, pooling or chunking differs from what the library was built with (its searches by
   meaning and its syncs are refused, ModelSet.check_library's rule);
3: the library is not consistent: the passage totals the triggers keep (BM25's N and mean length) differ from
   a count, a file's passage count from its passages, or the HNSW index is missing or invalid once vectors are
   there (the database being out of reach, or made by a newer searchapp, is exit 3 already when it opens);
1: one of this machine's folders (or another machine's folder where library.path_map mounts it here) is
   missing or unreadable;
0: none of these. Failed and skipped files and passages still waiting for meaning are counted, not judged, as
on the desktop.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from ..base.errors import SearchAppError

if TYPE_CHECKING:
    from .shared import SharedLibrary

__all__ = ["SharedCheck", "check_shared", "missing_folders"]


@dataclass
class SharedCheck:
    schema: int  # the library's schema version
    schema_here: int  # the version this searchapp writes (an older library is migrated by its next writer)
    reindex_needed: Optional[str] = None
    problems: list[str] = field(default_factory=list)  # why it is not consistent
    missing: list[tuple[str, str, str]] = field(default_factory=list)  # (machine, folder as named here, reason)
    failed: int = 0
    skipped: int = 0
    waiting: int = 0  # passages without meaning yet

    @property
    def code(self) -> int:
        """The most serious first, as the desktop's `status --check` (docs/cli.md)."""
        if self.reindex_needed:
            return 4
        if self.problems:
            return 3
        return 1 if self.missing else 0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "consistent": not self.problems, "exit_code": self.code}

    def lines(self) -> list[str]:
        """The verdict's lines, the most serious (exit 4's) first."""
        out = [f"settings differ: {self.reindex_needed}"] if self.reindex_needed else []
        out += [f"schema: {self.schema}" + (f" (its next sync by this searchapp brings it to {self.schema_here})"
                                            if self.schema < self.schema_here else ""),
                "consistent: " + ("yes" if not self.problems else "NO: " + "; ".join(self.problems)),
                f"failed: {self.failed}, skipped: {self.skipped}; passages waiting for meaning: {self.waiting}"]
        out += [f"MISSING: {machine}: {folder}: {reason}" for machine, folder, reason in self.missing]
        return out


def check_shared(lib: SharedLibrary) -> SharedCheck:
    from ..store.postgres.schema import SCHEMA_VERSION

    store = lib.store
    out = SharedCheck(store.schema_version, SCHEMA_VERSION, reindex_needed=_settings_differ(lib),
                      problems=store.inconsistencies(),
                      missing=[(machine, here, why) for machine, _, here, why in missing_folders(lib)])
    entries = store.file_counts()  # the check counts every entry not indexed, a member as a file
    out.failed, out.skipped = (entries.files.get(s, 0) + entries.members.get(s, 0) for s in ("failed", "skipped"))
    # An empty file is left out on purpose, as `status` counts it (not among its "skipped or failed"): the check's
    # "skipped: 4" beside status's 2 + 1 did not add up
    out.skipped -= entries.files_empty + entries.members_empty
    out.waiting = store.pending_count()
    return out


def _settings_differ(lib: SharedLibrary) -> Optional[str]:
    """Why this desktop's bi-encoder, pooling or chunking cannot serve the library's vectors, or None."""
    from ..models.identity import library_settings, reindex_reasons

    if not lib.store.has_chunks():
        return None
    try:  # the fingerprint from the model's files (no torch), as a sync or a search by meaning compares it
        wanted = lib.models.expected_meta()
    except (SearchAppError, OSError):  # the configured model is not here: compared by name alone
        wanted = library_settings(lib.config)
    reasons = reindex_reasons(lib.store.meta(), wanted)
    if not reasons:
        return None
    return ("the shared library was built with " + "; ".join(reasons) + ": this desktop's searches by meaning and "
            "syncs are refused until its [models] and [chunking] settings match the library's")


def missing_folders(lib: SharedLibrary) -> list[tuple[str, str, str, str]]:
    """This machine's folders that are gone or unreadable, and other machines' folders that library.path_map
    mounts here but are not there: (machine, its path in the library, where it is looked for here, why). `status`
    marks them, `status --check` judges them."""
    from .sync.roots import missing_reason, root_missing

    store = lib.store
    out: list[tuple[str, str, str, str]] = []
    for machine, root in store.all_roots():
        if machine == store.machine:
            why = root_missing(lib._as_store, root)
            here = root.path
        else:
            mounted = lib.paths.mounted(machine, root.path)
            if mounted is None:
                continue  # not mounted here by the map: another machine's to check
            here = mounted
            why = missing_reason(here, store.has_files(root.id), store.has_files_below(root.id, root.path))
        if why is not None:
            out.append((machine, root.path, here, why))
    return out
