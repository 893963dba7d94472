"""The window's parts, offscreen on a real tiny library: every write says what it changed through one signal
(Changes, as Anki's OpChanges), each part refreshes itself from it, and no part holds the window."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")


from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, shown_window

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False}})
    lib = Library(config, encoder=tiny_encoder)
    w = shown_window(qtbot, config, lib)
    w.docs = Path(tmp_path / "docs")
    yield w
    close_window(w, lib)


def test_no_part_holds_the_window_and_no_widget_is_re_exposed_for_tests(win):
    parts = {"search": win.search, "writes": win.writes, "memory": win.memory, "session": win.session,
             "discover": win.discover}
    for name, part in parts.items():
        held = [k for k, v in vars(part).items() if v is win]
        assert held == [], f"{name} holds the window as {held}"
    # The widgets are their parts' own; the window does not hand them out a second time.
    for gone in ("search_box", "mode_box", "rerank_box", "group_box", "k_box", "results_model", "results_view",
                 "notice_label", "notice_button", "device_label", "models_label", "index_label", "reranker_label"):
        assert not hasattr(win, gone), gone
    assert win.findChild(type(win.search.search_box), "searchBox") is win.search.search_box
    assert win.findChild(type(win.labels.index), "indexLabel") is win.labels.index


def test_a_write_announces_its_changes_once_and_every_part_refreshes(qtbot, win, tmp_path):
    from searchapp.gui.changes import Changes

    seen = []
    win.changed.connect(seen.append)
    win.search.mode_box.set_mode("lexical")  # words only: nothing matches until the lamp is indexed
    win.search.search_box.setText("lava lamp")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as before:
        win.run_search()
    assert not before.args[0].hits  # nothing about lava lamps yet

    more = tmp_path / "more"
    more.mkdir()
    (more / "lamp.txt").write_text("A lava lamp glows on the desk.\n")
    # The folder's Changes reach the status (the library view lists it), the search (run again) and the saved
    # searches (counted again), each on its own.
    with qtbot.waitSignals([win.writesIdle, win.searchFinished, win.memory.savedChanged], timeout=WAIT_MS):
        win.add_paths([str(more)])
    assert seen == [Changes(roots=True, files=True)]
    tree_paths = [win.library_panel.tree.topLevelItem(i).text(0)
                  for i in range(win.library_panel.tree.topLevelItemCount())]
    assert str(more) in tree_paths
    assert any(h.path.endswith("lamp.txt") for h in win.search.result.hits)


def test_saving_a_search_is_a_change_the_saved_list_follows(qtbot, win):
    from searchapp.gui.changes import Changes

    seen = []
    win.changed.connect(seen.append)
    win.search.search_box.setText("volcano")
    win.memory.save("Volcanoes")
    # Not the first savedChanged: under load the window's own start-up refresh of the list may be that one.
    qtbot.waitUntil(lambda: win.saved_panel.names() == ["Volcanoes"] and bool(seen), timeout=WAIT_MS)
    assert seen == [Changes(searches=True)]


def test_new_settings_reach_the_parts_through_changes(qtbot, win):
    from searchapp.gui.changes import Changes

    seen = []
    win.changed.connect(seen.append)
    new = win.config.replace(search={"k": 7})
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        assert win.session.apply_config(new)
    # (the reopened library's vector index, opening in the background, says when it is open: Changes(meaning))
    assert [c for c in seen if c != Changes(meaning=True)] == [Changes(settings=True)]
    assert win.search.k_box.value() == 7  # the search part took the new k itself
    assert win.library.config.search.k == 7


def test_changes_union():
    from searchapp.gui.changes import Changes

    assert not Changes()
    both = Changes(roots=True) | Changes(searches=True)
    assert both == Changes(roots=True, searches=True) and both.index and not Changes(searches=True).index
