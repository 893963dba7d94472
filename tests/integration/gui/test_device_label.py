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
    assert labels.device.text() == "Device: CPU (2 threads, bf16) · queries: onnxruntime fp32 (1 thread)"
    assert "Passages: torch on CPU (2 threads, bf16)" in labels.device.toolTip()
    labels.show_status(_status(""))  # no bi-encoder installed: nothing to claim about queries
    assert labels.device.text() == "Device: CPU (2 threads, bf16)"


def test_device_tooltip_names_the_passage_precision(qtbot):
    import dataclasses

    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    form = "torch mixed bf16: bf16 matmuls, fp32 LayerNorm and residual sums (2 threads)"
    labels.show_status(dataclasses.replace(_status(""), passage_path=form))
    assert labels.device.toolTip().startswith(f"Passages: {form}\n")


def test_model_label_names_the_pooling_that_runs_not_auto(qtbot, make_config):
    import dataclasses

    bar = QStatusBar()
    qtbot.addWidget(bar)
    labels = StatusLabels(bar)
    config = make_config(models={"bi_encoder": "/m/bge-small", "pooling": "auto"})
    labels.show_models(config, True)
    assert labels.models.text() == "Model: bge-small (auto)"  # nothing read yet
    labels.show_status(dataclasses.replace(_status(""), bi_encoder={"spec": "/m/bge-small", "pooling": "cls"}))
    labels.show_models(config, True)
    assert labels.models.text() == "Model: bge-small (cls)"
    labels.show_models(make_config(models={"bi_encoder": "/m/other", "pooling": "auto"}), False)
    assert labels.models.text() == "Model: other (auto) (loading…)"  # another model's status says nothing of it
    labels.show_models(make_config(models={"bi_encoder": "/m/bge-small", "pooling": "max"}), True)
    assert labels.models.text() == "Model: bge-small (max)"


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
    labels.show_status(_status(""))
    assert labels.index.toolTip() == ""
