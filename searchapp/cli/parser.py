"""The command line's parser: every command's, or just some groups' (a search builds its own alone: the other
groups' modules and parsers are a tenth of a warm search's time). Used by cli/main.py and, for the commands a
warm process runs for the thin entry point, cli/served.py."""

from __future__ import annotations

import argparse
from typing import Optional, Sequence

from .. import __version__
from .commands import register_all
from .global_options import accept_after_command

__all__ = ["build_parser"]


def build_parser(only: Optional[Sequence[str]] = None,
                 parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Every command's parser; `only`: just those command groups' (cli/commands/__init__.py). `parser_class`:
    the parsers' class (every command's parser is one too; cli/served.py's never prints)."""
    p = parser_class(prog="searchapp", description="Find things in your own files by meaning.")
    p.add_argument("--version", action="version", version=f"searchapp {__version__}")
    p.add_argument("--data-dir", help="library location (default: $SEARCHAPP_DATA_DIR or the per-user data directory)")
    p.add_argument("--config", help="config file (default: <data-dir>/config.toml)")
    p.add_argument("--library", metavar="ADDRESS",
                   help="a library a team shares: postgresql://user@host/db (password from ~/.pgpass or a service "
                        "file, never stored; default: $SEARCHAPP_LIBRARY; see docs/shared-library.md)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    register_all(sub, only)
    accept_after_command(p)
    return p
