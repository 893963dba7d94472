"""`searchapp status [--json] [--check]`: what is indexed, problems, models, device.

Only reads: it never loads torch (tests/test_fast_start.py), and never creates a library.
"""

from __future__ import annotations

import json

from ...base.config import Config
from ...base.terminal import printable
from ..open_library import open_library as _library

__all__ = ["register", "cmd_status"]


def register(sub) -> None:
    s = sub.add_parser("status", help="what is indexed, problems, models, device")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--check", action="store_true",
                   help="exit 4 when a reindex is needed, 3 when not consistent, 1 when a folder is missing")
    s.set_defaults(handler=cmd_status)


def cmd_status(args, config: Config, progress, cancel) -> int:
    with _library(config, create=False) as lib:
        st = lib.status()
    code = _status_exit_code(st) if args.check else 0
    if args.json:
        print(json.dumps(st.to_json()))
        return code
    print(f"library: {printable(st.data_dir)}")
    for r in st.roots:
        print(f"  {printable(r.path)}: {r.files} files, {r.chunks} passages"
              + (f"  [MISSING: {printable(r.reason)}; kept and searchable, `searchapp remove` forgets it]" if r.missing else ""))
    if not st.roots:
        print("  (no folders yet: `searchapp index PATH`)")
    by = ", ".join(f"{n} {s}" for s, n in sorted(st.files.items())) or "0"
    print(f"files: {by}; passages: {st.chunks}; vectors: {st.vectors}; consistent: {'yes' if st.consistent else 'NO'}")
    meaning = st.to_json()["meaning"]
    print(f"searchable by words: {st.chunks} passages; meaning: {meaning['percent']}% of passages"
          + (f" ({st.chunks - st.embedded} still to embed)" if st.embedded < st.chunks else ""))
    b = st.bi_encoder
    print(printable(f"bi-encoder: {b['spec']} ({b['pooling']} pooling)" + (
        f"; library built with {b['library_model']} ({b['library_pooling']})" if b["library_model"] else "")))
    rr = st.reranker
    print(printable(f"reranker: {rr['path'] if rr['available'] == 'yes' else 'not available'}"
                    + (f" — {rr['message']}" if rr["message"] else "")))
    print(f"device: {st.device}")
    for n in st.notes:
        print(f"note: {printable(n)}")
    if st.reindex_needed:
        print(f"reindex needed: {printable(st.reindex_needed)}")
    if st.failed:
        print(f"not indexed ({len(st.failed)}):")
        for path, status, reason in st.failed:
            print(f"  [{status}] {printable(path)}: {printable(reason)}")
    return code


def _status_exit_code(st) -> int:
    """`status --check`: the README's exit codes for what needs attention, the most serious first."""
    if st.reindex_needed:
        return 4
    if not st.consistent:
        return 3
    if any(r.missing for r in st.roots):
        return 1
    return 0
