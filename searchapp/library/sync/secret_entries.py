"""A library written before decision 0177 (keys, password lists), 0184 (access tokens), 0190 (JWTs, credentials
written in config files and shell histories) or 0197 (credentials in JSON files and shell scripts, a connection
string's password) may hold the text of a file that holds a secret: its passages go (or, for a connection string,
are read again with its password hidden) at the next full sync. A file named like one is left out by every scan
(ingest/scan.py), so only the rules on a text need this: once per library and rule, the entries whose stored text
may be a secret's are read again, and a sync that finds a secret in them takes their passages out (words_pass.py).
Looking at every file's text again would cost a library of PDFs an hour; the stored passages say, in one query a
rule, which few may hold one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ingest.connection_strings import CONNECTION_MARKS, connection_passwords
from ...ingest.secrets import JWT_MARKS, TOKEN_MARKS, access_token, token_reason
from ...ingest.written_credentials import NETRC_MARKS, config_like, written_credential
from ...store.ledger import (read_again_where_named, read_again_where_passages_hold, read_again_where_reason,
                             read_again_where_text_holds)

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["SECRETS_META", "SECRETS_RULE", "recheck_secrets"]

SECRETS_META = "secrets_rule"  # the version of the rule on secrets' text this library's entries were read under
# "1": private keys and lists of passwords (decision 0177); "2": access tokens too (decision 0184); "3": JWTs,
# credentials written out in config files, shell histories and .netrc lines, and a Firebase app's key no more
# (decision 0190); "4": credentials in JSON files and shell scripts, and a connection string's password hidden
# (decision 0197); "5": a connection string of keys and values outside a URL (`Server=…;Password=…`; 0197's
# amendment), a fish, PowerShell or Dockerfile credential. A library read under "1" to "4" is asked only for what came
# after.
SECRETS_RULE = "5"


def recheck_secrets(store: Store) -> None:
    """Mark for reading again, once, the entries whose passages may hold a private key (its header's words),
    begin as a list of passwords, hold an access token or a credential written out (ingest/secrets.py and
    ingest/written_credentials.py say which do), and the entries refused for a Google key only a Firebase app's
    config may have held, and those whose passages hold a connection string's password (hidden when read again)."""
    read_under = store.get_meta(SECRETS_META)
    if read_under == SECRETS_RULE:
        return
    with store.atomic():
        if read_under not in ("1", "2", "3", "4"):
            read_again_where_text_holds(store, "PRIVATE KEY", "password")
        if read_under not in ("3", "4"):
            # a prefix finds the candidates (LIKE), the token's own shape says which hold one: "Asia" is no AWS key
            marks = JWT_MARKS if read_under == "2" else TOKEN_MARKS
            read_again_where_passages_hold(store, marks, lambda text: access_token(text) is not None)
            # a .netrc line in any text
            read_again_where_passages_hold(store, NETRC_MARKS, lambda text: written_credential(text, "") is not None)
        # a setting's line only in a file named like a config file (a JSON file now too), a shell history or script
        read_again_where_named(store, lambda path: bool(config_like(path)),
                               lambda path, text: written_credential(text, path) is not None)
        # a connection string's password, in any text: "://" finds every URL, a key's letters every pair, the
        # expressions the few with one
        read_again_where_passages_hold(store, CONNECTION_MARKS, lambda text: bool(connection_passwords(text)))
        if read_under == "2":  # 0.27.0 refused a Firebase web app's source file for its apiKey: read it again
            read_again_where_reason(store, [token_reason("Google")])
        store.set_meta(SECRETS_META, SECRETS_RULE)
