"""A rare word speaks for itself (decision 0162): the candidates that hold a query word few passages hold and the
bi-encoder does not know.

A bi-encoder does not know a case number, a code, an acronym or a foreign name ("BAFA reference"): such a word's
only passage can sit at cosine ~0 while files near the query in meaning but sharing no word sit at 0.25-0.31, and
convex fusion gives the words at most 1 − w = 0.2. So a candidate holding such a query term is fused with the
cosine its words earn when that is more than its own:

    meaning of such a candidate = max(cosine, words share × best cosine among the candidates)

the imputation a candidate with no vector yet already has (fusion.convex_fusion). A term is such a term when at
most RARE_DF passages of the library hold it (the words index's own count) and a query word it stands for is one
the model does not know: its tokenizer splits it into pieces, or it holds a digit. Rarity alone also lifted
ordinary words that a small collection happens to hold seldom ("die", "style", "stand": trecqa −0.33 shown
nDCG@10, 8 queries worse); with the model's vocabulary no collection lost more than 0.06 (docs/decisions/0162).
Nothing here depends on vectors, and the best cosine only rises as vectors are added, so a lifted score only
rises as meaning fills (decision 0109).
"""

from __future__ import annotations

import re
from typing import Callable, Collection

from ...store import Store
from ...store.word_stats import word_terms

__all__ = ["RARE_DF", "rare_terms", "holding"]

# Passages of the library that hold a term, at most, for the term to be rare. Measured on rarity alone: ≤ 1 changed no
# collection's figure by more than 0.06, ≤ 3 cost at most 0.33 and lifted the BAFA note from 3rd to 1st, ≤ 10 cost
# 2.7-3.7; with the vocabulary's gate ≤ 3 cost at most 0.06.
RARE_DF = 3
_WORD = re.compile(r"[^\W_]+")  # letters and digits: the words index's pieces of a query, ASCII or not


def rare_terms(store: Store, text: str, reads_whole: Callable[[str], bool]) -> set[str]:
    """The terms of `text` that at least one and at most RARE_DF passages of the library hold (one read of the
    words index) and that stand for a word the model does not know: `reads_whole(word)` is False (its tokenizer
    splits it), or the word holds a digit. None (an empty set) where the index cannot be read so (word_counts: None)."""
    words = list(dict.fromkeys(_WORD.findall(text)))
    unknown = sorted({t for w, t in zip(words, word_terms(words), strict=True)
                      if t is not None and (any(c.isdigit() for c in w) or not reads_whole(w))})
    counts = store.word_counts(unknown, at_most=RARE_DF + 1) if unknown else None
    if counts is None:
        return set()
    return {t for t, n in counts[1].items() if 1 <= n <= RARE_DF}


def holding(store: Store, rare: Collection[str], candidates: Collection[int]) -> set[int]:
    """Those of `candidates` (passage ids) that hold one of the `rare` terms: the words index's own places of each
    (at most RARE_DF passages a term), not the candidates' texts tokenized again."""
    return store.passages_holding(sorted(rare)) & set(candidates) if rare else set()
