"""Pooling, smart batching and device/dtype choice: pure functions on tiny tensors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from searchapp.base.errors import ConfigError
from searchapp.models import batching, device, pooling


@pytest.fixture
def padded_batch() -> tuple[torch.Tensor, torch.Tensor]:
    # Two sentences: 3 real tokens, and 1 real token + 2 padding tokens whose values must be ignored.
    emb = torch.tensor(
        [
            [[1.0, 2.0], [3.0, -4.0], [5.0, 0.0]],
            [[2.0, -1.0], [100.0, 100.0], [-100.0, 50.0]],
        ]
    )  # (batch=2, seq=3, dim=2)
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    return emb, mask


def test_mean_pooling_excludes_padding(padded_batch):
    emb, mask = padded_batch
    out = pooling.pool(emb, mask, "mean")
    assert torch.allclose(out, torch.tensor([[3.0, -2.0 / 3.0], [2.0, -1.0]]))


def test_cls_pooling_takes_first_real_token(padded_batch):
    emb, mask = padded_batch
    assert torch.equal(pooling.pool(emb, mask, "cls"), torch.tensor([[1.0, 2.0], [2.0, -1.0]]))
    # Left padding: the first real token is not at position 0.
    left = torch.tensor([[0, 1, 1], [0, 0, 1]])
    assert torch.equal(pooling.pool(emb, left, "cls"), torch.tensor([[3.0, -4.0], [-100.0, 50.0]]))


def test_max_pooling_never_picks_padding(padded_batch):
    emb, mask = padded_batch
    assert torch.equal(pooling.pool(emb, mask, "max"), torch.tensor([[5.0, 2.0], [2.0, -1.0]]))


def test_pooling_runs_in_float32_from_bf16(padded_batch):
    emb, mask = padded_batch
    out = pooling.pool(emb.to(torch.bfloat16), mask, "mean")
    assert out.dtype == torch.float32


def test_mean_of_all_padding_row_is_zero_not_nan():
    out = pooling.pool(torch.ones(1, 2, 3), torch.zeros(1, 2, dtype=torch.long), "mean")
    assert torch.equal(out, torch.zeros(1, 3))


def test_pooling_registry_is_extensible():
    assert set(pooling.pooling_modes()) >= {"mean", "cls", "max"}
    with pytest.raises(ValueError, match="unknown pooling"):
        pooling.pool(torch.zeros(1, 1, 1), torch.ones(1, 1), "nope")
    pooling.register_pooling("_test_needs_layers", lambda e, m, hs: hs[-1][:, 0].float(), needs_hidden_states=True)
    try:
        with pytest.raises(ValueError, match="hidden states"):
            pooling.pool(torch.zeros(1, 1, 2), torch.ones(1, 1), "_test_needs_layers")
        out = pooling.pool(torch.zeros(1, 1, 2), torch.ones(1, 1), "_test_needs_layers", hidden_states=[torch.ones(1, 1, 2)])
        assert torch.equal(out, torch.ones(1, 2))
    finally:
        del pooling.POOLING_MODES["_test_needs_layers"]


def test_length_sorted_batches_longest_first_and_stable():
    lengths = [3, 9, 1, 9, 5, 2, 7]
    batches = batching.length_sorted_batches(lengths, 3)
    assert batches == [[1, 3, 6], [4, 0, 5], [2]]
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert batching.length_sorted_batches([], 4) == []
    with pytest.raises(ValueError):
        batching.length_sorted_batches([1], 0)


def test_restore_order_inverts_the_batching():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 50, size=23).tolist()
    values = rng.normal(size=(23, 4)).astype(np.float32)
    batches = batching.length_sorted_batches(lengths, 5)
    per_batch = [values[b] for b in batches]  # what an encoder returns, batch by batch
    assert np.array_equal(batching.restore_order(batches, per_batch), values)
    with pytest.raises(ValueError):
        batching.restore_order(batches, per_batch[:-1])


def test_choose_device_and_dtype(monkeypatch):
    cpu = device.choose_device("cpu")
    assert cpu.type == "cpu"
    if not torch.cuda.is_available():
        assert device.choose_device("auto").type == "cpu"
    assert device.choose_dtype(cpu, "fp32") == torch.float32
    assert device.choose_dtype(cpu, "bf16") == torch.bfloat16
    with pytest.raises(ConfigError):
        device.choose_dtype(cpu, "fp16")
    with pytest.raises(ConfigError):
        device.choose_dtype(cpu, "int3")
    assert device.choose_dtype(torch.device("cuda"), "auto") == torch.float16
    monkeypatch.setattr(device, "cpu_prefers_bf16", lambda: True)
    assert device.choose_dtype(cpu, "auto") == torch.bfloat16
    monkeypatch.setattr(device, "cpu_prefers_bf16", lambda: False)
    assert device.choose_dtype(cpu, "auto") == torch.float32
    assert device.device_description(cpu).startswith("CPU (")
    assert "bf16" in device.device_description(cpu, torch.bfloat16)


def test_cpu_bf16_detection_reads_cpuinfo_flags(monkeypatch):
    device.cpu_has_native_bf16.cache_clear()
    try:
        monkeypatch.setattr(device, "_cpuinfo_flags", lambda: {"avx2", "avx512_bf16"})
        assert device.cpu_has_native_bf16()
        device.cpu_has_native_bf16.cache_clear()
        monkeypatch.setattr(device, "_cpuinfo_flags", lambda: {"avx2", "fma"})
        assert not device.cpu_has_native_bf16()
    finally:
        device.cpu_has_native_bf16.cache_clear()


def test_auto_picks_bf16_only_where_it_was_measured_faster():
    from searchapp.models.cpu import bf16_pays

    assert bf16_pays({"avx2", "avx512_bf16"}, "AuthenticAMD")  # Zen 4: 2.3x fp32
    assert not bf16_pays({"avx2", "avx512_bf16"}, "GenuineIntel")  # Xeon without AMX: 0.7x fp32
    assert bf16_pays({"avx512_bf16", "amx_bf16", "amx_tile"}, "GenuineIntel")
    assert not bf16_pays({"avx2", "fma"}, "AuthenticAMD")
    assert not bf16_pays(set(), "")


def test_status_line_and_choose_dtype_agree_on_this_cpu():
    from searchapp.models.device_summary import describe_device

    want = "bf16" if device.cpu_prefers_bf16() else "fp32"
    assert device.choose_dtype(torch.device("cpu"), "auto") == device.PRECISIONS[want]
    assert describe_device("cpu").endswith(f"{want})")


def test_passage_path_says_which_precision_form_runs(monkeypatch):
    from searchapp.models.device_summary import describe_passage_path

    assert describe_passage_path("cpu", "fp32", 2) == "torch fp32 (2 threads)"  # the suite: SEARCHAPP_NO_BACKGROUND_PRIORITY
    monkeypatch.delenv("SEARCHAPP_NO_BACKGROUND_PRIORITY")  # a sync fits its threads to the machine (cpu_share.py)
    assert describe_passage_path("cpu", "fp32", 2) == "torch fp32 (2 threads, fewer while other programs keep the cores busy)"
    assert describe_passage_path("cpu", "fp32", 1) == "torch fp32 (1 thread)"
    monkeypatch.setenv("SEARCHAPP_NO_BACKGROUND_PRIORITY", "1")
    bf16 = describe_passage_path("cpu", "bf16", 1)
    assert bf16.startswith("torch mixed bf16: bf16 matmuls, fp32 LayerNorm") and bf16.endswith("(1 thread)")
    auto = describe_passage_path("cpu", "auto", 2)
    assert ("mixed bf16" in auto) == (device.choose_dtype(torch.device("cpu"), "auto") == torch.bfloat16)
    assert describe_passage_path("cpu", "fp16", 2).startswith("none: ")  # refused on the CPU, as at load
    assert describe_passage_path("cpu", "fp32", 2, fused=True) == "torch fp32; fused BERT layers (2 threads)"


def test_status_knows_which_poolings_read_only_the_last_layer():
    from searchapp.models.device_summary import LAST_LAYER_POOLINGS
    from searchapp.models.pooling import needs_hidden_states, pooling_modes

    # status says "fused" without importing torch, so it keeps its own list; it must be the registry's
    assert set(LAST_LAYER_POOLINGS) == {m for m in pooling_modes() if not needs_hidden_states(m)}


def test_identity_tells_a_plain_bert_from_other_models(packaged_model_dir, tiny_bi_encoder_dir,
                                                                       tmp_path):
    import json
    import shutil

    from searchapp.models.identity import bi_encoder_identity

    assert bi_encoder_identity(str(packaged_model_dir), pooling="mean").plain_bert  # MiniLM: what the CPU fuses
    assert bi_encoder_identity(str(tiny_bi_encoder_dir), pooling="mean").plain_bert
    for key, value in (("model_type", "roberta"), ("hidden_act", "silu"), ("position_embedding_type", "relative_key")):
        folder = tmp_path / key
        shutil.copytree(tiny_bi_encoder_dir, folder)
        cfg = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps({**cfg, key: value}))
        assert not bi_encoder_identity(str(folder), pooling="mean").plain_bert, key


def test_the_status_line_does_not_wait_for_torch_another_thread_is_importing(monkeypatch):
    """A first sync imports torch on its thread (the model loaded ahead) while the window reads the status: torch in
    sys.modules already, half imported, sent the status to import what needs it, which waited for that import to end
    (the window's counts stood at "0 so far" through the words pass). Half imported, it is not asked."""
    import importlib.machinery
    import sys
    import types

    from searchapp.models.device_summary import describe_device

    half = types.ModuleType("torch")
    half.__spec__ = importlib.machinery.ModuleSpec("torch", None)
    half.__spec__._initializing = True  # as importlib marks a module while its code runs
    monkeypatch.setitem(sys.modules, "torch", half)
    monkeypatch.setitem(sys.modules, "searchapp.models.device", None)  # importing it now raises: never asked
    assert describe_device("cpu").startswith("CPU (")
