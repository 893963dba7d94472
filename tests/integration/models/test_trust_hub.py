"""Issue 18: a hostile hub (a real HTTP server on 127.0.0.1) against `models pull`, the GUI download and
`models remove`: lying ETags and commit ids, hostile file names, a revision request never answered, listings
paged forever, a body that never ends, credentials and a malformed HF_ENDPOINT; a hub trickling bytes, a Link
header built to backtrack, malformed HTTP."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hub_server import FakeHub
from test_models_hub import RERANKER_ID, leftovers, run_main

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def hf_cache(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "hf-home"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(home / "hub"))
    monkeypatch.setenv("SEARCHAPP_DATA_DIR", str(tmp_path / "lib"))
    return home / "hub"


@pytest.fixture
def hub(monkeypatch, tiny_cross_encoder_dir, hf_cache):
    with FakeHub() as h:
        h.add_repo(RERANKER_ID, tiny_cross_encoder_dir)
        monkeypatch.setenv("HF_ENDPOINT", h.url)
        yield h


def start_pull(*extra: str, env_extra: dict | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "searchapp", "models", "pull", RERANKER_ID, *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def pull_cli(timeout: int = 60, env_extra: dict | None = None) -> tuple[int, str, float]:
    """`searchapp models pull` in this process (the hub is the other side; a Python start each was most of these
    tests' CPU; Ctrl+C's tests start a process): (exit code, stderr, seconds). A pull that never ends fails the
    test after `timeout` s (an alarm) instead of hanging the suite."""

    def hung(signum, frame):
        raise AssertionError(f"models pull still running after {timeout} s")

    t0 = time.monotonic()
    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(timeout)
    try:
        with pytest.MonkeyPatch.context() as env:
            for key, value in (env_extra or {}).items():
                env.setenv(key, value)
            rc, _, err = run_main("models", "pull", RERANKER_ID)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    return rc, err, time.monotonic() - t0


def everything_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# -- 1. a lying ETag or commit id never names a path ------------------------------------------------
@pytest.mark.parametrize("lie", ["etag", "commit"])
def test_a_lying_etag_or_commit_id_writes_nothing_outside_the_cache(hub, hf_cache, tmp_path, lie):
    escape = "../" * 6 + "escaped/evil"  # from blobs/ (or snapshots/) up past the cache into tmp_path
    if lie == "etag":
        hub.lie_etag = f'"{escape}"'
    else:
        hub.lie_commit = escape
    before = everything_under(tmp_path)
    rc, err, _ = pull_cli()
    assert rc == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ("malformed ETag" if lie == "etag" else "malformed commit id") in lines[0], err
    assert not (tmp_path / "escaped").exists() and not (hf_cache.parent / "escaped").exists()
    written = everything_under(tmp_path) - before
    assert all(w.startswith(("hf-home", "lib")) for w in written), written  # nothing beside the cache
    assert leftovers(hf_cache) == []


@pytest.mark.parametrize("name", ["../evil.json", "x\x1b]0;pwned\x07/config.json", "a\\b.json", "/config.json"])
def test_hostile_file_names_in_the_listing_are_refused_in_one_escaped_line(hub, hf_cache, tmp_path, name):
    hub.extra_entries.append({"type": "file", "path": name, "size": 10, "oid": "0" * 40})
    rc, err, _ = pull_cli()
    assert rc == 1 and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "plain names" in lines[0] and "\x1b" not in err and "\x07" not in err, err
    assert not any("/resolve/" in p for _, p in hub.requests)  # refused before a byte was fetched
    assert leftovers(hf_cache) == [] and not (tmp_path / "evil.json").exists()


# -- 2. a hub that never answers, or pages forever -------------------------------------------------
def test_a_revision_request_never_answered_times_out_in_one_line(hub, hf_cache):
    hub.stall_info = True
    rc, err, _ = pull_cli(env_extra={"SEARCHAPP_HUB_TIMEOUT": "1"})
    assert rc == 1 and err.strip().splitlines() == [
        f"searchapp: error: {hub.url[7:]} did not answer within 1 s while downloading {RERANKER_ID}; try again later "
        "(nothing was installed)."], err


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_while_the_hub_stalls_stops_at_once_with_exit_130(hub, hf_cache, presses):
    hub.stall_info = True
    proc = start_pull()
    try:
        deadline = time.monotonic() + 60
        while not any("/revision/" in p for _, p in hub.requests) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        _, err = proc.communicate(timeout=15)  # the default hub timeout is 30 s: this is the cancel, not it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["searchapp: models pull cancelled; nothing was installed"], err
    assert leftovers(hf_cache) == []


def test_a_listing_paged_forever_is_capped(hub, hf_cache):
    hub.endless_tree = True
    rc, err, _ = pull_cli(timeout=60)
    from searchapp.models.hub.http import MAX_LISTING_PAGES

    pages = sum("/tree/" in p for _, p in hub.requests)
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "that is not a single model" in err, err
    assert pages <= MAX_LISTING_PAGES
    assert leftovers(hf_cache) == []


def test_the_gui_download_cancels_and_the_app_can_exit_while_the_hub_stalls(qtbot, hub, hf_cache):
    from searchapp.gui.model_download import DownloadDialog, ModelDownloads

    hub.stall_info = True
    downloads = ModelDownloads()
    dlg = DownloadDialog(downloads, RERANKER_ID, "reranker")
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.start_button.click()
    qtbot.waitUntil(lambda: any("/revision/" in p for _, p in hub.requests), timeout=30_000)
    dlg.cancel_button.click()
    # The hub still says nothing (its timeout is 30 s): the Cancel itself must end the download.
    qtbot.waitUntil(lambda: dlg.status.text().startswith("Cancelled"), timeout=10_000)
    assert not dlg.isVisible() and not downloads.busy()
    assert downloads.runner.shutdown(timeout_ms=5_000)  # what closing the window waits for
    assert leftovers(hf_cache) == []


# -- 3. a body that never ends, and the total cap ---------------------------------------------------
def test_a_body_that_never_ends_is_cut_at_its_declared_size(hub, hf_cache):
    from searchapp.models.hub import DownloadError, pull_model

    hub.endless_body.add("model.safetensors")
    with pytest.raises(DownloadError, match="sent more than the .* bytes expected for model.safetensors"):
        pull_model(RERANKER_ID)
    time.sleep(0.5)  # let the server notice the hang-up
    assert hub.sent["model.safetensors"] < 32 << 20  # the declared size (~0.5 MB) plus socket buffers, not 96 MB
    assert leftovers(hf_cache) == []


def test_a_repository_over_the_total_cap_is_refused_before_a_byte(hub, hf_cache, monkeypatch):
    from searchapp.models.hub import DownloadError, pull_model

    monkeypatch.setenv("SEARCHAPP_MAX_PULL_MB", "0.05")
    with pytest.raises(DownloadError, match=r"more than a pull may fetch \(50 kB; \$SEARCHAPP_MAX_PULL_MB"):
        pull_model(RERANKER_ID)
    assert not any("/resolve/" in p for _, p in hub.requests) and leftovers(hf_cache) == []


# -- 10d. resolve's own download is gone: pull is the only download path --------------------------
def test_resolve_never_downloads_and_names_pull(hub, hf_cache, tmp_path):
    from searchapp.base.errors import ModelNotFoundError
    from searchapp.models.hub import pull_model
    from searchapp.models import resolve

    assert not hasattr(resolve, "_download")
    with pytest.raises(ModelNotFoundError, match=f"`searchapp models pull {RERANKER_ID}` fetches it"):
        resolve.resolve_model(RERANKER_ID, kind="reranker")
    assert hub.requests == [] and leftovers(hf_cache) == []  # no request, nothing written
    got = pull_model(RERANKER_ID)
    assert (got.path / "model.safetensors").is_symlink()  # the cache layout huggingface_hub uses
    found = resolve.resolve_model(RERANKER_ID, kind="reranker")
    assert found.source == "hf-cache" and found.path == got.path


# -- 11. ids, credentials, a malformed endpoint -------------------------------------------------------
def test_remove_a__b_does_not_remove_a_slash_b(hf_cache):
    repo = hf_cache / "models--a--b"
    (repo / "snapshots" / "c").mkdir(parents=True)
    (repo / "snapshots" / "c" / "config.json").write_text("{}")
    for bad in ("a--b", "a-/b", "a/-b"):
        rc, out, err = run_main("models", "remove", bad)
        assert rc == 2 and err.count("\n") == 1 and "is not a Hugging Face model id" in err, (bad, err)
    assert repo.is_dir()


def test_credentials_in_hf_endpoint_never_appear(hub, hf_cache, monkeypatch):
    host = hub.url[len("http://"):]
    monkeypatch.setenv("HF_ENDPOINT", f"http://alice:s3cret@{host}")
    rc, out, err = run_main("models", "pull", "acme/no-such-model")
    assert rc == 5 and err.strip() == (f"searchapp: error: acme/no-such-model was not found on {host}; check the name "
                                       "(private and gated models are not supported).")
    auth = [h.get("Authorization") for h in hub.headers_seen]
    assert auth and all(a == "Basic YWxpY2U6czNjcmV0" for a in auth)  # still sent to the hub itself
    from searchapp.gui.model_download import describe

    text = describe(RERANKER_ID, "reranker")
    assert host in text and "s3cret" not in text and "alice" not in text


def test_a_malformed_hf_endpoint_is_one_line(hf_cache, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://[::1")
    rc, out, err = run_main("models", "pull", RERANKER_ID)
    assert rc == 2 and err.strip() == ("searchapp: error: HF_ENDPOINT is not a usable http(s) URL "
                                       "(like https://huggingface.co); nothing was downloaded.")
    from searchapp.gui.model_download import describe

    assert "HF_ENDPOINT" in describe(RERANKER_ID, "reranker")  # the dialog opens and says which setting is wrong


# -- a hub that trickles, a Link header built to backtrack, malformed HTTP ----------------------
# Deadlines of 2 s: the timeout is the floor, and 10 MB/s times the ~4 MB of weights is less.
QUICK = {"SEARCHAPP_HUB_TIMEOUT": "2", "SEARCHAPP_HUB_MIN_RATE_KB": "10000"}


@pytest.mark.parametrize("where", ["body", "headers"])
def test_a_hub_trickling_a_byte_at_a_time_is_cut_at_the_request_deadline(hub, hf_cache, where):
    # Each byte comes well within the 2 s timeout: only a deadline for the whole request ends this.
    if where == "body":
        hub.slow_body["model.safetensors"] = 0.2
        what, key = "model.safetensors", "model.safetensors"
    else:
        hub.slow_headers = 0.2
        what, key = "its model info", f"/api/models/{RERANKER_ID}/revision/main"
    rc, err, _ = pull_cli(timeout=90, env_extra=QUICK)
    assert rc == 1 and err.strip().splitlines() == [
        f"searchapp: error: {hub.url[7:]} sent {what} of {RERANKER_ID} too slowly (less than 10,000 kB/s, "
        "given 2 s at least); try again later (nothing was installed)."], err
    size = len(hub.repos[RERANKER_ID].files["model.safetensors"])
    assert 0 < hub.sent[key] < min(size, 1 << 20)  # it started, and was given up on long before the end
    assert leftovers(hf_cache) == []


def test_a_link_header_built_to_backtrack_is_refused_in_one_line(hub, hf_cache):
    hub.link_header = "<" * 60_000  # quadratic for a `<([^>]*)>` search: seconds of CPU per page
    rc, err, _ = pull_cli(timeout=120)
    assert rc == 1 and err.strip().splitlines() == [
        f"searchapp: error: {hub.url[7:]} sent a paging link longer than 8,192 characters for {RERANKER_ID}; "
        "refusing it (nothing was downloaded)."], err
    assert not any("/resolve/" in p for _, p in hub.requests) and leftovers(hf_cache) == []


@pytest.mark.parametrize("link, want", [
    ('<https://h/api/models/a/b/tree/c?recursive=true&cursor=QQ==>; rel="next"',
     "https://h/api/models/a/b/tree/c?recursive=true&cursor=QQ=="),
    ("</p?page=1>; rel=first, </p?page=3>;rel=next", "/p?page=3"),
    ('</p?x=1,2>; title="a; b"; REL="prev next"', "/p?x=1,2"),
    ('</last>; rel="last"', None),
    ("<" * 8000 + ', </p2>; rel="next"', "/p2"),  # junk before a real link: the link, not the junk
    ("<" * 8000, None),
    ("", None),
])
def test_the_link_header_parser_finds_rel_next(link, want):
    from searchapp.models.hub.http import next_link

    assert next_link(link) == want


@pytest.mark.parametrize("kind, said", [
    ("headers", "more than 100 headers"),
    ("line", "a header line longer than 64 KB"),
    ("status", "a status line that is not HTTP"),
])
def test_malformed_http_from_the_hub_is_one_line(hub, hf_cache, kind, said):
    hub.malformed = kind
    rc, err, _ = pull_cli(env_extra=QUICK)
    assert rc == 1 and err.strip().splitlines() == [
        f"searchapp: error: {hub.url[7:]} sent malformed HTTP ({said}) for {RERANKER_ID}; it does not look like "
        "a Hugging Face hub (nothing was downloaded)."], err
    assert "\x1b" not in err and leftovers(hf_cache) == []


@pytest.mark.parametrize("value", ["fast", "0", "-5"])
def test_a_bad_minimum_rate_is_one_line_before_any_request(hub, hf_cache, monkeypatch, value):
    monkeypatch.setenv("SEARCHAPP_HUB_MIN_RATE_KB", value)
    rc, _, err = run_main("models", "pull", RERANKER_ID)
    assert rc == 2 and err.strip() == ("searchapp: error: SEARCHAPP_HUB_MIN_RATE_KB must be a number of kilobytes "
                                       f"per second (like 50), not '{value}'."), err
    assert hub.requests == []
