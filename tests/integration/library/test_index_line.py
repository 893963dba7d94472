"""`searchapp index`'s summary line says what the sync did: how the passages it wrote got their vectors."""

from __future__ import annotations

from pathlib import Path

from notes_folder import cli, make_notes


def test_index_says_the_passages_it_embedded_were_left_waiting_by_earlier_syncs(tiny_cli, tmp_path, capsys):
    """A newcomer's `index home/Notes` printed "0 passages written (2314 embedded)" for 37 s: the meaning pass
    embeds every passage waiting, and the line said nothing of why."""
    data = str(tmp_path / "lib")
    assert cli(capsys, "--data-dir", data, "index", "--words-only", str(make_notes(tmp_path / "notes")))[0] == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "kayak.txt").write_text("The kayak club meets at the boathouse.", encoding="utf-8")
    code, out, _ = cli(capsys, "--data-dir", data, "index", str(other))
    assert code == 0 and "1 passage written (4 embedded: at least 3 of them had waited for their meaning since an earlier sync)" in out, out
    # after --words-only, the next index writes nothing and embeds what waited: each had, not "at least" all
    more = tmp_path / "more"
    more.mkdir()
    (more / "canoe.txt").write_text("Canoe lessons start at the lake in June.", encoding="utf-8")
    # a copy waits too, and takes the one vector of its text: "1258 embedded" after 1,288 were said to wait left
    # the 30 copies unsaid (a newcomer)
    (more / "canoe (2).txt").write_text("Canoe lessons start at the lake in June.", encoding="utf-8")
    assert cli(capsys, "--data-dir", data, "index", "--words-only", str(more))[0] == 0
    code, out, _ = cli(capsys, "--data-dir", data, "index")
    assert code == 0 and ("0 passages written (1 embedded, 1 reused from a copy of its text: each had waited for its "
                          "meaning since an earlier sync)") in out, out


class _StopsAfterABatch:
    """The command's progress, as a person watching it: Ctrl+C once the first batch of meaning is embedded."""

    def __init__(self, cancel) -> None:
        self.cancel = cancel

    def __call__(self, p) -> None:
        if p.stage == "embedding" and p.done > 0:
            self.cancel.cancel()

    def close(self) -> None:
        pass


def test_an_index_stopped_while_embedding_says_what_it_kept_and_the_next_goes_on(tiny_cli, tmp_path, capsys,
                                                                                  monkeypatch):
    """After Ctrl+C in `searchapp index` a newcomer read "cancelled; nothing half-written was kept", as if all was
    lost, where status showed 89% embedded and the next index embedded only the rest. The line says what was
    kept, in the library's own figures, and the next index embeds just the passages the line left."""
    import re

    from searchapp.base.config import load_config
    from searchapp.base.progress import CancelToken
    from searchapp.cli.commands.index import cmd_index
    from searchapp.cli.parser import parse_command_line
    from searchapp.library.sync import words_pass

    monkeypatch.setattr(words_pass, "BATCH_CHUNKS", 2)  # meaning in batches of two: a stop between two of them
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(8):
        (notes / f"n{i}.txt").write_text(f"Note {i} on the harbour tides and the kayak club.", encoding="utf-8")
    data = tmp_path / "lib"
    args = parse_command_line(["--data-dir", str(data), "index", str(notes)])
    cancel = CancelToken()
    assert cmd_index(args, load_config(data), _StopsAfterABatch(cancel), cancel) == 130
    err = capsys.readouterr().err.strip()
    said = re.fullmatch(r"searchapp: stopped: 8 files added or updated before the stop are kept; (\d+) of the library's "
                        r"8 passages embedded, the rest searchable by their words; `searchapp index` goes on from there",
                        err)
    assert said is not None, err
    code, out, _ = cli(capsys, "--data-dir", str(data), "index")
    assert code == 0 and f"({8 - int(said.group(1))} embedded" in out, out


def test_an_index_stopped_while_a_group_of_files_is_read_keeps_those_read_and_says_so(tiny_cli, tmp_path, capsys,
                                                                                      monkeypatch):
    """A newcomer's Ctrl+C while 55 PDFs were read as one group (read_groups.py): the bar stood on "1/55" naming the
    first file, the cancel inside the fifth PDF's extraction dropped the whole group, and the line said "what was
    finished is kept (7,096 of 7096 passages embedded)" while the folder held 0 files. Now each file is told as the
    group reads it, those read before the stop are written, and the line says how many."""
    import sqlite3

    from searchapp.base.config import load_config
    from searchapp.base.progress import CancelToken
    from searchapp.cli.commands.index import cmd_index
    from searchapp.cli.parser import parse_command_line
    from searchapp.ingest import extractors

    monkeypatch.delenv("SEARCHAPP_NO_READ_AHEAD", raising=False)
    notes = tmp_path / "notes"
    notes.mkdir()
    for i in range(8):  # read_groups.MIN_GROUPED: one group of eight, in this process
        (notes / f"n{i}.txt").write_text(f"Note {i} on the harbour tides and the kayak club.", encoding="utf-8")
    stop, told = CancelToken(), []
    real = extractors.extract

    def extract(path, *a, cancel=None, **kw):  # Ctrl+C as n2 is read, stopping its extraction (as a PDF's does)
        if path.name == "n2.txt":
            stop.cancel()
            cancel.check()
        return real(path, *a, cancel=cancel, **kw)

    monkeypatch.setattr(extractors, "extract", extract)

    def progress(p):
        if p.stage == "extracting":
            told.append((p.done, p.message.rsplit("/", 1)[-1]))

    progress.close = lambda: None
    data = tmp_path / "lib"
    args = parse_command_line(["--data-dir", str(data), "index", "--words-only", str(notes)])
    assert cmd_index(args, load_config(data), progress, stop) == 130
    err = capsys.readouterr().err
    assert "stopped: 2 files added or updated before the stop are kept;" in err, err
    with sqlite3.connect(data / "library.sqlite") as db:
        kept = sorted(Path(p).name for (p,) in db.execute("select path from files"))
    assert kept == ["n0.txt", "n1.txt"]
    assert told[:3] == [(1, "n0.txt"), (2, "n1.txt"), (3, "n2.txt")]  # told as the group read each, not "1/8" throughout
