"""A search whose words no passage holds, typed as a file's name (`sourdough`, `invoice-schmidt`): file names are
not in the words index, so it found only what meaning made of the word, and nothing said that a file of that name
is there. The search says so, and how to list them (`name:`, the query syntax's own way).

Asked only when the words side found nothing for a plain query of a few words (a full scan of the names, ~10-100
ms for 100,000 files, paid only then). The desktop library's: the shared one's names are another dialect's."""

from __future__ import annotations

import re
from typing import Optional

from ...store import Store
from ...store.scope import INDEXED, all_of, name_matches

__all__ = ["named_text", "MAX_WORDS", "SHOWN"]

MAX_WORDS = 4  # a name is a few words; a question is not one
SHOWN = 100  # files counted at most ("100 or more")
_WORD = re.compile(r"\w+", re.UNICODE)


def named_text(store: Store, query: str) -> Optional[str]:
    """"no passage holds sourdough, but 1 file is named like it: `name:sourdough` lists it", or None."""
    words = _WORD.findall(query)
    if not words or len(words) > MAX_WORDS:
        return None
    glob = "*" + "*".join(words) + "*"  # the words in their order, anything between (sourdough-bread, sourdough_bread)
    n = len(store.newest_first(all_of([INDEXED, name_matches([glob])]), SHOWN, by_file=True))
    if not n:
        return None
    # what was counted, in name:'s own terms: a word alone is "contains"; several, the glob itself (the query's text
    # named `name:"sourdough bread"` for sourdough-bread.txt, or `name:sourdough?`: neither lists it)
    field = words[0] if len(words) == 1 else glob
    many = "100 or more files are" if n >= SHOWN else f"{n} file{' is' if n == 1 else 's are'}"
    return (f"no passage holds {query.strip()}, but {many} named like it: `name:{field}` lists "
            f"{'it' if n == 1 else 'them'}")
