"""An encoder stand-in that loads the real bi-encoder on first use.

A sync of an unchanged library reads no file and embeds nothing, so it must not pay for torch,
transformers and the weights (seconds); the sync code gets this proxy and never knows the difference.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["LazyEncoder"]


class LazyEncoder:
    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = load

    @property
    def loaded(self) -> bool:
        return "_real" in self.__dict__

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_load", "_real"):
            raise AttributeError(name)
        real = self.__dict__.get("_real")
        if real is None:
            real = self.__dict__["_real"] = self._load()
        return getattr(real, name)
