"""The window's device label says what encodes passages (the device) and what encodes queries."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar

from searchapp.gui.status_labels import StatusLabels
from searchapp.library import LibraryStatus


def _status(query_path: str) -> LibraryStatus:
    return LibraryStatus(data_dir="/d", roots=[], files={}, chunks=0, vectors=0, consistent=True, failed=[],
                         bi_encoder={}, reranker={}, device="CPU (2 threads, bf16)", query_path=query_path)


def test_device_label_names_the_passage_and_query_paths(qtbot):
    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    labels.show_status(_status("onnxruntime fp32 (1 thread); numpy fp32 for a cold command-line search"))
    # the plain name on the bar (a newcomer's first look met "bf16 · queries: numpy fp32"); the rest on hover
    assert labels.device.text() == "Device: CPU"
    tip = labels.device.toolTip()
    assert tip.startswith("Device: CPU (2 threads, bf16)\n") and "Passages: torch on CPU (2 threads, bf16)" in tip
    assert "Queries: onnxruntime fp32 (1 thread)" in tip
    labels.show_status(_status(""))  # no bi-encoder installed: nothing to claim about queries
    assert labels.device.text() == "Device: CPU" and "Queries: torch" in labels.device.toolTip()


def test_device_tooltip_names_the_passage_precision(qtbot):
    import dataclasses

    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    form = "torch mixed bf16: bf16 matmuls, fp32 LayerNorm and residual sums (2 threads)"
    labels.show_status(dataclasses.replace(_status(""), passage_path=form))
    assert f"\nPassages: {form}\n" in labels.device.toolTip()


def test_model_label_names_the_pooling_that_runs_not_auto(qtbot, make_config):
    import dataclasses

    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    config = make_config(models={"bi_encoder": "/m/bge-small", "pooling": "auto"})
    labels.show_models(config, True)
    assert labels.models.text() == "Model: bge-small"  # its pooling is on hover
    assert labels.models.toolTip() == "/m/bge-small\nPooling: auto"  # nothing read yet
    labels.show_status(dataclasses.replace(_status(""), bi_encoder={"spec": "/m/bge-small", "pooling": "cls"}))
    labels.show_models(config, True)
    assert labels.models.toolTip().endswith("Pooling: cls")
    labels.show_models(make_config(models={"bi_encoder": "/m/other", "pooling": "auto"}), False)
    assert labels.models.text() == "Model: other (loading…)"
    assert labels.models.toolTip().endswith("Pooling: auto")  # another model's status says nothing of it
    labels.show_models(make_config(models={"bi_encoder": "/m/bge-small", "pooling": "max"}), True)
    assert labels.models.text() == "Model: bge-small" and labels.models.toolTip().endswith("Pooling: max")


def test_the_files_count_says_what_it_leaves_out(qtbot):
    """The window counted the files it read and said nothing of the key it left out nor of the programs it never
    opened (decisions 0177, 0180): the count's tooltip says them, as `status` does."""
    import dataclasses

    from searchapp.library.report.status import RootStatus

    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    root = RootStatus("/d", 3, 9, None, not_document_types={".exe": 1, ".png": 2}, folders_left_out={"hidden": 1})
    labels.show_status(dataclasses.replace(_status(""), roots=[root], left_out={"secret": 1, "empty": 2}))
    assert labels.index.toolTip() == ("Left out on purpose: empty: 2 files, secret: 1 file\nAlso met, never opened: "
                                      "3 not documents (.png 2, .exe), 1 folder not walked (hidden: the files in it are "
                                      "not counted)")
    # the files a connection string's password was hidden in (decision 0197), counted as `status` counts them: on
    # the bar after every sync, its sentence on hover; not in the short text a long summary leaves it room for
    labels.show_status(dataclasses.replace(_status(""), roots=[root], chunks=40, passwords_hidden=2))
    assert labels.index.text() == "Library: 40 passages in 0 files · 2 files with a password hidden"
    assert labels.index.toolTip().endswith("\nPasswords hidden: 2 files hold a connection string whose password is "
                                           "not in the library")
    assert "hidden" not in labels.short[labels.index]
    labels.show_status(_status(""))
    assert labels.index.toolTip() == "" and "hidden" not in labels.index.text()
