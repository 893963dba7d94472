"""This machine's embedding rate is measured by a sync, kept in the library, and `status` says from it how long
the meaning still waiting takes (sync/meaning_rate.py; the rate itself is base/rate.py's, on the test's clock)."""

from __future__ import annotations

import io
from argparse import Namespace
from dataclasses import replace

import pytest

from searchapp.base.progress import Progress
from searchapp.cli.commands.status import print_status
from searchapp.library.sync.meaning_rate import (RATE_META, SAVE_EVERY_S, RememberRate, folder_estimate_s,
                                                 remembered_rate)


def _docs(tmp_path, n: int = 3):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(n):
        (docs / f"d{i}.txt").write_text(f"Note {i} about the tides and the harbour wall.\n", encoding="utf-8")
    return docs


def test_a_sync_s_embedding_reports_become_the_remembered_rate(tiny_library):
    store = tiny_library.store
    now = [0.0]
    seen: list[Progress] = []
    remember = RememberRate(store, seen.append, clock=lambda: now[0])
    for i in range(4):  # 40 passages every 5 s; the 4th report is the first with evidence enough
        now[0] = 5.0 * i
        remember(Progress("embedding", 40 * i, 10_000))
        if i < 3:
            assert remembered_rate(store) is None  # no evidence yet: nothing claimed
    assert remembered_rate(store) == pytest.approx(8.0)
    remember(Progress("extracting", 3, 9))  # other stages pass through untouched
    assert [p.stage for p in seen] == ["embedding"] * 4 + ["extracting"]
    for i in range(4, 6):  # slower now, but within SAVE_EVERY_S of the last write: not written yet
        now[0] = 15.0 + 10.0 * (i - 3)
        remember(Progress("embedding", 40 * i, 10_000))
    assert now[0] - 15.0 < SAVE_EVERY_S and remembered_rate(store) == pytest.approx(8.0)
    remember.save()  # the end of a pass writes what it measured last
    assert remembered_rate(store) == pytest.approx(remember.estimator.rate()) and remembered_rate(store) < 8.0


def test_a_damaged_or_missing_rate_is_no_rate(tiny_library):
    store = tiny_library.store
    assert remembered_rate(store) is None
    for raw in ("not json", '{"passages_per_s": "fast"}', '{"passages_per_s": 0}', "{}"):
        with store.atomic():
            store.set_meta(RATE_META, raw)
        assert remembered_rate(store) is None, raw


def test_status_says_when_the_meaning_waiting_will_be_done(tiny_library, tmp_path):
    tiny_library.add_folder(_docs(tmp_path), embed=False)  # words only: every passage waits for meaning
    st = tiny_library.status()
    waiting = st.chunks - st.embedded
    assert waiting > 0 and st.meaning_rate is None and st.to_json()["meaning"]["left_s"] is None
    assert not any("passages/s" in n for n in st.notes)  # nothing measured: no time claimed
    now = [0.0]
    remember = RememberRate(tiny_library.store, None, clock=lambda: now[0])
    for i in range(5):
        now[0] = 60.0 * i  # one passage a minute
        remember(Progress("embedding", i, 100))
    st = tiny_library.status()
    assert st.meaning_rate == pytest.approx(1 / 60)
    assert st.to_json()["meaning"]["left_s"] == pytest.approx(waiting * 60.0)
    note = next(n for n in st.notes if n.startswith("meaning:"))
    assert f"about {waiting} min at the last measured 0.017 passages/s" in note, note
    out = io.StringIO()
    print_status(Namespace(json=False, check=False), st, None, out)
    # nothing embeds them now: how long they take, not when they will be done
    assert f"({waiting} still to embed: about {waiting} min at the last measured" in out.getvalue()
    assert "once `searchapp index` or the window embeds them)" in out.getvalue() and "done in" not in out.getvalue()
    out = io.StringIO()
    print_status(Namespace(json=False, check=False), replace(st, writer="process 4242 (searchapp watch)"), None, out)
    assert f"({waiting} still to embed, done in about {waiting} min at the last measured" in out.getvalue()


def test_a_real_sync_remembers_its_rate(tiny_library, tmp_path, monkeypatch):
    from searchapp.base import rate

    # The tiny model embeds in milliseconds: any two reports are evidence enough here.
    monkeypatch.setattr(rate, "MIN_SPAN_S", 0.0)
    monkeypatch.setattr(rate, "EVIDENCE", 1)
    tiny_library.add_folder(_docs(tmp_path, 4), embed=False)
    assert remembered_rate(tiny_library.store) is None  # no meaning pass, nothing measured
    tiny_library.sync()
    assert remembered_rate(tiny_library.store) > 0


def test_a_folder_estimate_is_its_passages_at_the_rate():
    assert folder_estimate_s(5_000, 3.0, 8.0) == pytest.approx(1875.0)


class _Encoder:
    loaded = True

    def __init__(self, used: int, setting: int) -> None:
        self.threads = (used, setting)

    def stepping_aside(self):
        return self.threads


def test_a_sync_slowed_for_other_programs_says_so_with_its_progress(tiny_library):
    from searchapp.library.sync.meaning_rate import aside_note

    seen: list[Progress] = []
    remember = RememberRate(tiny_library.store, seen.append, clock=lambda: 0.0)
    enc = _Encoder(2, 2)
    remember.aside = lambda: aside_note(enc)
    remember(Progress("embedding", 10, 100, "searchable by words · meaning: 10% of passages"))
    assert seen[-1].message == "searchable by words · meaning: 10% of passages"  # all threads: nothing to say
    enc.threads = (1, 2)
    remember(Progress("embedding", 20, 100, "searchable by words · meaning: 20% of passages"))
    assert seen[-1].message == ("searchable by words · meaning: 20% of passages · "
                                "slowed for other programs: 1 of 2 threads")
    remember(Progress("extracting", 3, 9, "a.txt"))
    assert seen[-1].message == "a.txt"  # only the meaning pass fits its threads
    assert aside_note(object()) == ""  # an encoder without threads to fit (a GPU's)


def test_a_writer_handover_s_wait_is_not_remembered_as_the_rate(tiny_library):
    """64 passages/s, then 300 s waiting for another writer, then 64/s again: what is saved for `status` and the
    big-folder prompt stays 64/s, not the ~6/s of a window spanning the wait."""
    from searchapp.library.sync.handover import WAITING

    now = [0.0]
    remember = RememberRate(tiny_library.store, None, clock=lambda: now[0])
    for i in range(21):
        now[0] = float(i)
        remember(Progress("embedding", 64 * i, 100_000))
    assert remembered_rate(tiny_library.store) == pytest.approx(64.0)
    remember(Progress(WAITING, 0, 0, "another searchapp process is adding files"))
    for k in range(1, 16):  # the wait ended at 320 s; past SAVE_EVERY_S since the last write, so each is saved
        now[0] = 320.0 + k
        remember(Progress("embedding", 64 * (20 + k), 100_000))
        assert remember.estimator.rate() in (None, pytest.approx(64.0))
    remember.save()
    assert remembered_rate(tiny_library.store) == pytest.approx(64.0)
