"""Model folders are data, never code: a folder that needs its own Python is refused before anything is
imported, nothing prompts on stdin, and a hub id is never looked up as a folder under the current directory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.base.errors import ModelLoadError, ModelNotFoundError
from searchapp.models.resolve import explicit_path, is_path_spec, resolve_model

REPO = Path(__file__).resolve().parents[3]
DEFAULT_ID = "cross-encoder/ms-marco-MiniLM-L-6-v2"


def make_code_folder(folder: Path, tiny_dir: Path, marker: Path, *, auto_map: bool = True) -> Path:
    """A copy of a tiny model whose config asks transformers to import evil.py (which writes `marker`)."""
    shutil.copytree(tiny_dir, folder)
    cfg = json.loads((folder / "config.json").read_text())
    cfg["model_type"] = "evil-bert"
    cfg["architectures"] = ["EvilModel"]
    if auto_map:
        cfg["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModel": "evil.EvilModel",
                           "AutoModelForSequenceClassification": "evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(cfg))
    (folder / "evil.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "from transformers import BertConfig as EvilConfig, BertModel as EvilModel\n")
    return folder


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEARCHAPP_")}
    env.update({"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", **extra})
    return env


@pytest.fixture(scope="module")
def library(tmp_path_factory, tiny_encoder, tiny_bi_encoder_dir):
    """A small library indexed with the tiny bi-encoder, which its config.toml names."""
    texts = ["volcanoes erupt lava and ash", "the castle had a moat and a drawbridge", "bebop saxophonists improvise quickly"]
    return build_tiny_library(tmp_path_factory.mktemp("safety"), {f"d{i}.txt": t for i, t in enumerate(texts)},
                              tiny_bi_encoder_dir, tiny_encoder, 'device = "cpu"\n')


def test_path_rule():
    assert is_path_spec("/abs/model") and is_path_spec("~/m") and is_path_spec("./m") and is_path_spec("../m")
    assert is_path_spec("a/b/c")  # cannot be a hub id
    assert not is_path_spec(DEFAULT_ID) and not is_path_spec("mymodel")


def test_hub_id_is_never_a_folder_under_the_cwd(tmp_path, monkeypatch, tiny_cross_encoder_dir):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(tiny_cross_encoder_dir, tmp_path / DEFAULT_ID)  # a perfectly good model, even
    with pytest.raises(ModelNotFoundError) as e:
        resolve_model(DEFAULT_ID, kind="reranker")
    assert "cache" in str(e.value)
    # Named explicitly it is a path, and loads.
    assert resolve_model("./" + DEFAULT_ID, kind="reranker").source == "local"
    assert explicit_path(DEFAULT_ID) == str(tmp_path / DEFAULT_ID)
    assert explicit_path("no/such-model") == "no/such-model"


@pytest.mark.parametrize("auto_map", [True, False])
def test_custom_code_folder_is_refused_before_import(tmp_path, tiny_cross_encoder_dir, auto_map):
    from searchapp.models import CrossEncoder

    marker = tmp_path / "ran.txt"
    folder = make_code_folder(tmp_path / "evil", tiny_cross_encoder_dir, marker, auto_map=auto_map)
    with pytest.raises(ModelLoadError) as e:
        CrossEncoder(str(folder), device="cpu")
    assert not isinstance(e.value, ModelNotFoundError)
    assert ("own Python code" if auto_map else "does not know") in str(e.value)
    assert not marker.exists()


def test_custom_code_in_tokenizer_config_is_refused(tmp_path, tiny_bi_encoder_dir):
    from searchapp.models import BiEncoder

    folder = tmp_path / "tok"
    shutil.copytree(tiny_bi_encoder_dir, folder)
    tc = json.loads((folder / "tokenizer_config.json").read_text())
    tc["auto_map"] = {"AutoTokenizer": ["evil.EvilTokenizer", None]}
    (folder / "tokenizer_config.json").write_text(json.dumps(tc))
    with pytest.raises(ModelLoadError, match="own Python code"):
        BiEncoder(str(folder), device="cpu")


def test_explicit_custom_code_reranker_exits_5_and_reads_no_stdin(tmp_path, library, tiny_cross_encoder_dir):
    marker = tmp_path / "ran.txt"
    folder = make_code_folder(tmp_path / "evil", tiny_cross_encoder_dir, marker)
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(library), "search", "-",
                           "--reranker", str(folder)], input="y\ny\nlava\ncastle\n", capture_output=True,
                          text=True, env=_env(), timeout=300)
    assert proc.returncode == 5, proc.stderr
    assert not marker.exists()
    assert "custom code" not in proc.stdout and "[y/N]" not in proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "own Python code" in proc.stderr


def test_configured_custom_code_reranker_falls_back_with_the_reason(tmp_path, library, tiny_cross_encoder_dir):
    marker = tmp_path / "ran.txt"
    folder = make_code_folder(tmp_path / "evil", tiny_cross_encoder_dir, marker)
    queries = "lava\ny\ncastle\nsaxophone\n"
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(library), "search", "-", "--json"],
                          input=queries, capture_output=True, text=True, timeout=300,
                          env=_env(SEARCHAPP_MODELS__RERANKER=str(folder)))
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert [line["query"] for line in lines] == ["lava", "y", "castle", "saxophone"]
    assert proc.stderr.count("own Python code") == 1  # the real reason, said once


def test_default_reranker_ignores_a_same_named_folder_in_the_cwd(tmp_path, library, tiny_cross_encoder_dir):
    marker = tmp_path / "ran.txt"
    work = tmp_path / "download"
    make_code_folder(work / DEFAULT_ID, tiny_cross_encoder_dir, marker)
    # the bi-encoder id too: a folder named like the configured hub id is not a model
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(library), "search", "-", "--json"],
                          input="lava\ncastle\n", capture_output=True, text=True, env=_env(), timeout=300, cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert len([line for line in proc.stdout.splitlines() if line.strip()]) == 2
    assert "own Python code" not in proc.stderr  # it was never even looked at
    assert "not installed" in proc.stderr


def test_bi_encoder_id_ignores_a_same_named_folder_in_the_cwd(tmp_path, monkeypatch, tiny_bi_encoder_dir):
    marker = tmp_path / "ran.txt"
    monkeypatch.chdir(tmp_path)
    make_code_folder(tmp_path / "someone" / "encoder", tiny_bi_encoder_dir, marker)
    from searchapp.models import BiEncoder

    with pytest.raises(ModelNotFoundError):
        BiEncoder("someone/encoder", device="cpu")
    assert not marker.exists()


def test_gui_says_why_a_reranker_folder_was_refused(qtbot, make_config, packaged_encoder, tmp_path,
                                                     tiny_cross_encoder_dir):
    """The notice text (not only its tooltip) gives the real reason, and the status bar never says
    "Reranker: on" for a reranker that did not load."""
    from gui_window import load_models
    from searchapp.gui import build_main_window
    from searchapp.library import Library

    marker = tmp_path / "ran.txt"
    folder = make_code_folder(tmp_path / "evil", tiny_cross_encoder_dir, marker, auto_map=False)  # resolves
    config = make_config(models={"reranker": str(folder)})
    lib = Library(config, encoder=packaged_encoder)
    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    win.url_opener = lambda url: None
    try:
        with qtbot.waitSignal(win.statusRefreshed, timeout=60_000):
            win.show()
        assert win.labels.reranker.text() != "Reranker: on"
        load_models(qtbot, win)  # as the first search by meaning does: the window loads no model at start
        assert win.labels.reranker.text() == "Reranker: none"
        assert win.notice.isVisible()
        assert "refused" in win.notice.label.full_text() and "does not know" in win.notice.label.full_text()
        assert not marker.exists()
    finally:
        win.close()
        lib.close()


@pytest.mark.parametrize("what", ["missing", "empty", "pickles"])
def test_explicit_reranker_that_cannot_load_exits_5(tmp_path, library, capsys, what):
    from searchapp.cli.main import main

    folder = tmp_path / "reranker"
    if what != "missing":
        folder.mkdir()
        (folder / "config.json").write_text('{"model_type": "bert"}')
    if what == "pickles":
        (folder / "pytorch_model.bin").write_bytes(b"not really a pickle")
    code = main(["--data-dir", str(library), "search", "lava", "--reranker", str(folder)])
    err = capsys.readouterr().err
    assert code == 5, err
    assert len(err.strip().splitlines()) == 1
    assert {"missing": "does not exist", "empty": "no model.safetensors", "pickles": "pickled"}[what] in err
    # --no-rerank: the named reranker is not needed, so nothing fails
    assert main(["--data-dir", str(library), "search", "lava", "--reranker", str(folder), "--no-rerank"]) == 0


def test_default_reranker_notice_is_short_once_and_not_in_lexical_mode(library, capsys, monkeypatch):
    import io

    from searchapp.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("lava\ncastle\nsaxophone\n"))
    assert main(["--data-dir", str(library), "search", "-"]) == 0
    err = capsys.readouterr().err
    assert err.count("not installed") == 1 and len(err.strip().splitlines()) == 1 and len(err) < 200
    assert main(["--data-dir", str(library), "search", "lava", "--mode", "lexical"]) == 0
    assert capsys.readouterr().err == ""
