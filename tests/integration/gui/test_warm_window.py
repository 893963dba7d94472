"""An open window answers `searchapp search` from a terminal (the warm index) while it owns its library, under
the settings it saved last, and stops when it closes."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from conftest import build_tiny_library

from gui_window import shown_window

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}


def cli_search(capsys, data, query: str) -> dict:
    from searchapp.cli.entry import main  # the `searchapp` command's entry point (a thin client first)

    code = main(["--data-dir", str(data), "search", query, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_the_window_serves_its_library_until_it_closes(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    import os

    from searchapp.base.config import load_config
    from searchapp.cli.warm_run import run_command
    from searchapp.library.warm import protocol
    from searchapp.library.warm.ping import ping

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    # no library given: the window opens its own; the command line's runner, as `searchapp gui` hands it in
    win = shown_window(qtbot, load_config(data, env={}), None, commands=run_command)
    assert ping(data) == os.getpid()
    assert win.session.library._server.commands is run_command  # a thin client's whole command is run here
    res = cli_search(capsys, data, "violin spruce")
    assert res["served_by"] == "warm" and res["hits"][0]["path"].endswith("violin.txt")
    # new settings: the library is opened again under them and served under them (the old one stops serving)
    assert win.session.apply_config(win.session.config.replace(search={"k": 1}))
    assert win.session.library._server is not None and ping(data) == os.getpid()
    assert win.session.library._server.commands is run_command
    res = cli_search(capsys, data, "harbour moon")  # the saved settings are the terminal's too
    assert res["served_by"] == "warm" and len(res["hits"]) == 1
    win.close()
    assert not (data / protocol.SOCKET_NAME).exists() and ping(data) is None
    assert cli_search(capsys, data, "violin")["served_by"] == "direct"


def test_a_window_given_a_library_leaves_serving_to_its_owner(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library
    from searchapp.library.warm.ping import ping

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    win = shown_window(qtbot, lib.config, lib)
    try:
        assert ping(data) is None
    finally:
        win.close()
        lib.close()
