"""Which library a command opens: a `postgresql://` address (a shared library) or a data dir (SQLite).

Credentials come the libpq way (decision 0119): a service file, ~/.pgpass, PGPASSWORD, a client certificate.
A password written into the address is refused before anything connects, so none is ever stored in a config file
or shown in a process list by searchapp; TLS is what libpq's `sslmode` gives.
"""

from __future__ import annotations

import os
import re
from typing import Optional
from urllib.parse import parse_qs, urlsplit

from .errors import ConfigError

__all__ = ["is_shared", "checked_address", "masked", "shown", "library_address", "ENV", "LOCAL"]

ENV = "SEARCHAPP_LIBRARY"  # the address from the environment, below --library and above the config
LOCAL = "local"  # `--library local`: this desktop's own library, whatever the environment or the config name
_SCHEMES = ("postgresql://", "postgres://")


def is_shared(value: Optional[str]) -> bool:
    return bool(value) and str(value).lower().startswith(_SCHEMES)


def checked_address(value: str, source: str = "") -> str:
    """`value` when it is an address libpq can take without a password in it; else ConfigError (exit 2), which
    names `source` (where the value came from: `--library`, `$SEARCHAPP_LIBRARY`, `library.address`), as
    library_address's line of a value that is no address does: the person must take the password out there."""
    where = f"{source}: " if source else ""
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ConfigError(f"{where}the shared library address is not a postgresql:// URL: {exc}") from None
    if parts.password is not None or "password=" in (parts.query or "").lower():
        raise ConfigError(f"{where}the shared library address holds a password: put it in ~/.pgpass, a service file "
                          "or PGPASSWORD instead (searchapp never stores one)")
    return value


def shown(value: str) -> str:
    """The address as printed: user, host, port and database; never a query string's options."""
    parts = urlsplit(value)
    # A service's name is no secret and says where host and database are (~/.pg_service.conf): "local socket"
    # was all a service address showed, in status and in the error of a service mistyped.
    service = parse_qs(parts.query).get("service", [""])[0]
    host = parts.hostname or ("" if service else "local socket")
    if ":" in host:  # an IPv6 address: bracketed, so its port stays told apart
        host = f"[{host}]"
    user = f"{parts.username}@" if parts.username else ""
    return (f"postgresql://{user}{host}{_port(parts.netloc)}{parts.path or ''}"
            + (f"?service={service}" if service else ""))


def _port(netloc: str) -> str:
    """":PORT" as written (libpq's error is about a port out of range or not a number, so the address it names
    keeps it, as urlsplit's checked port would not), or "" when none is."""
    after_host = netloc.rpartition("@")[2].rpartition("]")[2]  # past a user and an IPv6 address's colons
    port = after_host.rpartition(":")[2] if ":" in after_host else ""
    return f":{port}" if port else ""


def library_address(flag: Optional[str], configured: Optional[str] = None) -> Optional[str]:
    """The shared library this command opens: --library, else $SEARCHAPP_LIBRARY, else the config's
    `library.address`; None: the data dir's SQLite library, as before (also for `--library local`)."""
    if flag is not None and not flag.strip():
        raise ConfigError("--library is empty (an unset variable?); `--library local` opens this desktop's own "
                          "library")
    if flag == LOCAL:
        return None
    for source, value in (("--library", flag), (f"${ENV}", os.environ.get(ENV)), ("library.address", configured)):
        if value:
            if not is_shared(value):
                raise ConfigError(f"{source} takes a postgresql:// address, got {masked(value)!r} (a data dir is "
                                  "--data-dir)")
            return checked_address(value, source)
    return None


# A password in what is not an address at all (a mistyped scheme, a libpq "key=value" string): the error that
# names the value must not show it on the screen, in a terminal's scrollback or a bug report.
_URL_PASSWORD = re.compile(r"([^:/@\s]*):(?!//)[^@\s]*@")
_KEY_PASSWORD = re.compile(r"(password\s*=\s*)('[^']*'|\S+)", re.IGNORECASE)


def masked(value: str) -> str:
    """`value` with whatever could be a password in it replaced by "***": "user:secret@" and "password=secret"."""
    return _KEY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1:***@", value))
