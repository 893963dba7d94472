"""The characters that separate words for both the chunker and a tokenizer that reads words alone."""

from __future__ import annotations

__all__ = ["SEPARATORS"]

# What every tokenizer that reads words alone (models/word_pieces.reads_words_alone) splits at, before and after
# its normalizer: space, tab, line breaks and the Unicode space separators (Zs). Not all of isspace(): BERT's
# normalizer deletes \x0b, \x0c, \x1c-\x1f and \x85, so a word may run across them.
SEPARATORS = frozenset(" \t\n\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                       "\u202f\u205f\u3000")
