"""The settings speak plain words first — what each model does, results shown, what to leave out, reading scans —
and keep the technical names (pooling, tokens, HNSW ef_search) under Advanced; leaving out and OCR are saved."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QLabel

from conftest import build_tiny_library

from gui_window import shown_window

JARGON = ("pooling", "hnsw", "ef_search", "word pieces", "bi-encoder", "candidates", "(k)")


def visible_labels(dialog) -> list[str]:
    return [w.text() for w in dialog.findChildren(QLabel) if w.isVisibleTo(dialog) and w.text()]


def test_settings_say_plain_words_first_and_save_what_to_leave_out_and_ocr(qtbot, tmp_path, tiny_bi_encoder_dir,
                                                                          tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, {"a.txt": "A volcano erupted."}, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    win = shown_window(qtbot, lib.config, lib)
    try:
        dlg = win.open_settings()
        qtbot.waitExposed(dlg)
        shown = " | ".join(visible_labels(dlg)).lower()
        assert not [j for j in JARGON if j in shown], shown
        assert "results shown" in shown and "leave out" in shown
        assert dlg.ocr.isVisible() and dlg.ocr.isChecked() and dlg.exclude.isVisible()
        assert not dlg.advanced.isVisible()
        dlg.advanced_button.click()
        advanced = " | ".join(visible_labels(dlg.advanced)).lower()
        assert "pooling" in advanced and "hnsw ef_search" in advanced and "tokens" in advanced

        dlg.exclude.setPlainText("*.bak\n\n  ~/Documents/private  \n")
        dlg.ocr.setChecked(False)
        assert not dlg.warning.text()  # leaving out and OCR need no re-index
        with qtbot.waitSignal(win.statusRefreshed, timeout=60_000):
            dlg.buttons.button(dlg.buttons.StandardButton.Save).click()
        cfg = load_config(data, env={})
        assert cfg.scan.exclude == ("*.bak", "~/Documents/private") and cfg.scan.ocr is False
        assert win.config.scan.exclude == cfg.scan.exclude

        again = win.open_settings()
        assert again.exclude.toPlainText() == "*.bak\n~/Documents/private" and not again.ocr.isChecked()
        again.reject()
    finally:
        win.close()
        lib.close()
