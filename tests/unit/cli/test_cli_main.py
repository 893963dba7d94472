"""`searchapp` in-process without a model: an error is one line and an exit code (cli/main.py), nothing is created
by a read, and the terminal progress speaks only on a terminal (cli/progress.py)."""

from __future__ import annotations

import os

import pytest

from searchapp import __version__
from searchapp.base.progress import Progress
from searchapp.cli.main import main
from searchapp.cli.progress import TerminalProgress


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir(mode=0o700)
    return d


def test_a_bad_option_is_one_line_and_exit_2_before_anything_is_opened(data_dir, capsys):
    assert main(["search", "tax", "--k", "0", "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert err == "searchapp: error: --k must be a whole number from 1 to 10000 (got 0)\n"
    assert main(["watch", "--debounce", "-1", "--data-dir", str(data_dir)]) == 2
    assert "--debounce must be a number of seconds" in capsys.readouterr().err
    assert os.listdir(data_dir) == []


@pytest.mark.parametrize("argv", [["index", "--words-only", "a", ""], ["remove", " ", "--yes"], ["explain", ""],
                                  ["similar", ""], ["search", "tax", "--in", ""]])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(data_dir, tmp_path, capsys, monkeypatch, argv):
    """`index "$DIR"` with DIR unset indexed the folder the command ran in and merged the roots below it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "note.txt").write_text("an ordinary note")
    assert main([*argv, "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert "is empty (an unset variable?)" in err and err.count("\n") == 1
    assert os.listdir(data_dir) == []  # nothing was opened, let alone indexed


@pytest.mark.parametrize("argv", [["search", "tax"], ["status"], ["saved", "list"]])
def test_a_read_without_a_library_says_how_to_make_one_and_creates_nothing(data_dir, capsys, argv):
    assert main([*argv, "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"searchapp: error: no library at {data_dir}") and "searchapp index" in err
    assert err.count("\n") == 1 and os.listdir(data_dir) == []


def test_a_damaged_library_is_exit_3_with_how_to_recover(data_dir, capsys):
    (data_dir / "library.sqlite").write_bytes(b"garbage " * 1000)
    assert main(["status", "--data-dir", str(data_dir)]) == 3
    err = capsys.readouterr().err
    assert "is damaged" in err and "mv " in err and "searchapp index FOLDER" in err and err.count("\n") == 1


def test_version_and_an_unknown_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"searchapp {__version__}"
    with pytest.raises(SystemExit) as done:
        main(["frobnicate"])
    assert done.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_progress_is_silent_off_a_terminal(capsys):
    quiet = TerminalProgress(enabled=False)
    for stage in ("scanning", "extracting", "searchable", "embedding"):
        quiet(Progress(stage, 1, 2, "m"))
    quiet.close()
    assert capsys.readouterr() == ("", "")


def test_progress_says_when_files_are_searchable_by_their_words(capsys):
    bar = TerminalProgress(enabled=True)
    bar(Progress("extracting", 1, 3))
    bar(Progress("searchable", 3, 3, "3 files searchable by their words"))
    bar(Progress("embedding", 5, 10, "meaning: 50% of passages"))
    bar.close()
    err = capsys.readouterr().err
    assert ("searchapp: 3 files searchable by their words; embedding their meaning now (Ctrl-C keeps what is done)"
            in err)
    assert "embedding" in err and bar._bar is None  # closed: nothing left drawing


def test_a_config_file_named_but_not_there_is_an_error_not_the_defaults(data_dir, tmp_path, capsys):
    missing = tmp_path / "setings.toml"  # a typo
    assert main(["status", "--config", str(missing), "--data-dir", str(data_dir)]) == 2
    err = capsys.readouterr().err
    assert err == f"searchapp: error: {missing}: no such config file\n"
    good = tmp_path / "settings.toml"
    good.write_text("[search]\nk = 7\n")
    assert main(["config", "--config", str(good), "--data-dir", str(data_dir)]) == 0
    assert "7" in capsys.readouterr().out


def test_status_of_a_library_with_no_passages_says_nothing_is_searchable_yet(data_dir, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["index", "--words-only", str(empty), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    assert main(["status", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert "searchable: nothing yet (no passages)" in out and "100%" not in out, out


def test_status_names_a_member_not_indexed_as_search_shows_it(data_dir, tmp_path, capsys):
    import zipfile

    folder = tmp_path / "docs"
    folder.mkdir()
    with zipfile.ZipFile(folder / "a.zip", "w") as z:
        z.writestr("notes/ok.txt", "A readable note about lanterns.")
        z.writestr("notes/broken.pdf", b"%PDF-1.4 not really a pdf")
    assert main(["index", "--words-only", str(folder), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    assert main(["status", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert f"{folder / 'a.zip'} › notes/broken.pdf:" in out and "//" not in out, out


def test_the_not_indexed_count_is_of_entries_as_the_states_count_them(data_dir, tmp_path, capsys):
    """The window's button said 29 and the sync 37 for the same library: a grouped row ("3 of its members: …") is
    now counted as its members everywhere."""
    import zipfile

    folder = tmp_path / "docs"
    folder.mkdir()
    with zipfile.ZipFile(folder / "a.zip", "w") as z:
        for i in range(3):
            z.writestr(f"broken{i}.pdf", b"%PDF-1.4 not really a pdf")
    assert main(["index", "--words-only", str(folder), "--data-dir", str(data_dir)]) == 0
    capsys.readouterr()
    assert main(["status", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert "not indexed: 3 items in archives and mail in 1 row:" in out and "3 of its members:" in out, out


def test_a_command_stopped_does_not_wait_for_the_model_still_loading(monkeypatch):
    """The interpreter's exit waited for the load ahead (a thread that is no daemon: torch aborts an exit that does
    not wait for it): a command a stop ended while the model loaded ends the process without it (decision 0203)."""
    import threading

    from searchapp.cli import abort, main as cli_main
    from searchapp.library.resources.model_set import LOAD_THREAD

    assert abort._LOAD_THREAD == LOAD_THREAD  # one name for the thread
    ended: list[int] = []
    monkeypatch.setattr(abort.os, "_exit", ended.append)
    assert abort.leave_unwaited(130) == 130 and ended == []  # nothing loading: the exit is Python's, as ever
    release = threading.Event()
    loading = threading.Thread(target=release.wait, name=LOAD_THREAD)
    loading.start()
    from searchapp.library.members.private_copy import private_open_dir

    opened = private_open_dir() / "attachment.pdf"  # a member the window opened: os._exit runs no atexit function
    opened.write_bytes(b"%PDF-1.4")
    try:
        abort.leave_unwaited(130)
        assert not opened.exists()
        monkeypatch.setattr(cli_main, "_main", lambda argv, ask_warm: cli_main._SIGNALLED.set() or 130)
        cli_main.main(["index"])
        assert ended == [130, 130]  # after a stop signal, main ends the process so
        monkeypatch.setattr(cli_main, "_main", lambda argv, ask_warm: 1)
        assert cli_main.main(["index"]) == 1 and ended == [130, 130]  # no signal: returned, whatever loads
    finally:
        release.set()
        loading.join()
