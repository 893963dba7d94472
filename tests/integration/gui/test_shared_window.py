"""The window on a shared library (`searchapp --library postgresql://… gui`, decision 0141), offscreen, against
the real PostgreSQL of tests/pg_server.py: it lists this machine's folders, indexes a drop, searches every
machine's files, follows another machine's sync by the library's write generation, removes and puts back a
folder, and never writes an address given for this window into the config file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

from gui_window import WAIT_MS, close_window, search as search_in, shown_window

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day.",
         "bread.txt": "Sourdough needs a lively starter, a long cold proof and a very hot oven."}


def folder(path: Path, texts: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in texts.items():
        (path / name).write_text(text + "\n", encoding="utf-8")
    return path


@pytest.fixture
def shared(tmp_path, tiny_bi_encoder_dir, pg_address):
    """(config of desk A with the address, the address): a data dir whose config.toml names the tiny model only."""
    from searchapp.base.config import load_config

    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")
    # As `searchapp --library ADDRESS gui` gives it (cli/commands/shared.run_shared): in the config, not the file.
    config = load_config(data, env={}).replace(library={"address": pg_address})
    return config, pg_address


@pytest.fixture
def win(qtbot, tmp_path, shared, tiny_encoder):
    from searchapp.library.shared import SharedLibrary

    config, address = shared
    lib = SharedLibrary(config, address, create=True, encoder=tiny_encoder, machine="desk-a")
    lib.add_folder(folder(tmp_path / "docs", TEXTS))
    w = shown_window(qtbot, config, lib)
    w.docs, w.address = tmp_path / "docs", address
    w.other_writers.timer.setInterval(200)  # the same checks as every 2 s, sooner
    yield w
    close_window(w, lib)


def shown_names(win) -> set[str]:
    from searchapp.gui.results_model import HIT_ROLE

    model = win.search.results_model
    return {Path(model.index(r, 0).data(HIT_ROLE).path).name for r in range(model.rowCount())}


def search(qtbot, win, query: str, mode: str = "lexical"):
    return search_in(qtbot, win, query, mode)


def test_the_window_lists_searches_and_indexes_a_drop_in_the_shared_library(qtbot, win, tmp_path):
    assert [r.path for r in win.status.roots] == [str(win.docs)]
    assert win.labels.index.text() == "Library: 3 passages in 3 files" and win.status.consistent
    assert win.status.embedded == win.status.chunks == win.status.vectors == 3
    assert win.status.notes == []  # no false "embedded without their file's title" (the sync records it)
    assert [h.path for h in search(qtbot, win, "spruce varnished").hits] == [str(win.docs / "violin.txt")]
    assert shown_names(win) == {"violin.txt"}
    assert search(qtbot, win, "moon harbour", "hybrid").hits[0].path == str(win.docs / "tides.txt")

    drop = folder(tmp_path / "drop", {"kiln.txt": "The potter fired the kiln overnight for the glaze."})
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(drop)])
    assert sorted(r.path for r in win.status.roots) == sorted([str(win.docs), str(drop)])
    assert win.labels.index.text() == "Library: 4 passages in 4 files" and win.last_dialog is None
    # In the server, not in a local file: another desktop's library sees the drop.
    from searchapp.library.shared import SharedLibrary

    with SharedLibrary(win.config, win.address, machine="desk-b") as other:
        assert other.summary().files == 4
        assert [h.path for h in other.search("potter glaze", mode="lexical").hits] == [str(drop / "kiln.txt")]
    assert not (Path(win.config.data_dir) / "library.sqlite").exists()
    os.makedirs(tmp_path / "shots", exist_ok=True)
    win.resize(1280, 800)
    assert win.grab().save(str(tmp_path / "shots" / "shared_window.png"))


def test_searches_during_the_windows_own_sync_answer_from_what_is_committed(qtbot, win, tmp_path):
    # One connection serves the window's threads, a statement or a transaction at a time (PgStore._lock): a
    # search typed mid-sync waits at most for the batch being committed, and never runs inside it.
    many = folder(tmp_path / "many", {f"note{i:03d}.txt": f"Note {i}: the committee discussed river budgets."
                                      for i in range(600)})
    answers, during = [], 0
    win.add_paths([str(many)])
    qtbot.waitUntil(lambda: (job := win.writes.active_write()) is not None and job.running, timeout=WAIT_MS)
    while win.runner.busy_writing():  # search after search while the sync runs (a few ms each; it takes seconds)
        answers.append(search(qtbot, win, "violin spruce").hits)
        job = win.writes.active_write()
        during += job is not None and job.running
    qtbot.waitUntil(lambda: win.status.files.get("indexed") == 603, timeout=WAIT_MS)
    assert during >= 1  # at least one answer came while the sync was writing
    assert all([h.path for h in hits] == [str(win.docs / "violin.txt")] for hits in answers)
    assert win.last_dialog is None
    hits = search(qtbot, win, "committee river").hits
    assert len(hits) >= 10 and {Path(h.path).parent for h in hits} == {many}


def test_adding_a_folder_another_machine_indexes_asks_and_indexes_it_here_too(qtbot, win, tmp_path, tiny_encoder):
    """The window's Add of a folder desk-b indexes already, the very files at the same path (decision 0173), said
    "`searchapp index --also …`" in an error dialog: a command a person in the window cannot type there. It asks
    instead: Cancel adds nothing; "Index here too" indexes it as this machine's, as `index --also` does."""
    from searchapp.library.shared import SharedLibrary

    team = folder(tmp_path / "team", {"minutes.txt": "The team minutes: the boiler is serviced in March.",
                                      "rota.txt": "Rota: Ann on Mondays, Bea on Tuesdays, Cal on Fridays.",
                                      "budget.txt": "Budget: 400 for paint, 120 for brushes."})
    with SharedLibrary(win.config, win.address, encoder=tiny_encoder, machine="desk-b") as other:
        other.add_folder(team)
    qtbot.waitUntil(lambda: [m for m, _ in win.status.elsewhere] == ["desk-b"], timeout=WAIT_MS)
    for answer in ("cancel", "index"):
        win.last_dialog = None
        win.add_paths([str(team)])
        qtbot.waitUntil(lambda: win.last_dialog is not None, timeout=WAIT_MS)
        box = win.last_dialog
        assert box.objectName() == "heldElsewherePrompt", box.text()
        assert box.text().startswith(f"desk-b indexes {team} already: 3 of the 3 of its files looked at are the very "
                                     "files here") and "--also" not in box.text(), box.text()
        qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
        assert [r.path for r in win.status.roots] == [str(win.docs)]  # nothing of it written yet
        button = box.button(QMessageBox.StandardButton.Cancel if answer == "cancel" else QMessageBox.StandardButton.Yes)
        if answer == "index":
            assert button.text() == "Index here too"
            with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
                button.click()
        else:
            button.click()
    # The roots are listed as soon as the folder is added, its files' counts as they are committed: a busy machine
    # read the status between the two (6: docs, and team as desk-b's); what the write ends with is 9.
    qtbot.waitUntil(lambda: sorted(r.path for r in win.status.roots) == sorted([str(win.docs), str(team)])
                    and win.status.files.get("indexed") == 9, timeout=WAIT_MS)  # docs, and team as each machine's
    assert win.last_dialog is box


def test_another_machines_sync_shows_without_a_click(qtbot, win, tmp_path, tiny_encoder):
    from searchapp.library.shared import SharedLibrary

    assert search(qtbot, win, "lighthouse").hits == []
    seen = win.other_writers.noticed
    with SharedLibrary(win.config, win.address, encoder=tiny_encoder, machine="desk-b") as other:
        other.add_folder(folder(tmp_path / "harbour", {"pier.txt": "A lighthouse stands at the end of the pier."}))
    # Nothing local changed: only the library's generation tells the window.
    qtbot.waitUntil(lambda: shown_names(win) == {"pier.txt"}, timeout=WAIT_MS)
    assert win.other_writers.noticed > seen and win.other_writers.lost is None
    harbour = str(tmp_path / "harbour")
    qtbot.waitUntil(lambda: [(m, r.path) for m, r in win.status.elsewhere] == [("desk-b", harbour)], timeout=WAIT_MS)
    # desk-b's folder is desk-b's to sync and remove: listed grey, never selectable, so no Remove reaches it.
    assert [r.path for r in win.status.roots] == [str(win.docs)]
    tree = win.library_panel.tree
    rows = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}
    theirs = rows[f"desk-b: {harbour}"]
    assert not theirs.flags() & Qt.ItemFlag.ItemIsSelectable and theirs.text(1) == "1"
    # its own name first, whose it is after where it is: "desk-b: harb…" was all a narrow pane showed
    from searchapp.gui.name_first import NAME_FIRST_ROLE
    from searchapp.gui.results_view import short_folder

    assert theirs.data(0, NAME_FIRST_ROLE) == ("harbour", f"{short_folder(str(tmp_path))} (desk-b's)", "")
    tree.selectAll()
    assert win.library_panel.selected_roots() == [str(win.docs)]
    assert win.library_panel.title.full_text().startswith("Shared library · postgresql://")
    win.resize(1280, 800)
    assert win.grab().save(str(tmp_path / "shared_window_two_machines.png"))


def test_a_lost_connection_is_said_once_and_the_window_follows_again(qtbot, win, pg_server, tiny_encoder,
                                                                      tmp_path):
    from urllib.parse import urlsplit

    from searchapp.library.shared import SharedLibrary

    said = []
    win.statusBar().messageChanged.connect(said.append)
    db = urlsplit(win.address).path.lstrip("/")
    qtbot.waitUntil(lambda: not [j for j in win.runner.jobs if not j.finished], timeout=WAIT_MS)  # start-up read
    # The server ends this window's session and takes no new one for a while (a restart, a network cut): every
    # read fails, the poll's among them, on the read pool, until it takes connections again.
    pg_server.admin(f'ALTER DATABASE "{db}" ALLOW_CONNECTIONS false')
    pg_server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                    "AND application_name = 'searchapp'", params=(db,))
    qtbot.waitUntil(lambda: win.other_writers.lost is not None, timeout=WAIT_MS)
    qtbot.wait(1000)  # a few more polls fail meanwhile
    assert [m for m in said if m.startswith("Cannot follow the other machines' changes now")][:1] and win.last_dialog is None
    pg_server.admin(f'ALTER DATABASE "{db}" ALLOW_CONNECTIONS true')
    qtbot.waitUntil(lambda: win.other_writers.lost is None, timeout=WAIT_MS)  # the next read connected again
    assert search(qtbot, win, "lighthouse").hits == []
    seen = win.other_writers.noticed
    with SharedLibrary(win.config, win.address, encoder=tiny_encoder, machine="desk-b") as other:
        other.add_folder(folder(tmp_path / "harbour", {"pier.txt": "A lighthouse stands at the end of the pier."}))
    qtbot.waitUntil(lambda: shown_names(win) == {"pier.txt"}, timeout=WAIT_MS)  # followed again, by itself
    assert win.other_writers.noticed > seen
    assert len([m for m in said if m.startswith("Cannot follow")]) == 1


def test_a_desk_without_folders_lists_only_its_own_problems_and_no_welcome(qtbot, shared, tiny_encoder, tmp_path):
    """desk-b filled the library, with files it could not index; desk-a joins with no folder of its own."""
    from searchapp.library.shared import SharedLibrary

    config, address = shared
    with SharedLibrary(config, address, create=True, encoder=tiny_encoder, machine="desk-b") as b:
        docs = folder(tmp_path / "theirs", TEXTS)
        (docs / "blank.html").write_text("<html><body> </body></html>")  # no text found
        b.add_folder(docs)
        assert [Path(p).name for p, _, _ in b.status().not_indexed] == ["blank.html"]  # theirs to mend
    lib = SharedLibrary(config, address, encoder=tiny_encoder, machine="desk-a")
    win = shown_window(qtbot, config, lib)
    try:
        assert win.status.roots == [] and [m for m, _ in win.status.elsewhere] == ["desk-b"]
        assert win.status.not_indexed == [] and win.status.failed == []
        assert not win.library_panel.problems_button.isVisible()  # "Not indexed: 0" says nothing
        # "nothing indexed yet" would be false: desk-b's files are searchable
        assert win.search.empty.start is None and "Nothing is indexed" not in win.search.empty.label.text()
        assert shown_names(win) == set() and search(qtbot, win, "spruce").hits
    finally:
        close_window(win, lib)


def test_an_undo_too_late_is_a_line_not_a_dialog(qtbot, win, pg_server):
    from urllib.parse import urlsplit

    said = []
    win.statusBar().messageChanged.connect(said.append)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.remove_root(str(win.docs))
    db = urlsplit(win.address).path.lstrip("/")
    # The server stamped the removal when its transaction began: a long Remove leaves less than the window's
    # minute. Here the stamp is simply made older than a minute.
    pg_server.admin("UPDATE removed_roots SET removed_at = removed_at - 120", database=db)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.writes.undo.undo()
    assert win.last_dialog is None and win.status.roots == []
    assert any(m.startswith("Too late to undo the remove of") for m in said), said


def test_a_remove_is_put_back_by_undo(qtbot, win):
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.remove_root(str(win.docs))
    assert win.status.roots == [] and win.writes.undo.button.isVisible()
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.writes.undo.undo()
    assert [r.path for r in win.status.roots] == [str(win.docs)] and win.status.chunks == 3
    assert win.last_dialog is None


def test_the_expired_undo_drops_what_the_server_kept(qtbot, win, pg_server):
    from urllib.parse import urlsplit

    db = urlsplit(win.address).path.lstrip("/")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.remove_root(str(win.docs))
    assert pg_server.admin("SELECT count(*) FROM removed_roots", database=db) == [(1,)]
    win.writes.undo.expire()
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert pg_server.admin("SELECT count(*) FROM removed_roots", database=db) == [(0,)]
    assert pg_server.admin("SELECT count(*) FROM removed_files", database=db) == [(0,)]


def test_the_command_opens_the_window_on_the_shared_library(shared):
    # The real command in a process of its own (the window's event loop would never end here): the packaged-build
    # check's smoke mode shows the window and quits.
    import subprocess
    import sys

    config, address = shared
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SEARCHAPP_SMOKE_TEST": "1", "SEARCHAPP_MACHINE": "desk-a"}
    out = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(config.data_dir), "--library", address,
                          "gui"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "window shown: True mainWindow" in out.stdout, out.stderr
    assert not (Path(config.data_dir) / "library.sqlite").exists()  # the server's library, not the data dir's


def test_the_window_opens_the_address_and_saving_settings_keeps_it_out_of_the_file(qtbot, shared):
    from searchapp.gui import build_main_window
    from searchapp.library.shared import SharedLibrary

    config, address = shared
    win = build_main_window(config)  # as `searchapp --library ADDRESS gui` does: the window opens it
    qtbot.addWidget(win)
    try:
        assert isinstance(win.library, SharedLibrary) and win.library.address == address
        assert "postgresql://" in win.windowTitle()
        assert win.session.apply_config(config.replace(search={"k": 7}))
        assert isinstance(win.library, SharedLibrary)  # reopened on the server, under the new settings
        saved = (Path(config.data_dir) / "config.toml").read_text(encoding="utf-8")
        assert "k = 7" in saved and "address" not in saved and address not in saved
        # A model or chunking change is refused at once, nothing saved: the library keeps one for every machine.
        before = (Path(config.data_dir) / "config.toml").read_text(encoding="utf-8")
        assert not win.session.apply_config(win.config.replace(chunking={"max_tokens": 64}))
        assert "one model and chunking for every machine" in win.last_dialog.text()
        win.last_dialog.close()
        win.last_dialog = None
        assert (Path(config.data_dir) / "config.toml").read_text(encoding="utf-8") == before
        # An address the file itself holds stays in it.
        file = Path(config.data_dir) / "config.toml"
        file.write_text(saved + f'\n[library]\naddress = "{address}"\n', encoding="utf-8")
        assert win.session.apply_config(win.config.replace(search={"k": 8}))
        assert f'address = "{address}"' in file.read_text(encoding="utf-8")
        # A broken file is replaced by the save, as on a desktop library, never an exception out of the slot.
        file.write_text("[search\nk = ", encoding="utf-8")
        assert win.session.apply_config(win.config.replace(search={"k": 9}))
        text = file.read_text(encoding="utf-8")
        assert "k = 9" in text and address not in text and win.last_dialog is None
    finally:
        win.close()
        win.session.close()


def test_the_file_menu_opens_a_shared_library_and_goes_back(qtbot, shared, tiny_encoder, tmp_path, pg_server):
    """File → Open Shared Library… (issue 44 item 1: the same as --library and the config): the address checked as
    the command line checks it, the library opened off the GUI thread and kept in the config file for the next
    start; one that cannot be opened leaves the library in use; Use This Computer's Library goes back."""
    from searchapp.gui import build_main_window
    from searchapp.library import Library
    from searchapp.library.shared import SharedLibrary
    from pg_server import database_of

    config, address = shared
    with SharedLibrary(config, address, create=True, encoder=tiny_encoder, machine="desk-b") as b:
        b.add_folder(folder(tmp_path / "theirs", TEXTS))
    desktop = config.replace(library={"address": ""})
    with Library(desktop, encoder=tiny_encoder) as mine:
        mine.add_folder(folder(tmp_path / "mine", {"kettle.txt": "Copper kettles whistle on the stove."}))
    file = Path(desktop.data_dir) / "config.toml"
    win = build_main_window(desktop)  # this computer's library, as a plain `searchapp` opens it
    qtbot.addWidget(win)
    try:
        assert isinstance(win.library, Library) and not win.desktop_action.isEnabled()
        dlg = win.ask_shared_library()
        for typed, said in (("https://server/searchapp", "starts with postgresql://"),
                            ("postgresql://team:secret@server/searchapp", "holds a password")):
            dlg.field.setText(typed)
            dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open).click()
            assert dlg.isVisible() and said in dlg.error.text() and isinstance(win.library, Library)
        missing = address.replace("?", "_none?", 1)  # a database the server does not have
        dlg.field.setText(missing)
        dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open).click()
        qtbot.waitUntil(lambda: win.last_dialog is not dlg, timeout=WAIT_MS)  # the error, said in a dialog
        assert "_none" in win.last_dialog.text() and isinstance(win.library, Library)
        assert "address" not in file.read_text(encoding="utf-8")
        win.last_dialog.close()
        dlg = win.ask_shared_library()
        dlg.field.setText(address)
        dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Open).click()
        qtbot.waitUntil(lambda: isinstance(win.library, SharedLibrary) and bool(win.status.elsewhere), timeout=WAIT_MS)
        assert "postgresql://" in win.windowTitle() and win.desktop_action.isEnabled()
        assert f'address = "{address}"' in file.read_text(encoding="utf-8")  # the next plain start opens it
        assert [m for m, _ in win.status.elsewhere] == ["desk-b"]
        assert search(qtbot, win, "spruce varnished").hits[0].path == str(tmp_path / "theirs" / "violin.txt")
        win.desktop_action.trigger()
        qtbot.waitUntil(lambda: isinstance(win.library, Library), timeout=WAIT_MS)
        assert win.windowTitle() == "searchapp" and not win.desktop_action.isEnabled()
        assert "address" not in file.read_text(encoding="utf-8")
        assert search(qtbot, win, "copper kettles").hits[0].path == str(tmp_path / "mine" / "kettle.txt")
        # The shared library it replaced is closed once nothing of the window's runs on it: no connection kept.
        connected = ("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = 'searchapp' "
                     "AND pid <> pg_backend_pid()")
        qtbot.waitUntil(lambda: pg_server.admin(connected, params=(database_of(address),)) == [(0,)],
                        timeout=WAIT_MS)
        assert win.ask_shared_library().field.text() == address  # the last one opened, offered again
    finally:
        for top in QApplication.topLevelWidgets():
            if top is not win and top.isVisible():
                top.close()
        win.close()
        win.session.close()


def test_a_database_without_a_library_is_made_one_only_when_asked(qtbot, shared, pg_server):
    """A mistyped address that names a real database never fills it with empty tables: the window asks first."""
    from PySide6.QtWidgets import QMessageBox

    from searchapp.gui import build_main_window
    from searchapp.library import Library
    from searchapp.library.shared import SharedLibrary
    from pg_server import database_of

    config, _ = shared
    empty = pg_server.address(pg_server.new_database())
    has_tables = "SELECT to_regclass('meta') IS NOT NULL"
    win = build_main_window(config.replace(library={"address": ""}))
    qtbot.addWidget(win)
    try:
        for answer in (QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes):
            win.session.open_library(empty)
            qtbot.waitUntil(lambda: isinstance(win.last_dialog, QMessageBox), timeout=WAIT_MS)
            box, win.last_dialog = win.last_dialog, None
            assert "There is no shared library at" in box.text() and isinstance(win.library, Library)
            assert pg_server.admin(has_tables, database=database_of(empty)) == [(False,)]
            box.button(answer).click()
        qtbot.waitUntil(lambda: isinstance(win.library, SharedLibrary), timeout=WAIT_MS)
        assert pg_server.admin(has_tables, database=database_of(empty)) == [(True,)]
    finally:
        win.close()
        win.session.close()


def test_a_library_still_opening_when_the_window_closes_is_closed(qtbot, shared, pg_server, monkeypatch):
    """The open ends after the window has closed (held until then): the library it opened is closed, not used."""
    import threading

    from searchapp.gui import build_main_window, library_session
    from searchapp.library import Library
    from pg_server import database_of

    config, address = shared
    started, release = threading.Event(), threading.Event()
    real = library_session.open_chosen

    def held(*args, **kwargs):
        lib = real(*args, **kwargs)
        started.set()
        release.wait(WAIT_MS / 1000)
        return lib

    monkeypatch.setattr(library_session, "open_chosen", held)
    win = build_main_window(config.replace(library={"address": ""}))
    qtbot.addWidget(win)
    win.session.open_library(address, make=True)
    assert started.wait(WAIT_MS / 1000)
    threading.Timer(1.0, release.set).start()  # while the window's close waits for its workers
    win.close()
    qtbot.waitUntil(lambda: not win.session._opening, timeout=WAIT_MS)
    assert isinstance(win.library, Library)  # never used
    connected = ("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = 'searchapp' "
                 "AND pid <> pg_backend_pid()")
    qtbot.waitUntil(lambda: pg_server.admin(connected, params=(database_of(address),)) == [(0,)], timeout=WAIT_MS)


def test_an_undo_offered_ends_when_another_library_is_opened(qtbot, win, pg_server):
    """Undo keeps to the library its folder was removed from: opening this computer's library drops the offer
    and what the shared library kept for it, never an Undo run against the other library."""
    from searchapp.library import Library
    from pg_server import database_of

    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.remove_root(str(win.docs))
    db = database_of(win.address)
    assert win.writes.undo.button.isVisible()
    assert pg_server.admin("SELECT count(*) FROM removed_roots", database=db) == [(1,)]
    win.use_desktop_library()
    qtbot.waitUntil(lambda: isinstance(win.library, Library), timeout=WAIT_MS)
    assert not win.writes.undo.button.isVisible() and win.writes.undo.lib is None
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert pg_server.admin("SELECT count(*) FROM removed_roots", database=db) == [(0,)]


def test_a_window_whose_server_is_out_of_reach_says_so_in_a_dialog(qtbot, shared, tmp_path, monkeypatch):
    """Started from a desktop menu while the server was down, the window never showed and said nothing: its one
    line went to a terminal nobody reads. A dialog says it now; the command line keeps its line and exit code."""
    from searchapp.base.errors import StoreError
    from searchapp.gui.app import run_gui

    config, _ = shared
    seen: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: seen.append(box.text()) or 0)
    gone = f"postgresql://team@/searchapp?host={tmp_path / 'no-server-here'}"
    with pytest.raises(StoreError, match="cannot reach the shared library"):
        run_gui(config.replace(library={"address": gone}))
    assert len(seen) == 1 and "cannot reach the shared library postgresql://team@local socket/searchapp" in seen[0]
    assert "`searchapp --library local gui`" in seen[0], seen
