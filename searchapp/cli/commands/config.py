"""`searchapp config`: every setting in effect as pasteable TOML, with its meaning and where it came from."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ...base.config import Config
from ...base.terminal import printable

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_config"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("config", help="list every setting with its current value and meaning")
    s.set_defaults(handler=cmd_config)


def cmd_config(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    from ...base.config import config_as_toml, setting_sources

    sources = setting_sources(config, data_dir=args.data_dir, config_file=args.config)
    # Paths (the --config file, the data dir) may hold control characters: escaped the TOML way, so the
    # output stays pasteable into a config file and never drives the terminal.
    text = config_as_toml(config, sources)
    sys.stdout.write("\n".join(printable(line, toml=True) for line in text.split("\n")))
    return 0
