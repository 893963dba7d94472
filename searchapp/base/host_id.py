"""Which computer this is, as a shared library tells two desktops of one machine name apart (decision 0149).

The operating system's own id of the installation (systemd's /etc/machine-id, D-Bus's copy of it, Windows'
MachineGuid), hashed with this app's name: the library keeps a digest that says "the same computer or not" and
nothing another program could match to the raw id. None where the system keeps no such id (then nothing is
checked: a name clash there stays the person's to avoid, as before).
"""

from __future__ import annotations

import hashlib
import sys
from typing import Optional

__all__ = ["host_id"]

_FILES = ("/etc/machine-id", "/var/lib/dbus/machine-id")
_MAX_BYTES = 256  # a machine id is 33 bytes; anything longer there is not one


def _raw() -> Optional[str]:
    if sys.platform == "win32":
        try:
            import winreg

            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography") as key:
                return str(winreg.QueryValueEx(key, "MachineGuid")[0])
        except OSError:
            return None
    for path in _FILES:
        try:
            with open(path, "rb") as f:
                got = f.read(_MAX_BYTES).strip()
        except OSError:
            continue
        if got:
            return got.decode("ascii", "replace")
    return None


def host_id() -> Optional[str]:
    """A digest of this installation's id, or None where there is none."""
    raw = _raw()
    return None if raw is None else hashlib.sha256(b"searchapp host:" + raw.encode()).hexdigest()[:32]
