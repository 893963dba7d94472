"""A sync's thread goes to the background (nice 10), except in a process whose work the person waits for:
`searchapp index --words-only` (decision 0106). Each check runs on a thread of its own: a lowered priority
cannot be raised again, and must not slow the rest of the test process."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from searchapp.base import priority
from searchapp.cli.main import main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values: Linux")


def _on_a_thread() -> tuple[bool, int, int]:
    """(what lower_thread_priority said, the thread's nice value before, after), on a new thread."""
    out: list = []

    def run() -> None:
        tid = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, tid)
        out.append((priority.lower_thread_priority(), before, os.getpriority(os.PRIO_PROCESS, tid)))

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return out[0]


@pytest.fixture
def adapting(monkeypatch):
    """Background priority on (the suite turns it off for its subprocesses)."""
    monkeypatch.delenv("SEARCHAPP_NO_BACKGROUND_PRIORITY", raising=False)
    if os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) >= priority.BACKGROUND_NICENESS:
        pytest.skip("this process already runs at the background niceness")


def test_a_sync_thread_goes_to_the_background(adapting):
    lowered, before, after = _on_a_thread()
    assert lowered and before < priority.BACKGROUND_NICENESS == after


def test_in_front_holds_for_its_block_on_every_thread_and_no_longer(adapting):
    with priority.in_front():
        lowered, before, after = _on_a_thread()
        assert not lowered and after == before < priority.BACKGROUND_NICENESS
    lowered, before, after = _on_a_thread()  # a later sync of the same process is background work again
    assert lowered and before < priority.BACKGROUND_NICENESS == after


def test_words_only_at_the_command_line_keeps_the_normal_priority(adapting, tmp_path, capsys):
    """The command's own sync (on the thread that runs it) keeps its priority; once it returns, a sync in the same
    process is background work again (the test worker's next test, the window)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("volcanic rock and pumice stone", encoding="utf-8")
    out: list = []

    def run() -> None:
        tid = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, tid)
        code = main(["--data-dir", str(tmp_path / "lib"), "index", "--words-only", str(docs)])
        out.append((code, before, os.getpriority(os.PRIO_PROCESS, tid)))

    t = threading.Thread(target=run)
    t.start()
    t.join()
    code, before, after = out[0]
    assert code == 0 and after == before < priority.BACKGROUND_NICENESS
    lowered, before, after = _on_a_thread()
    assert lowered and before < priority.BACKGROUND_NICENESS == after
