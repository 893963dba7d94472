"""The chunker's word-piece ids, kept so that `encode` does not tokenize a passage a second time.

The chunker verifies each passage through `token_offsets_batch`, which tokenizes it anyway: this tokenizer keeps
those ids (no specials) in a bounded cache, and `encode` takes them from there, truncated and given [CLS]/[SEP]
by the tokenizer's own post-processor, instead of tokenizing again. A title put in front of every passage of a
file (ingest/passage_context.py) is joined on from one tokenization of the title (`remember_joined`). Each
shortcut is used only where probes at load show it gives what tokenizing the whole text gives; otherwise
`encode` tokenizes anew (passage_tokenizer.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from .chunking_tokenizer import ChunkingTokenizer
from .transformer import model_inputs

if TYPE_CHECKING:
    from collections import OrderedDict

    from tokenizers import Encoding

__all__ = ["KeptIdsTokenizer"]

# Word-piece ids the chunker computed, kept for `encode` (a sync encodes its passages within a batch of
# BATCH_CHUNKS of chunking them). Bounded: texts never encoded (e.g. split again) age out.
_IDS_CACHE = 8192


class KeptIdsTokenizer(ChunkingTokenizer):
    """ChunkingTokenizer that keeps the ids it makes for `encode` (BiEncoder sets the attributes below)."""

    _tokenizer: Any  # transformers' (or tokenizer_file's) tokenizer: the reference the probes compare with
    _ids_cache: "OrderedDict[str, Encoding]"  # text -> its ids, no specials
    _n_specials: int
    _input_names: tuple[str, ...]
    _reuse_ids: bool
    _join_ids: bool
    _prompt_head: Optional["Encoding"]

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """ChunkingTokenizer's, and the ids are kept for `encode`, so a passage the chunker verified is not
        tokenized twice."""
        texts = list(texts)
        if not texts:
            return []
        with self._offsets_lock:
            encs = self._offsets_tokenizer.encode_batch(texts, add_special_tokens=False)
            if self._reuse_ids:
                cache = self._ids_cache
                for t, enc in zip(texts, encs, strict=True):
                    cache[t] = enc
                    cache.move_to_end(t)
                while len(cache) > _IDS_CACHE:
                    cache.popitem(last=False)
        return [enc.offsets for enc in encs]

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None:
        """Keep for `encode` the ids of each `joined[i]` (= prefix + line break + texts[i], see
        ingest/passage_context.py) made from the chunker's ids of texts[i] and one tokenization of `prefix`: a
        title in front of every passage costs one tokenization per file, not a second one per passage. Only for
        tokenizers where this equals tokenizing the joined text (checked once); others tokenize it in `encode`."""
        if not self._join_ids:
            return
        from tokenizers import Encoding

        with self._offsets_lock:
            cache = self._ids_cache
            found = [(cache.get(text), whole) for text, whole in zip(texts, joined, strict=True)]
            if all(enc is None for enc, _ in found):  # no passage was tokenized on its own: nothing to join
                return
            head = cache.get(prefix) or self._offsets_tokenizer.encode(prefix, add_special_tokens=False)
            for (enc, whole), text in zip(found, texts, strict=True):
                if enc is not None and whole != text:
                    cache[whole] = Encoding.merge([head, enc], growing_offsets=True)
                    cache.move_to_end(whole)
            while len(cache) > _IDS_CACHE:
                cache.popitem(last=False)

    def _finish(self, enc: "Encoding", names: Sequence[str]) -> dict[str, list[int]]:
        """A chunker encoding (no specials) → model inputs: truncated, then the tokenizer's own specials."""
        enc.truncate(self.max_seq_length - self._n_specials)
        enc = self._offsets_tokenizer.post_process(enc, None, True)
        row = {"input_ids": enc.ids, "attention_mask": enc.attention_mask, "token_type_ids": enc.type_ids}
        return {k: v for k, v in row.items() if k in names}

    def _joining_matches_tokenizer(self) -> bool:
        """Whether ids(prefix) + ids(text) == ids(prefix + "\n" + text) for this tokenizer (WordPiece: yes;
        tokenizers that mark a word's leading space may not be)."""
        from tokenizers import Encoding

        prefix, text = "Probe title: one tokenization", "per passage, checked once."
        try:
            tok = self._offsets_tokenizer
            merged = Encoding.merge([tok.encode(prefix, add_special_tokens=False),
                                     tok.encode(text, add_special_tokens=False)], growing_offsets=True)
            return merged.ids == tok.encode(f"{prefix}\n{text}", add_special_tokens=False).ids
        except Exception:
            return False

    def _prompt_joins(self, prompt: str) -> Optional["Encoding"]:
        """The ids of `prompt` alone if ids(prompt) + ids(text) == ids(prompt + text) on probe texts (WordPiece
        with a prompt ending in a space or colon: yes), else None."""
        from tokenizers import Encoding

        tok = self._offsets_tokenizer
        try:
            head = tok.encode(prompt, add_special_tokens=False)
            for text in ("Probe passage, checked once.", "ünïcödé 東京 12,345"):
                merged = Encoding.merge([head, tok.encode(text, add_special_tokens=False)], growing_offsets=True)
                if merged.ids != tok.encode(prompt + text, add_special_tokens=False).ids:
                    return None
            return head
        except Exception:  # each passage is tokenized with its prompt instead
            return None

    def _reuse_matches_tokenizer(self) -> bool:
        """Whether `_finish` reproduces the tokenizer's own output (else `encode` always tokenizes anew)."""
        probe = "Probe: one tokenization per passage, checked once. " * 40
        try:
            mine = self._finish(self._offsets_tokenizer.encode(probe, add_special_tokens=False), self._input_names)
            ref = model_inputs(self._tokenizer, self._tokenizer(probe, truncation=True, max_length=self.max_seq_length))
            return all(list(ref[k]) == mine.get(k) for k in ref)
        except Exception:  # a tokenizer without these hooks simply tokenizes twice
            return False
