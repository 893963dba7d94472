"""`searchapp remove PATH` (forget a folder) and `searchapp reindex` (rebuild every passage and vector)."""

from __future__ import annotations

import os

from ...base.config import Config
from ...base.terminal import printable
from ..open_library import open_library as _library

__all__ = ["register", "cmd_remove", "cmd_reindex"]


def register(sub) -> None:
    s = sub.add_parser("remove", help="forget an indexed folder and everything under it")
    s.add_argument("path", metavar="PATH")
    s.set_defaults(handler=cmd_remove)

    s = sub.add_parser("reindex", help="rebuild every passage and vector with the current model and chunking")
    s.add_argument("--json", action="store_true")
    s.add_argument("--words-only", action="store_true",
                   help="stop once every file is searchable by words; its meaning (vectors) is embedded by the "
                        "next `searchapp index` without --words-only")
    s.set_defaults(handler=cmd_reindex)


def cmd_remove(args, config: Config, progress, cancel) -> int:
    with _library(config, create=False) as lib:
        n = lib.remove_folder(args.path)
    print(f"removed {printable(os.path.abspath(args.path))} ({n} files)")
    return 0


def cmd_reindex(args, config: Config, progress, cancel) -> int:
    with _library(config, create=False) as lib:
        rep = lib.reindex(progress=progress, cancel=cancel, embed=not args.words_only)
    progress.close()
    print(f"re-indexed {rep.added} files into {rep.chunks_added} passages")
    return 0
