"""The MCP server's runtime: the store, a retriever, the job worker thread and the
session ids that every tool works with (``Runtime``), and its start-up warm-up.

Its own module, below both the server (app/mcp/server.py, which builds one and binds
the tools to it) and the tool modules (app/mcp/tools_read.py, app/mcp/tools_write.py,
which take it as an argument): the tools need its type, the server needs the tools, and
neither imports the other.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.mcpserver import Context

from memdesk.app.mcp.common import Scope
from memdesk.app.mcp.identity import LOCAL, Binding, Caller, current_caller
from memdesk.core.curation.at_write import WRITE_HOOKS
from memdesk.core.embeddings import (
    Embedder,
    EmbeddingsUnavailable,
    Encoder,
    fast_start_ready,
)
from memdesk.core.errors import MemdeskError
from memdesk.core.guard.access import AccessLog
from memdesk.core.guard.origin import AgentOrigin
from memdesk.core.ids import new_id, utcnow
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.units import Extractor
from memdesk.core.write.when import episode_dates
from memdesk.core.write.worker import Worker, WorkerConfig

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("memdesk.mcp")

# How long a retrieve that arrives before the model has loaded waits for it before it
# answers from the keyword and graph channels, saying so: on the fast path (ONNX
# Runtime with its exported model: a first vector about a second after start) up to
# FAST_READY_WAIT_S, so a host that spawns a server per conversation gets a full answer
# to its first question; on PyTorch (tens of seconds on a loaded machine) not at all.
# MEMDESK_MCP_READY_WAIT_S sets it either way (bench/bench_cold_start.py times both).
FAST_READY_WAIT_S = 3.0
READY_WAIT_ENV = "MEMDESK_MCP_READY_WAIT_S"


def _ready_wait_s(default: float) -> float:
    try:
        value = float(os.environ.get(READY_WAIT_ENV, default))
    except ValueError:
        return default
    return value if 0.0 <= value <= 600.0 else default


# On PyTorch the model starts loading once the first tool call is answered, or this
# long after the server is up if none comes first: importing torch holds the
# interpreter for seconds (tens on a loaded machine), and done at once it slowed the
# handshake and the first (keyword channel) call several times over.  The fast path
# loads at once (importing ONNX Runtime takes a fraction of a second).
WARM_DELAY_S = 3.0


class NoVectors(Embedder):
    """The embedder of a server started with ``--no-vectors``: always unavailable, so the
    retriever runs its keyword and graph channels and still injects preferences.  An
    Embedder (the retriever's type) whose model never loads."""

    vectorless = True  # the retriever asks it first, before it imports torch

    def load(self) -> Encoder:
        raise EmbeddingsUnavailable("vectors are off (memdesk mcp --no-vectors)")

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise EmbeddingsUnavailable("vectors are off (memdesk mcp --no-vectors)")


class Runtime:
    """The server's state: the store, a retriever, the job worker thread, session ids."""

    def __init__(self, store: MemoryStore, extractor: Extractor, *, vectors: bool = True,
                 transport: str = "stdio", poll_s: float = 1.0,
                 binding: Binding | None = None, token: str | None = None) -> None:
        self.store = store
        # The token a stdio server runs as (MEMDESK_MCP_TOKEN; None over HTTP, where
        # each request presents its own): its state is read before every call.
        self.token = token
        self.binding = binding or Binding()
        self.scope = Scope(self.binding)
        # Every tool call, reads included, with the caller's token (the operator's
        # access log: File → Agent tokens…, memdesk tokens list / log).
        self.access = AccessLog(store)
        # Set once the model has loaded (at start when vectors are off).
        self.ready = threading.Event()
        self._answered = threading.Event()  # a first tool call has been answered
        self._keyword: Retriever | None = None
        self._rewarm = threading.Event()
        self.transport = transport
        self.vectors = vectors
        # Cheap to ask (no import): whether the model loads in about a second here.
        self.fast_start = vectors and fast_start_ready()
        self.ready_wait_s = _ready_wait_s(FAST_READY_WAIT_S if self.fast_start else 0.0)
        self.retriever = Retriever(store, ReadConfig(), embedder=None if vectors else NoVectors())
        self.worker = Worker(store, extractor, WorkerConfig(embed=vectors),
                             hooks=WRITE_HOOKS)
        self.poll_s = poll_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memdesk-mcp-worker",
                                        daemon=True)
        self._sessions: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    # -- the job worker ---------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()
        if not self.vectors:
            self.ready.set()  # no model to wait for
        threading.Thread(target=self._warm_up, name="memdesk-mcp-warmup", daemon=True).start()

    def call_answered(self) -> None:
        """A tool call was answered: the handshake is over, the model may load now."""
        self._answered.set()

    def _warm_up(self) -> None:
        if not self.fast_start:
            self._answered.wait(WARM_DELAY_S)
        try:
            if self.vectors:  # load the model now, not on the first retrieve
                started = time.perf_counter()
                try:
                    embedder = self.retriever.embedder()
                    embedder.encode(["warm up"])
                    log.warning("vectors ready: the model loaded in %.1f s (%s)",
                                time.perf_counter() - started,
                                getattr(embedder, "runtime", None) or "a custom embedder")
                    if getattr(embedder, "fallback_reason", None):
                        log.warning("%s", embedder.fallback_reason)
                except EmbeddingsUnavailable as exc:
                    log.warning("vectors unavailable: %s", exc)
        finally:
            self.ready.set()
        # Ready for every channel now; recent users' snapshots are built meanwhile
        # (a call that comes first builds its own).
        self._warm_snapshots()
        self._answered.wait(WARM_DELAY_S)  # the first call goes first
        self._warm_write_path()

    def _warm_write_path(self) -> None:
        """Load what the first ``store_memory`` job would, off the call path: the
        offline extractor's parser (spaCy, which imports torch when it is installed)
        and the date reader (dateparser).  Seconds in a fresh process, which the first
        stored turn otherwise waited on (store → retrievable)."""
        try:
            getattr(self.worker.extractor, "parser", None)  # loads it (an LLM: nothing)
            episode_dates("I went hiking last Saturday.", utcnow())
        except Exception as exc:  # a broken parser shows on the job, not here
            log.warning("write path warm-up: %s", exc)

    async def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait (bounded: ``ready_wait_s`` unless given) for the start-up warm-up;
        whether it is done."""
        timeout = self.ready_wait_s if timeout is None else timeout
        if self.ready.is_set() or timeout <= 0:
            return self.ready.is_set()
        return await anyio.to_thread.run_sync(self.ready.wait, timeout)

    def readiness_note(self) -> str | None:
        return None if self.ready.is_set() else (
            "the server is still loading its model: this job is processed once it has")

    def keyword_retriever(self) -> Retriever:
        """A retriever without vectors, for calls that arrive while the model loads."""
        if self._keyword is None:
            self._keyword = Retriever(self.store, ReadConfig(), embedder=NoVectors())
        return self._keyword

    def memories_changed(self) -> None:
        """An agent changed memories: rebuild the stale snapshots off the call path."""
        self._rewarm.set()
        self._wake.set()

    def _warm_snapshots(self) -> None:
        """Build recently active users' snapshots off the call path (docs/retrieval.md)."""
        try:
            self.retriever.warm()
        except MemdeskError as exc:  # a locked or closed store: the next call builds it
            log.warning("snapshot warm-up: %s", exc)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                if self.worker.run(drain=True) or self._rewarm.is_set():
                    # A stored memory invalidates its user's snapshot: rebuild the
                    # active users' stale ones here rather than on their next call.
                    self._rewarm.clear()
                    self._warm_snapshots()
            except MemdeskError as exc:  # locked store: try again on the next round
                log.warning("worker: %s", exc)
            except Exception:  # a bug must not end the worker, nor the server
                log.exception("worker failed")
            self._wake.wait(self.poll_s)

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self.worker.stop()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.retriever.flush()
        self.access.close()

    # -- provenance ---------------------------------------------------------------------
    def session_id(self, session: Any) -> str:
        with self._lock:
            try:
                sid = self._sessions.get(session)
                if sid is None:
                    sid = self._sessions[session] = new_id()
            except TypeError:  # not weak-referenceable: one id per object identity
                sid = f"obj-{id(session):x}"
            return sid

    def origin(self, ctx: Context, source: str, caller: Caller | None = None) -> AgentOrigin:
        """Who handed this over: the client, this server's session id, the transport and
        the token's name (the request's caller unless one is given)."""
        caller = caller or current_caller.get()
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        name = _printable(getattr(info, "name", None)) or "unknown"
        version = _printable(getattr(info, "version", None))
        return AgentOrigin(client_name=name, client_version=version,
                           session=self.session_id(ctx.session), transport=self.transport,
                           source=source, token=None if caller is LOCAL else caller.name)


def _printable(value: object, limit: int = 200) -> str | None:
    """A client-supplied name made safe to store and show: printable, bounded."""
    if not isinstance(value, str):
        return None
    text = "".join(ch for ch in value if ch.isprintable())
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text.strip()[:limit] or None
