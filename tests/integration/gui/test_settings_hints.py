"""The settings say what their values are: a reranker named but not installed says so beside its field, with the
way to get it, and the default "Leave out" patterns say what they leave out. Real window, offscreen."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from gui_window import shown_window

RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


def test_a_reranker_not_installed_and_the_default_leave_out_lines_are_said_in_words(qtbot, tmp_path, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    config = load_config(tmp_path / "new", env={}, overrides={"models": {"reranker": RERANKER}})
    with Library(config, encoder=tiny_encoder) as lib:
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        dialog = win.open_settings()
        qtbot.waitExposed(dialog)
        state = dialog.findChild(type(dialog.warning), "settingsRerankerState")
        assert dialog.reranker.text() == RERANKER
        assert state is not None and state.isVisible() and state.text().startswith("Not installed"), state
        assert "Download…" in state.text()  # the way to get it, beside the button that does
        dialog.reranker.setText("/models/my-reranker")  # another model: looked for once saved, not judged here
        assert not state.isVisible()
        dialog.reranker.setText(RERANKER)
        assert state.isVisible()

        hint = dialog.findChild(type(dialog.warning), "settingsExcludeHint")
        assert dialog.exclude.toPlainText().splitlines() == ["*~", "#*#"]
        assert hint is not None and hint.isVisible()
        assert "*~  editor backup files" in hint.text() and "#*#  Emacs autosaves" in hint.text(), hint.text()
        dialog.exclude.setPlainText("*.bak")
        assert hint.text() == ""
        dialog.reject()
        win.close()
