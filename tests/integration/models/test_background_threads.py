"""A sync's encoder (encode(background=True)) runs each CPU batch on the threads other processes leave it; any
other encode keeps its setting (base/cpu_share.py)."""

from __future__ import annotations

import threading

import pytest

from searchapp.base.cpu_share import CpuShare
from searchapp.models import encode_threads

TEXTS = [f"passage {i} about the weather and the sea" for i in range(64)]


@pytest.fixture
def two_thread_encoder(tiny_bi_encoder_dir):
    from searchapp.models import BiEncoder

    return BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=2, batch_size=8)


class Machine:
    """A /proc/stat the test sets: how many cores other processes keep busy (base/cpu_share.CpuShare's sample)."""

    def __init__(self) -> None:
        self.others = 0.0  # cores
        self.busy = self.clock = 0.0

    def __call__(self):
        self.clock += 1.0  # a second between readings, whatever the real clock did
        self.busy += self.others
        return self.busy, 0.0, self.clock


def test_background_batches_take_the_threads_other_processes_leave(two_thread_encoder, monkeypatch):
    enc = two_thread_encoder
    machine = Machine()
    monkeypatch.setattr(encode_threads, "usable_cores", lambda: 2)  # a 2-core machine, whatever this one has
    enc._cpu_share = CpuShare(sample=machine)
    machine.others = 1.0  # another program keeps one core busy
    enc.encode(TEXTS, background=True)
    assert enc.last_threads == 1  # one core left
    enc.encode(TEXTS)
    assert enc.last_threads == 2  # not background: the setting, busy machine or not
    machine.others = 0.0
    vecs = enc.encode(TEXTS, background=True)
    assert enc.last_threads == 2 and vecs.shape == (len(TEXTS), enc.dim)  # quiet again: both
    machine.others = 5.0
    enc.encode(TEXTS, background=True)
    assert enc.last_threads == 1  # never fewer than one


def test_a_sync_encodes_in_the_background_unless_told_not_to(tiny_library, tmp_path, monkeypatch):
    seen: list[bool] = []
    inner = tiny_library.models.passage_encoder()

    class Recording:
        def __getattr__(self, name):
            return getattr(inner, name)

        def encode(self, texts, **kw):
            seen.append(kw.get("background", False))
            return inner.encode(texts, **kw)

    monkeypatch.setattr(tiny_library.models, "passage_encoder", lambda **_: Recording())
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


def test_a_query_s_one_thread_never_becomes_the_sync_s_setting(tiny_bi_encoder_dir, monkeypatch):
    """torch's thread count is process-wide and a query sets it to 1 while it runs: an encoder loaded with the
    default (0: torch's count) keeps the count it found at load, whatever torch's is when a batch starts."""
    import torch

    from searchapp.models import BiEncoder

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        enc = BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", batch_size=8)
        machine = Machine()
        monkeypatch.setattr(encode_threads, "usable_cores", lambda: 2)
        enc._cpu_share = CpuShare(sample=machine)
        torch.set_num_threads(1)  # left so by a query (or a race between a query's and a batch's restore)
        enc.encode(TEXTS, background=True)
        assert enc.last_threads == 2 and enc.stepping_aside() == (2, 2)  # a quiet machine: the setting
        enc.encode(TEXTS)
        assert enc.last_threads == 2
        machine.others = 1.0
        enc.encode(TEXTS, background=True)
        assert enc.stepping_aside() == (1, 2)  # one core busy elsewhere: said, for the progress strip
    finally:
        torch.set_num_threads(before)
