"""A library written before decision 0177 (keys, password lists) or 0184 (access tokens) may hold the text of a
file that holds a secret: its passages go at the next full sync. A file named like one is left out by every scan
(ingest/scan.py), so only the rules on a text need this: once per library and rule, the entries whose stored text
may be a secret's are read again, and a sync that finds a secret in them takes their passages out (words_pass.py).
Looking at every file's text again would cost a library of PDFs an hour; the stored passages say, in one query a
rule, which few may hold one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ingest.secrets import TOKEN_MARKS, access_token
from ...store.ledger import read_again_where_passages_hold, read_again_where_text_holds

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["SECRETS_META", "SECRETS_RULE", "recheck_secrets"]

SECRETS_META = "secrets_rule"  # the version of the rule on secrets' text this library's entries were read under
# "1": private keys and lists of passwords (decision 0177); "2": access tokens too (decision 0184). A library
# read under "1" is asked only for what "2" added.
SECRETS_RULE = "2"


def recheck_secrets(store: Store) -> None:
    """Mark for reading again, once, the entries whose passages may hold a private key (its header's words),
    begin as a list of passwords, or hold an access token (ingest/secrets.py says which are)."""
    read_under = store.get_meta(SECRETS_META)
    if read_under == SECRETS_RULE:
        return
    with store.atomic():
        if read_under != "1":
            read_again_where_text_holds(store, "PRIVATE KEY", "password")
        # a prefix finds the candidates (LIKE), the token's own shape says which hold one: "Asia" is no AWS key
        read_again_where_passages_hold(store, TOKEN_MARKS, lambda text: access_token(text) is not None)
        store.set_meta(SECRETS_META, SECRETS_RULE)
