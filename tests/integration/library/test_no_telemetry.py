"""Nothing is written outside the data dir and the model caches: onnxruntime's telemetry (a device id and a queue
of events about this machine, written by its import under ~/.cache/Microsoft/DeveloperTools) is turned off
before anything imports it — for the query encoder and for RapidOCR (base/no_telemetry.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scan_files import OCR_ENGINE, needs_rapidocr, text_image

pytest.importorskip("onnxruntime")


def _files_under(folder: Path) -> list[str]:
    return sorted(str(Path(d, f).relative_to(folder)) for d, _, files in os.walk(folder) for f in files)


@needs_rapidocr
def test_a_sync_with_ocr_and_an_onnx_query_write_nothing_in_home(tmp_path, tiny_bi_encoder_dir):
    from searchapp.ingest.ocr.engine import ENGINE_ENV
    from searchapp.models.onnx_query import cache_files  # noqa: F401 - the query path this test goes through

    home = tmp_path / "home"
    home.mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The lighthouse keeper wrote in his logbook every night.\n", encoding="utf-8")
    text_image(["Volcano observatory report", "Lava flow to the sea"]).save(docs / "scan.png")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\nthreads = 1\n',
                                      encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("SEARCHAPP_NO_QUERY_EXPORT", "XDG_CACHE_HOME",
                                                            "XDG_DATA_HOME", "XDG_CONFIG_HOME", "ORT_DISABLE_TELEMETRY")}
    env.update(HOME=str(home), SEARCHAPP_NO_WARM="1", **{ENGINE_ENV: OCR_ENGINE})

    def searchapp(*commands: list[str]) -> list[str]:
        """Run `commands` one after another in one fresh `python -m searchapp`-like process (its entry point, called
        once per command: starting Python was most of this test's CPU); what each printed."""
        code = ("import sys\nfrom searchapp.cli.entry import main\nrcs = []\n"
                f"for argv in {[['--data-dir', str(data), *c] for c in commands]!r}:\n"
                "    print('<<next>>', flush=True)\n    rcs.append(main(argv))\n    sys.stdout.flush()\n"
                "print('<<rcs>>', rcs)\n")
        p = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert p.returncode == 0 and p.stdout.endswith(f"<<rcs>> {[0] * len(commands)}\n"), p.stdout + p.stderr
        return p.stdout.split("<<next>>\n")[1:]

    # OCRs scan.png (RapidOCR's onnxruntime sessions), exports the query model
    searchapp(["index", str(docs)])
    # A second, cold process, as a user's next commands (a cold dense search runs the export's graph with numpy).
    lexical, status, dense = searchapp(["search", "volcano observatory lava", "--mode", "lexical"], ["status"],
                                       ["search", "lighthouse logbook", "--mode", "dense"])
    assert "scan.png" in lexical  # it was OCR'd
    assert "onnxruntime" in status  # the next queries take the ONNX export...
    assert "lighthouse" in dense  # ...as this one did
    assert _files_under(home) == []
