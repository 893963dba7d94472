"""A sync stopped before its end (killed, or cancelled) never said which files it could not read: its summary never
came, and the next sync, failing on them the same way, said "1 failed" and not why (decision 0145 lists a failure
once). The stop is kept in the library (library/sync/unsaid.py): `status` says it, and the next sync that finishes
says what was left out since, once. The kill is a real SIGKILL of a real process, mid-read."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stopped_process import HANG_GUARD_S

pytestmark = pytest.mark.engines("sqlite")

# Runs a words-only add of DOCS in DATA and stands still once it reaches file STOP (the test kills it there)
DRIVER = """
import sys, time
from pathlib import Path
from searchapp.base.config import load_config
from searchapp.library.reconfigure import library_for
data, docs, stop = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def progress(p):
    if p.stage == "extracting" and p.done == stop:
        print("reached", flush=True)
        time.sleep(600)

with library_for(load_config(data, env={})) as lib:
    lib.add_folder(docs, progress, embed=False)
"""


def killed_mid_read(data: Path, docs: Path, stop: int) -> None:
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(data), str(docs), str(stop)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, "SEARCHAPP_NO_READ_AHEAD": "1"})
    try:
        line = proc.stdout.readline()  # a hang guard below, not a timing check
        assert line.strip() == "reached", line + proc.stdout.read()
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=HANG_GUARD_S)


def test_a_killed_then_cancelled_sync_says_what_it_left_out_at_status_and_at_the_next_sync(
        tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    from searchapp.base.config import load_config
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.cli.commands.index import print_report
    from searchapp.library import Library

    docs, data = tmp_path / "docs", tmp_path / "lib"
    docs.mkdir()
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n')
    (docs / "a-broken.pdf").write_bytes(b"not a pdf")
    for i in range(6):
        (docs / f"n{i}.txt").write_text(f"Note {i} on the harbour wall repairs.\n")
    killed_mid_read(data, docs, stop=4)  # a-broken.pdf failed, n0 and n1 read, n2 being read

    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        st = lib.status()
        assert st.stopped is not None and st.stopped.total == 7 and not st.stopped.exact  # killed: "about"
        assert st.stopped.problems == [(str(docs / "a-broken.pdf"), "failed", st.stopped.problems[0][2])]
        assert st.notes[0].startswith("the last sync stopped after about ") and "a-broken.pdf" in st.notes[0]

        (docs / "b-broken.pdf").write_bytes(b"not a pdf either")
        token = CancelToken()

        def cancel_at_n0(p):  # a-broken, b-broken, n0: stopped as n0 is reported, after both failed
            if p.stage == "extracting" and p.done == 3:
                token.cancel()

        with pytest.raises(Cancelled):
            lib.sync(progress=cancel_at_n0, cancel=token, embed=False)
        stopped = lib.stopped_sync()
        assert stopped is not None and stopped.exact and (stopped.done, stopped.total) == (2, 8)
        # a second stop keeps the first one's start: what the killed sync left out is not lost
        assert [Path(p).name for p, _, _ in stopped.problems] == ["a-broken.pdf", "b-broken.pdf"]

        rep = lib.sync(embed=False)
        assert rep.failed == 2 and rep.problems == []  # failing the same way again: not news to this sync…
        assert rep.stopped_before is not None and rep.stopped_before.left_out == 2  # …but never said: said now
        print_report(rep, as_json=False)
        err = capsys.readouterr().err
        assert "searchapp: the last sync stopped after 2 of 8 files; 2 files could not be read:" in err, err
        assert f"  {docs / 'b-broken.pdf'}: " in err, err

        assert lib.sync(embed=False).stopped_before is None  # said once
        assert lib.status().stopped is None


@pytest.mark.engines("postgresql")
def test_a_shared_librarys_stopped_sync_is_said_by_status_and_by_the_machines_next_sync(tiny_library, tmp_path,
                                                                                         engine_address):
    """A shared library's sync (a machine's own folders) stopped by the person left no mark: its failures were never
    said. Now it keeps one of its machine's, in the server's meta, as the desktop's does in its own."""
    from stopped_syncs import stop_after_a_failure

    docs = tmp_path / "docs"
    stop_after_a_failure(tiny_library, docs)
    stopped = tiny_library.status().stopped
    assert stopped is not None and stopped.exact and (stopped.done, stopped.total) == (1, 4)
    assert [Path(p).name for p, _, _ in stopped.problems] == ["a-broken.pdf"]
    from searchapp.store.postgres.pg_store import PgStore

    other = PgStore(engine_address, machine="desk-a")  # another process of this machine, syncing the folder again
    try:
        root = other.root_by_path(str(docs))
        assert root is not None and other.try_root_locks([root.id]) is None
        during = tiny_library.status()  # its mark is a running sync's, not a stopped one's
        assert during.stopped is None and during.writer is not None and "sync" in during.writer
        # Let go as a finished sync does (a closed connection's locks go when the server's backend has ended,
        # a moment later on a busy machine: the status after it would race that)
        other.release_root_locks([root.id])
    finally:
        other.close()
    assert tiny_library.status().stopped is not None  # no sync running, the mark is a stopped sync's again
    rep = tiny_library.sync(embed=False)
    assert rep.failed == 1 and rep.problems == []  # failing the same way again: not news to this sync…
    assert rep.stopped_before is not None and rep.stopped_before.left_out == 1  # …but never said: said now
    assert tiny_library.sync(embed=False).stopped_before is None and tiny_library.status().stopped is None
