"""A library written before decision 0177 may hold the text of a file that holds a secret: its passages go at the
next full sync. A file named like one is left out by every scan (ingest/scan.py), so only the rule on a text
needs this: once per library, the entries whose stored text may be a secret's are read again, and a sync that
finds a secret in them takes their passages out (words_pass.py). Looking at every file's text again would cost a
library of PDFs an hour; the stored passages say, in one query, which few may hold one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store.ledger import read_again_where_text_holds

if TYPE_CHECKING:
    from ...store import Store

__all__ = ["SECRETS_META", "SECRETS_RULE", "recheck_secrets"]

SECRETS_META = "secrets_rule"  # the version of the rule on secrets' text this library's entries were read under
SECRETS_RULE = "1"


def recheck_secrets(store: Store) -> None:
    """Mark for reading again, once, the entries whose passages may hold a private key (its header's words) or
    begin as a list of passwords (ingest/secrets.py says which are)."""
    if store.get_meta(SECRETS_META) == SECRETS_RULE:
        return
    with store.atomic():
        read_again_where_text_holds(store, "PRIVATE KEY", "password")
        store.set_meta(SECRETS_META, SECRETS_RULE)
