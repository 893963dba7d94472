"""How many intra-op threads each of the bi-encoder's batches runs on.

A sync's batches (`encode(..., background=True)`) run on the CPU beside the user's other programs: before each
batch, the threads they leave free are read (base/cpu_share.py), at least one and at most the setting, so a busy
machine stays responsive and a quiet one gets every thread asked for. Other batches use the setting; a query
runs on one thread (bi_encoder.py `encode_query`). Off the CPU torch's own setting stands.
"""

from __future__ import annotations

import torch

from ..base.cpu_share import CpuShare, threads_beside, usable_cores

__all__ = ["EncodeThreads"]


class EncodeThreads:
    """The thread choice of a BiEncoder (which sets the attributes below)."""

    device: torch.device
    threads: int  # models.threads (0: torch's setting)
    last_threads: int  # what the last batch ran on
    _cpu_share: CpuShare
    _configured_threads: int  # the setting, read once at load
    _background_threads: int  # the last fit of a background batch's threads (0: none yet)

    def _batch_threads(self, background: bool) -> int:
        """The intra-op threads for the next batch (0: torch's setting, off the CPU)."""
        configured = self._configured_threads
        if background and self.device.type == "cpu" and configured > 1:
            share = self._cpu_share.read()  # since the previous batch (or call)
            if share is not None:
                self._background_threads = threads_beside(configured, share[0], usable_cores())
            threads = self._background_threads or configured
        else:
            threads = configured if self.device.type == "cpu" else self.threads
        self.last_threads = threads or configured
        return threads

    def stepping_aside(self) -> tuple[int, int]:
        """(threads the last background batch used, the setting): fewer while other programs keep the CPU busy."""
        return (self._background_threads or self._configured_threads), self._configured_threads
