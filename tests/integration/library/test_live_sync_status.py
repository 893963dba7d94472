"""`searchapp status` while another process is syncing: the vector index file lags the database until that
sync saves it at its end, which is not an interrupted sync. With the writer lock held by a live process, status
says a sync is running (and saves nothing); with no live writer the same lag is still repaired and said."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

from conftest import build_tiny_library

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}
HOLD = ("import sys; from pathlib import Path; from searchapp.library.resources.lock import writer_lock\n"
        "with writer_lock(Path(sys.argv[1])):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n")


def status_text(data: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "status"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def test_status_during_a_live_sync_says_a_sync_is_running_not_an_interrupted_one(tmp_path, tiny_bi_encoder_dir,
                                                                                   tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    saved = {p: p.read_bytes() for p in data.glob("vectors.*")}  # the index file as the sync under way left it
    assert saved
    (tmp_path / "docs" / "bread.txt").write_text("Sourdough needs a lively starter and a hot oven.\n", encoding="utf-8")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        assert lib.sync().added == 1  # batches committed to the database, as a live sync's are
    for p in data.glob("vectors.*"):
        p.unlink()
    for p, content in saved.items():
        p.write_bytes(content)

    writer = subprocess.Popen([sys.executable, "-c", HOLD, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    window = Library(load_config(data, env={}), encoder=tiny_encoder)  # as a window open meanwhile
    try:
        assert writer.stdout.readline().strip() == "held"
        said = status_text(data)
        assert f"a sync is running (process {writer.pid})" in said, said
        assert "interrupted" not in said and "repaired" not in said
        assert {p: p.read_bytes() for p in data.glob("vectors.*")} == saved  # status saved nothing over it
        assert any("a sync is running" in n for n in window.status().notes)
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
    assert not any("a sync is running" in n for n in window.status().notes)  # it ended: not said any more
    window.close()

    said = status_text(data)  # no live writer: the lag is an interrupted sync's, repaired
    assert "an interrupted sync" in said and "repaired: 1 added" in said and "a sync is running" not in said


def test_a_status_this_process_answers_while_it_writes_names_it_and_who_embeds(tmp_path, tiny_bi_encoder_dir,
                                                                               tiny_encoder):
    """A tester's `searchapp watch` answered `status` while it embedded: "writer": null, and the note told them to
    run `searchapp index`, which then only waited behind the watch. The process writing now, this one too, is
    named, and the note says a watch or the window embeds them as it goes."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    (tmp_path / "docs" / "bread.txt").write_text("Sourdough needs a lively starter and a hot oven.\n", encoding="utf-8")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        assert lib.sync(embed=False).added == 1  # its passage waits for meaning
        idle = lib.status()
        assert idle.writer is None and any("`searchapp index` embeds the rest" in n for n in idle.notes), idle.notes
        with lib._writing("indexing"):  # as the watch's sync holds it while a served status is answered
            busy = lib.status()
        assert busy.writer is not None and busy.writer.startswith(f"process {__import__('os').getpid()}")
        assert any(f"{busy.writer} is writing the library now: a watch or the window embeds them" in n
                   for n in busy.notes), busy.notes


def test_a_search_while_another_process_writes_says_who_embeds_as_status_does(tmp_path, tiny_bi_encoder_dir,
                                                                              tiny_encoder):
    """A newcomer's `searchapp search` said "meaning: 0% of passages; … (`searchapp index` finishes it)" while the
    window wrote the library, and `status` beside it said the window embeds them as it goes: `searchapp index`
    would only have waited behind it. The search's note now names the writer as status does."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    (tmp_path / "docs" / "bread.txt").write_text("Sourdough needs a lively starter and a hot oven.\n", encoding="utf-8")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        assert lib.sync(embed=False).added == 1  # its passage waits for meaning
    said, note = _said_while(data, False)  # a process that is no searchapp command: nothing known of what it does
    embeds = "is writing the library now: a watch or the window embeds them as it goes, else `searchapp index`"
    assert "process " in said and embeds in said
    assert "(process " in note and embeds in note and "finishes it" not in note, note


EMBEDDER = ("import sys; from pathlib import Path; from searchapp.library.resources.lock import writer_lock\n"
            "data, yields = Path(sys.argv[1]), sys.argv[2] == 'yields'\n"
            "sys.argv = sys.argv[3:]  # the command line its lock file names, as a `searchapp index` writes it\n"
            "with writer_lock(data) as turn:\n"
            "    turn.say(yields)  # what the meaning pass's Handover says while it embeds\n"
            "    print('held', flush=True)\n"
            "    sys.stdin.read()\n")


def _cli(*args: str) -> tuple[int, str, str]:
    """`searchapp ARGS` in this process: (exit code, stdout, stderr). The writer is another process all the same,
    and each command started as a process of its own cost ~1.5 CPU-s of start-up on a slow CPU (suite time)."""
    from searchapp.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _said_while(data: Path, yields: bool, *argv: str) -> tuple[str, str]:
    """What `status` and a search (words and meaning) say while a process runs as `argv` writes the library, its lock saying
    it is in its meaning pass (`yields`) or not: (status's output, the search's meaning note)."""
    writer = subprocess.Popen([sys.executable, "-c", EMBEDDER, str(data), "yields" if yields else "words", *argv],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "held"
        code, out, searched = _cli("--data-dir", str(data), "search", "--direct", "--mode", "hybrid",
                                   "sourdough starter")
        assert code == 0, out + searched
        code, out, err = _cli("--data-dir", str(data), "status")
        assert code == 0, out + err
        said = out + err
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
    return said, next(line for line in searched.splitlines() if "meaning:" in line)


def test_while_an_index_embeds_status_and_search_say_it_embeds_them_not_to_run_index(tmp_path, tiny_bi_encoder_dir,
                                                                                      tiny_encoder):
    """A newcomer's second command, while `searchapp index` embedded, said "process 3955 (searchapp index …) is
    writing the library now: a watch or the window embeds them as it goes, else `searchapp index`": it told them
    to run the very command that was embedding. A writer in its meaning pass is said to embed them now; an index in
    its words pass, to embed them next; a words-only index, as before, leaves them to a watch, the window or index."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    (tmp_path / "docs" / "bread.txt").write_text("Sourdough needs a lively starter and a hot oven.\n", encoding="utf-8")
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        assert lib.sync(embed=False).added == 1  # its passage waits for meaning
    index = ("searchapp", "--data-dir", str(data), "index", str(tmp_path / "docs"))

    said, note = _said_while(data, True, *index)
    assert f"(searchapp --data-dir {data} index {tmp_path / 'docs'}) is embedding them now)" in said, said
    assert "else `searchapp index`" not in said and "else `searchapp index`" not in note, note
    assert note.endswith("is embedding them now: `searchapp status` shows how far)"), note

    said, note = _said_while(data, False, *index)
    assert "is writing the library now and embeds them next)" in said and "else `searchapp index`" not in said, said
    said, note = _said_while(data, False, "searchapp", "index", "--words-only", str(tmp_path / "docs"))
    assert "a watch or the window embeds them as it goes, else `searchapp index`" in said, said


def test_the_windows_status_does_not_wait_for_the_index_a_sync_of_this_process_makes(tmp_path, tiny_bi_encoder_dir,
                                                                                     tiny_encoder):
    """A first sync holds the library's lock from before it makes the vector index until its end: the window's
    status read (wait_for_meaning=False) waited for that lock to open the index, and its counts stood at "0 so far"
    through the whole words pass (the window newcomer's screenshots). It answers now, the vector figures not known."""
    import threading

    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    for p in data.glob("vectors.*"):
        p.unlink()  # the index to be made, as at a first sync
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    held, done = threading.Event(), threading.Event()

    def sync_holding_the_lock():
        with lib._lock:
            held.set()
            done.wait(300)

    syncing = threading.Thread(target=sync_holding_the_lock)
    syncing.start()
    answers = []
    try:
        assert held.wait(60)
        reader = threading.Thread(target=lambda: answers.append(lib.status(wait_for_meaning=False)))
        reader.start()
        reader.join(120)  # a bound for a failing test: the lock is held for 300 s
        assert answers, "status waited for the sync's lock"
        assert answers[0].files == {"indexed": 2} and answers[0].index_opening  # counts now, vectors once open
    finally:
        done.set()
        syncing.join()
    assert lib.status(wait_for_meaning=False).vectors == 2  # the sync ended: the index opens, as before
    lib.close()
