"""Lazy re-exports for packages whose modules import heavy dependencies (torch, numpy, hnswlib): importing the
package stays cheap, and a name loads its module on first use."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing stays unloaded: the thin entry point (cli/entry.py) starts through here
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str], namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Module `__getattr__` / `__dir__` that import `name` from `package.where[name]` on first use and cache it."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{where[name]}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
