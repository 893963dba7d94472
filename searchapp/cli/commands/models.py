"""`searchapp models list|pull|remove`: the models the app can use, and fetching one from the Hugging Face hub.

`pull` (and the window's Download) is the only way a model arrives: it uses the network because it was asked to
by name. No other command fetches anything.

The hub and library modules are imported inside the handlers: every CLI start, `--help` included, paid
~0.25 s for them at module level.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING, Any, Iterator, Optional

from ...base.config import Config, as_saved, save_config
from ...base.errors import Cancelled
from ...base.progress import Progress
from ...base.terminal import printable

if TYPE_CHECKING:
    from ...base.progress import CancelToken
    from ..progress import TerminalProgress

__all__ = ["register", "cmd_models"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("models", help="list the models the app can use; pull one from the Hugging Face hub; remove one")
    s.set_defaults(handler=cmd_models)
    mv = s.add_subparsers(dest="models_command", metavar="ACTION")
    e = mv.add_parser("list", help="every usable model: role, id or folder, source, size, sha256 of the weights, in use")
    e.add_argument("--json", action="store_true", help="print JSON")
    e = mv.add_parser("pull", help="download a model (safetensors, configs, tokenizer) into the Hugging Face cache")
    e.add_argument("id", metavar="ID", help="Hugging Face model id, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2")
    e.add_argument("--role", choices=["reranker", "bi-encoder"], help="what the model is for (default: from its config)")
    e.add_argument("--use", action="store_true", help="also make it the configured model for its role")
    e.add_argument("--json", action="store_true", help="print JSON")
    e = mv.add_parser("remove", help="delete a downloaded model from the Hugging Face cache")
    e.add_argument("id", metavar="ID", help="its Hugging Face id, as `searchapp models list` shows it")


def cmd_models(args: argparse.Namespace, config: Config, progress: TerminalProgress, cancel: CancelToken) -> int:
    action = getattr(args, "models_command", None)
    if action in ("list", None):  # a bare `models` lists, as a bare `saved` and `history` do
        if action is None:
            args.json = False
        return _list(args, config)
    if action == "pull":
        return _pull(args, config, cancel)
    if action == "remove":
        return _remove(args, config)
    raise AssertionError(action)  # argparse allows no other action


def _list(args: argparse.Namespace, config: Config) -> int:
    from ...models.catalog import list_models

    entries = list_models(config)
    if args.json:
        print(json.dumps([e.to_json() for e in entries]))
        return 0
    print(f"{'role':<11}{'source':<10}{'size':>9}  {'sha256':<14}{'in use':<22}id")
    for e in entries:
        size = f"{e.bytes / 1e6:.0f} MB" if e.bytes else "-"
        used = ", ".join(e.in_use) or "-"
        print(printable(f"{e.role:<11}{e.source:<10}{size:>9}  {(e.sha256 or '-')[:12]:<14}{used:<22}{e.id}"))
        if e.problem:
            print(f"{'':<11}note: {printable(e.problem)}")
    _offered({e.id for e in entries})
    return 0


def _offered(installed: set[str]) -> None:
    """The well-known models not installed yet, with their size, quality and speed (models/hub/plan.py)."""
    from ...models.hub import KNOWN_MODELS

    rest = [k for k in KNOWN_MODELS if k.repo_id not in installed]
    if not rest:
        return
    print("\noffered (`searchapp models pull ID`, or the window's Download):")
    for k in rest:
        print(f"{k.role:<11}{k.size_mb:>6} MB  {k.repo_id}")
        print(f"{'':<11}{k.note}" + (f"; {k.speed}" if k.speed else ""))


class _ByteBar:
    """A tqdm bar over bytes while downloading; silent unless stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.bar: Any = None  # a tqdm bar (tqdm has no type information)

    def __call__(self, p: Progress) -> None:
        if not self.enabled:
            return
        if p.stage == "downloading" and p.total:
            if self.bar is None:
                from tqdm import tqdm

                self.bar = tqdm(total=p.total, unit="B", unit_scale=True, desc="downloading", file=sys.stderr,
                                dynamic_ncols=True, leave=False)
            self.bar.n = p.done
            self.bar.set_postfix_str(printable(p.message), refresh=True)
        elif p.stage in ("checking", "done"):
            self.close()
            if p.stage == "checking":
                print("checking that it loads…", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@contextlib.contextmanager
def _ctrl_c_cancels(cancel: CancelToken) -> Iterator[None]:
    """While a pull runs, Ctrl+C only sets `cancel` (the pull stops within seconds, see models/hub/);
    a second Ctrl+C interrupts at once. Either way the pull ends in one line and exit 130, no traceback."""

    def handler(signum: int, frame: Optional[FrameType]) -> None:
        if cancel.cancelled:
            raise KeyboardInterrupt
        cancel.cancel()

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread (embedded use): nothing to install
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _pull(args: argparse.Namespace, config: Config, cancel: CancelToken) -> int:
    from ...models.hub import hub_host, pull_model

    bar = _ByteBar()
    if bar.enabled:
        print(f"downloading {printable(args.id)} from {hub_host()} (safetensors, configs, tokenizer only)",
              file=sys.stderr)
    try:
        with _ctrl_c_cancels(cancel):
            got = pull_model(args.id, role=args.role, progress=bar, cancel=cancel)
    except (Cancelled, KeyboardInterrupt):
        bar.close()
        print("searchapp: models pull cancelled; nothing was installed", file=sys.stderr)
        return Cancelled.exit_code
    finally:
        bar.close()
    key = "reranker" if got.role == "reranker" else "bi_encoder"  # its setting in [models]
    if args.use:
        save_config(as_saved(config.replace(models={key: got.repo_id})))  # `--library local` is for this run
    if args.json:
        print(json.dumps({"id": got.repo_id, "role": got.role, "path": str(got.path), "commit": got.commit,
                          "sha256": got.sha256, "bytes": got.bytes, "already_present": got.already_present,
                          "in_use": bool(args.use)}))
        return 0
    what = "already in the cache" if got.already_present else f"downloaded ({got.bytes / 1e6:.0f} MB)"
    print(f"{got.repo_id}: {what}, loads as a {got.role}; {got.path}")
    current = getattr(config.models, key)
    if args.use:
        print(f"now the configured {got.role}" + (" (run `searchapp reindex`: passages were embedded with another model)"
                                                 if got.role == "bi-encoder" and current != got.repo_id else ""))
    elif current != got.repo_id:
        print(f"to use it: `searchapp models pull {got.repo_id} --use`, or set [models] {key} = \"{got.repo_id}\"")
    return 0


def _remove(args: argparse.Namespace, config: Config) -> int:
    from ...models.hub import remove_cached_model

    freed = remove_cached_model(args.id)
    print(f"removed {printable(args.id)} from the Hugging Face cache ({freed / 1e6:.0f} MB freed)")
    m = config.models
    for role, spec in (("reranker", m.reranker), ("bi-encoder", m.bi_encoder)):
        if spec == args.id:
            print(f"note: it was the configured {role}; "
                  + ("search works without reranking until another is set or pulled" if role == "reranker"
                     else "searching needs a bi-encoder: set [models] bi_encoder or pull it again"), file=sys.stderr)
    return 0
