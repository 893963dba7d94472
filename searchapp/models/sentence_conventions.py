"""What the sentence-transformers convention records beside a bi-encoder's weights, read as data (no torch).

  modules.json                        the modules in order: a Pooling module's folder, a Normalize module
  1_Pooling/config.json               which pooling (pooling_mode_cls_token / _mean_tokens / _max_tokens)
  config_sentence_transformers.json   `prompts` (name -> text put in front of the input), `default_prompt_name`

Only JSON is read, each file capped (MAX_JSON_BYTES); nothing of the model's own code is imported or run.
Prompts: "query" is put in front of queries, "passage" (or "document", "text", "corpus") in front of passages;
a `default_prompt_name` serves a side without a named prompt, as sentence-transformers' encode() does. Where
a model's files name no prompts but its model card asks for them (bge and arctic put an instruction in front
of queries, e5 "query: " / "passage: " in front of both), MODEL_CARD_PROMPTS supplies them for that hub id
(decision 0112). What is read here is part of the library's identity (models/identity.py): the pooling and the
passage prompt change every passage vector, the query prompt changes none.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from ..base.errors import ModelLoadError
from ..base.terminal import printable
from .config_json import read_config_json
from .policy import REPO_FOLDER_PREFIX, repo_id_of_folder

__all__ = ["Conventions", "read_conventions", "resolve_pooling", "MODEL_CARD_PROMPTS", "MAX_JSON_BYTES",
           "MAX_PROMPT_CHARS", "describe_prompt", "LibraryKeep", "library_keep"]

MAX_JSON_BYTES = 64 * 1024  # these files are a few hundred bytes; a bigger one is not a config
MAX_PROMPT_CHARS = 1000  # the longest prompts in use are one sentence of instruction
_QUERY_NAMES = ("query", "search_query")
_PASSAGE_NAMES = ("passage", "document", "text", "corpus", "search_document")
# sentence-transformers' Pooling flags -> our pooling names; the others (weighted mean, last token, mean/sqrt(len))
# are not offered here: "auto" refuses such a model in one line instead of pooling it another way.
_ST_POOLING = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean", "pooling_mode_max_tokens": "max",
               "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len", "pooling_mode_weightedmean_tokens": "weightedmean",
               "pooling_mode_lasttoken": "lasttoken"}
_OFFERED = ("mean", "cls", "max")

# (query prompt, passage prompt) from each model card, for the models the app offers (models/hub/plan.py), used
# only when the model's own files name no prompts (older uploads predate `prompts`).
MODEL_CARD_PROMPTS: dict[str, tuple[str, str]] = {
    "BAAI/bge-small-en-v1.5": ("Represent this sentence for searching relevant passages: ", ""),
    "Snowflake/snowflake-arctic-embed-xs": ("Represent this sentence for searching relevant passages: ", ""),
    "Snowflake/snowflake-arctic-embed-s": ("Represent this sentence for searching relevant passages: ", ""),
    "intfloat/e5-small-v2": ("query: ", "passage: "),
    "intfloat/multilingual-e5-small": ("query: ", "passage: "),
}


@dataclass(frozen=True)
class Conventions:
    pooling: Optional[str]  # declared by a Pooling module (a sentence-transformers name), None: none declared
    normalize: bool  # modules.json lists a Normalize module
    query_prompt: str = ""
    passage_prompt: str = ""
    prompts_from: str = ""  # "model files" | "model card" | "" (no prompts)


def read_conventions(path: Path, *, prompts: bool = True) -> Conventions:
    """The pooling, normalization and prompts the model folder `path` declares (beside its weights, or one
    level up where the weights sit in a module folder). Raises ModelLoadError (one line) for a file that is
    not a regular file, too big, not JSON or of the wrong shape. `prompts` False: none, whatever the model
    declares (a library built before prompts were read: library_keep)."""
    folder = _convention_folder(Path(path))
    modules = _read_json(folder / "modules.json", list) or []
    pooling_dir, normalize = None, False
    for mod in modules:
        kind = str(mod.get("type", "")) if isinstance(mod, dict) else ""
        if kind.endswith(".Pooling") and pooling_dir is None:
            pooling_dir = str(mod.get("path") or "")
        normalize = normalize or kind.endswith(".Normalize")
    if pooling_dir is None and (folder / "1_Pooling").is_dir():
        pooling_dir = "1_Pooling"
    pooling = None
    if pooling_dir:
        if ".." in Path(pooling_dir).parts or Path(pooling_dir).is_absolute():
            raise ModelLoadError(f"{folder / 'modules.json'}: a module path leaves the model folder")
        pooling = _declared_pooling(folder / pooling_dir / "config.json")
    query, passage = _prompts(folder / "config_sentence_transformers.json")
    source = "model files" if query or passage else ""
    if not prompts:
        return Conventions(pooling, normalize)
    if not source:
        card = MODEL_CARD_PROMPTS.get(_hub_id(folder) or "")
        if card:
            query, passage, source = card[0], card[1], "model card"
    return Conventions(pooling, normalize, query, passage, source)


def resolve_pooling(configured: str, conventions: Conventions, where: object = "the model") -> str:
    """The pooling to run: the configured one, or for "auto" the model's declared one (mean when it declares
    none). A declared pooling the app does not offer is refused in one line."""
    if configured != "auto":
        return configured
    declared = conventions.pooling
    if declared is None:
        return "mean"
    if declared not in _OFFERED:
        raise ModelLoadError(f"{where} declares {declared} pooling, which searchapp does not offer; set "
                             "models.pooling to mean, cls or max to use it anyway")
    return declared


@dataclass(frozen=True)
class LibraryKeep:
    """How a library's models run: `pooling` in place of models.pooling, `prompts` whether the model's are used."""
    pooling: str
    prompts: bool = True

    @property
    def kept(self) -> bool:
        return not self.prompts


def library_keep(configured: str, meta: Mapping[str, str], has_vectors: bool) -> LibraryKeep:
    """A library that has vectors and records no passage prompt was built before searchapp read a model's
    pooling and prompts (decision 0112, "Review mends"): it keeps running as it was built, with no prompts and,
    under "auto", the pooling it recorded (then the default, mean), so an upgrade refuses no search. `status`
    says that the model declares others and that `searchapp reindex` would use them; a reindex empties the
    library first, so it takes the model's. A new library, or one built since, takes the model's; an explicit
    pooling wins."""
    if not has_vectors or "passage_prompt" in meta or not meta.get("model_fingerprint"):
        return LibraryKeep(configured)
    recorded = meta.get("pooling")
    pooling = "mean" if configured == "auto" and recorded == "mean" else configured
    return LibraryKeep(pooling, prompts=False)


def describe_prompt(prompt: Optional[str]) -> str:
    """A prompt as `status` shows it: quoted, shortened; "none" when empty or not read (None)."""
    if not prompt:
        return "none"
    short = prompt if len(prompt) <= 40 else prompt[:37].rstrip() + "…"
    return '"' + printable(short) + '"'


def _convention_folder(path: Path) -> Path:
    # The same rule as sentence_bert_config.json (bi_encoder_loading.sentence_bert_max_seq_length).
    if not (path / "modules.json").is_file() and (path.parent / "modules.json").is_file():
        return path.parent
    return path


def _hub_id(folder: Path) -> Optional[str]:
    """The hub id of a folder of the Hugging Face cache (models--org--name/snapshots/<commit>), else None."""
    repo = folder.parent.parent
    if folder.parent.name != "snapshots" or not repo.name.startswith(REPO_FOLDER_PREFIX):
        return None
    return repo_id_of_folder(repo.name)


def _declared_pooling(file: Path) -> Optional[str]:
    cfg = _read_json(file, dict)
    if cfg is None:
        return None
    on = [name for flag, name in _ST_POOLING.items() if cfg.get(flag) is True]
    mode = cfg.get("pooling_mode")  # newer files may name it directly
    if isinstance(mode, str) and not on:
        on = [{"cls_token": "cls", "mean_tokens": "mean", "max_tokens": "max"}.get(mode, mode)]
    if not on:
        return None
    if len(on) > 1:  # several concatenated: a vector wider than hidden_size, which no pooling here makes
        return "+".join(on)
    return on[0]


def _prompts(file: Path) -> tuple[str, str]:
    cfg = _read_json(file, dict) or {}
    prompts = cfg.get("prompts") or {}
    if not isinstance(prompts, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in prompts.items()):
        raise ModelLoadError(f"{file}: `prompts` is not a table of names to texts")
    if any(len(v) > MAX_PROMPT_CHARS for v in prompts.values()):
        raise ModelLoadError(f"{file}: a prompt longer than {MAX_PROMPT_CHARS} characters")
    default = cfg.get("default_prompt_name")
    fallback = prompts.get(default, "") if isinstance(default, str) else ""

    def named(names: tuple[str, ...]) -> str:
        return next((prompts[n] for n in names if n in prompts), fallback)

    return named(_QUERY_NAMES), named(_PASSAGE_NAMES)


def _read_json(file: Path, kind: type) -> Any:
    """The JSON value in `file` if it is of type `kind`; None when the file is absent."""
    return read_config_json(file, kind, cap=MAX_JSON_BYTES, missing_ok=True)
