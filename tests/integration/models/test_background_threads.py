"""A sync's encoder (encode(background=True)) runs each CPU batch on the threads other processes leave it; any
other encode keeps its setting (base/cpu_share.py)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from searchapp.base.cpu_share import usable_cores

SPIN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass\n"
TEXTS = [f"passage {i} about the weather and the sea" for i in range(64)]


@pytest.fixture
def two_thread_encoder(tiny_bi_encoder_dir):
    from searchapp.models import BiEncoder

    return BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=2, batch_size=8)


@pytest.mark.skipif(usable_cores() < 2, reason="one core: one thread either way")
def test_background_batches_take_the_threads_other_processes_leave(two_thread_encoder):
    enc = two_thread_encoder
    busy = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(usable_cores() - 1)]
    try:
        time.sleep(0.8)  # what the first batch's reading covers
        enc.encode(TEXTS, background=True)
        assert enc.last_threads == 1  # one core left
        enc.encode(TEXTS)
        assert enc.last_threads == 2  # not background: the setting, busy machine or not
    finally:
        for p in busy:
            p.kill()
            p.wait()
    time.sleep(0.8)
    vecs = enc.encode(TEXTS, background=True)
    assert enc.last_threads == 2 and vecs.shape == (len(TEXTS), enc.dim)  # quiet again: both


def test_a_sync_encodes_in_the_background_unless_told_not_to(tiny_library, tmp_path, monkeypatch):
    seen: list[bool] = []
    inner = tiny_library.models.passage_encoder()

    class Recording:
        def __getattr__(self, name):
            return getattr(inner, name)

        def encode(self, texts, **kw):
            seen.append(kw.get("background", False))
            return inner.encode(texts, **kw)

    monkeypatch.setattr(tiny_library.models, "passage_encoder", lambda: Recording())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The sea was calm.\n", encoding="utf-8")
    (docs / "b.txt").write_text("A storm came in.\n", encoding="utf-8")
    tiny_library.add_folder(docs)  # the test suite's SEARCHAPP_NO_BACKGROUND_PRIORITY=1: as set
    assert seen and not any(seen)
    monkeypatch.delenv("SEARCHAPP_NO_BACKGROUND_PRIORITY")
    (docs / "c.txt").write_text("Then the sun again.\n", encoding="utf-8")
    # on a thread of its own, as the window syncs: the sync lowers its thread's priority for good
    worker = threading.Thread(target=tiny_library.sync)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive() and seen[-1] is True
