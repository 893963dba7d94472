"""Every read follows other writers: a file a second process synced is seen by `similar`, `duplicates` and
`ann_recall` in the first, not only by search and status (Library._fresh is the one way a read reaches the
vector index)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.base.config import load_config
from searchapp.library import Library

TEXTS = {
    "violin.txt": "The violin maker carved spruce tops and varnished them by hand in a quiet workshop.",
    "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day.",
    "bread.txt": "Sourdough needs a lively starter, a long cold proof and a very hot oven.",
}
# The second process: for each data dir it reads, opens the library and syncs the new file. One process for the
# module's tests (starting Python with torch was most of their time), and one bi-encoder in it, loaded from the
# first config.toml (each names the same tiny encoder): a Library loads its own model each time it opens.
SYNC = ("import sys; from pathlib import Path; from searchapp.base.config import load_config; "
        "from searchapp.library import Library; from searchapp.models import BiEncoder\n"
        "encoder = None\n"
        "for line in sys.stdin:\n"
        "    config = load_config(Path(line.strip()), env={}); m = config.models\n"
        "    encoder = encoder or BiEncoder(m.bi_encoder, device=m.device, precision=m.precision, threads=m.threads)\n"
        "    with Library(config, encoder=encoder) as lib:\n"
        "        print(lib.sync().added, flush=True)")


@pytest.fixture(scope="module")
def other_process():
    proc = subprocess.Popen([sys.executable, "-c", SYNC], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    yield proc
    proc.stdin.close()
    assert proc.wait(timeout=300) == 0, proc.stderr.read()


def sync_in_another_process(proc: subprocess.Popen, data: Path) -> None:
    proc.stdin.write(f"{data}\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    assert line.strip() == "1", line + (proc.stderr.read() if proc.poll() is not None else "")


@pytest.fixture
def two_processes(tmp_path, tiny_bi_encoder_dir, tiny_encoder, other_process):
    # fp32 on one thread, as tiny_encoder: the other process embeds as this one does, with no pool spinning
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'precision = "fp32"\nthreads = 1\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    docs = tmp_path / "docs"
    yield lib, docs, lambda: sync_in_another_process(other_process, data)
    lib.close()


def test_similar_finds_a_file_another_process_synced_without_a_search_between(two_processes):
    lib, docs, sync_elsewhere = two_processes
    source = str(docs / "violin.txt")
    before = lib.similar(source, k=10)  # the vector index is read now, as it is
    assert {Path(h.path).name for h in before.hits} == {"tides.txt", "bread.txt"}
    (docs / "violin copy.txt").write_text(TEXTS["violin.txt"] + " Again.\n", encoding="utf-8")
    sync_elsewhere()
    after = lib.similar(source, k=10)
    # the copy is the source's near copy (one word added): said apart as the same document, not a similar row
    assert [Path(n.path).name for n in after.near_copies] == ["violin copy.txt"]
    assert {Path(h.path).name for h in after.hits} == {"tides.txt", "bread.txt"}


@pytest.mark.parametrize("read", ["duplicates", "ann_recall"])
def test_other_reads_see_the_index_as_the_database_has_it(two_processes, read):
    lib, docs, sync_elsewhere = two_processes
    getattr(lib, read)()  # the vector index is read now, as it is
    (docs / "violin copy.txt").write_text(TEXTS["violin.txt"] + " Again.\n", encoding="utf-8")
    sync_elsewhere()
    getattr(lib, read)()
    # what the read searched: the in-memory index, now holding the other process's passages too
    assert sorted(lib.vectors.index().ids().tolist()) == lib.reader().embedded_ids().tolist()


def test_this_processs_own_write_after_anothers_keeps_the_others_vectors(two_processes):
    """A tester's `watch` committed its own change right after a manual `index` in another process: its index
    was marked current after its write, so the other's vectors were never followed (its served searches missed
    them, `status --check` said not consistent) until a restart. Taking the writer lock follows the others first."""
    lib, docs, sync_elsewhere = two_processes
    lib.search("violin", mode="dense")  # the vector index is read now, as it is
    (docs / "violin copy.txt").write_text(TEXTS["violin.txt"] + " Again.\n", encoding="utf-8")
    sync_elsewhere()  # committed by the other process; no read here since
    (docs / "harbour.txt").write_text("Fishing boats wait in the harbour for the evening tide.\n", encoding="utf-8")
    lib.sync()  # this process's own write, then its index marked current
    assert sorted(lib.vectors.index().ids().tolist()) == lib.reader().embedded_ids().tolist()
    hits = lib.search("violin maker carving spruce", mode="dense", k=10).hits
    # the copy, a near copy of violin.txt, shares its row (decision 0198): found, as a row or folded under one
    assert "violin copy.txt" in {Path(p).name for h in hits for p in (h.path, *(c.path for c in h.near_copies))}
