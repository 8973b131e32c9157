"""``memdesk mcp``: a Model Context Protocol server over one store (official ``mcp`` SDK).

Tools (app/mcp/tools_read.py, app/mcp/tools_write.py): ``store_memory`` (asynchronous:
returns a job id at once; a worker thread in this process extracts and stores),
``job_status``, ``retrieve`` (the hybrid retriever with dispositional preferences),
``get_memory``, ``search_memories``, ``list_memories``, ``memory_history``,
``update_memory`` (a correction that supersedes) and ``forget`` (a soft delete).  Every
tool is annotated, every argument described, every answer typed; arguments are
validated by the SDK against each tool's JSON schema (unknown ones refused) and then by
the core; any refusal comes back as an MCP tool error (``isError``), never as a crash.

A server is bound to the users it serves (``--user``, ``--users-from``;
app/mcp/identity.py): a call names only one of them, and every tool answers only about
them ("not found" otherwise).  An unbound server serves any user id, for one local user;
it says so in its instructions and its log.

Every write carries provenance the agent cannot set: actor ``agent``, the client's
name and version from its initialize request, a session id this server assigns, the
transport.  The agent says whose words the turn holds (``source``), which the
poisoning guard weighs (core/guard/), and may name itself and its run (``agent_id``,
``run_id``).  Operators outrank agents: a memory an operator curated is never changed by
an agent (core/guard/agent_actions.py).

The model loads in the background once the handshake is over (the first tool call
answered, or 3 s after start), then recent users' snapshots are built; a
``retrieve`` that arrives first answers at once from the keyword and graph channels,
with a note (``MEMDESK_MCP_READY_WAIT_S`` makes it wait, bounded).  Database work runs
in worker threads (``anyio.to_thread``) so one slow call never stalls the session's
event loop.  Every tool call is logged with its caller's token (core/guard/access.py).
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer

from memdesk.app.mcp import tools_read as mcp_tools_read
from memdesk.app.mcp import tools_write as mcp_tools_write
from memdesk.app.mcp.common import Scope, forbid_unknown_arguments, record_calls
from memdesk.app.mcp.identity import LOCAL, Binding, Caller, current_caller
from memdesk.app.mcp.lines import serve_stdio
from memdesk.core.curation.at_write import WRITE_HOOKS
from memdesk.core.embeddings import Embedder, EmbeddingsUnavailable
from memdesk.core.errors import MemdeskError
from memdesk.core.guard.access import AccessLog
from memdesk.core.guard.origin import AgentOrigin
from memdesk.core.ids import new_id
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.units import Extractor
from memdesk.core.write.worker import Worker, WorkerConfig

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

log = logging.getLogger("memdesk.mcp")
T = TypeVar("T")
SERVER_NAME = "memdesk"
INSTRUCTIONS = (
    "Long-term memory for one or more users. Call store_memory with what the user said "
    "(it returns a job id; job_status tells when the memories exist), retrieve before "
    "answering, get_memory / search_memories / list_memories to look things up, "
    "update_memory to correct a memory by id, forget to drop one, memory_history to see "
    "what happened to one. Writes that read as instructions to the model, and changes to "
    "memories a human operator curated, are held for the operator's review."
)
# How long a retrieve that arrives before the model has loaded waits for it before it
# answers from the keyword and graph channels, with a note: not at all by default (the
# model takes seconds to load, far more than a first call may wait: < 1.5 s).
# MEMDESK_MCP_READY_WAIT_S changes it (bench/bench_mcp.py --first-contact times both).
def _ready_wait_s(default: float = 0.0) -> float:
    try:
        value = float(os.environ.get("MEMDESK_MCP_READY_WAIT_S", default))
    except ValueError:
        return default
    return value if 0.0 <= value <= 600.0 else default


# The model starts loading once the first tool call is answered, or this long after
# the server is up if none comes first: importing torch holds the interpreter for
# seconds (tens on a loaded machine), and done at once it slowed the handshake and the
# first (keyword channel) call several times over.
WARM_DELAY_S = 3.0
READY_WAIT_S = _ready_wait_s()


def instructions(binding: Binding) -> str:
    """The server's instructions: what it is for, and whom it serves."""
    if binding.users is None:
        return (INSTRUCTIONS + " This server is unbound: it serves any user_id (meant for "
                "one local user; start it with --user to bind it).")
    users = sorted(binding.users)
    if len(users) == 1:
        return INSTRUCTIONS + f" It serves one user, {users[0]!r}: user_id may be left out."
    return INSTRUCTIONS + f" It serves these users only: {', '.join(map(repr, users))}."


class NoVectors(Embedder):
    """The embedder of a server started with ``--no-vectors``: always unavailable, so the
    retriever runs its keyword and graph channels and still injects preferences.  An
    Embedder (the retriever's type) whose model never loads."""

    vectorless = True  # the retriever asks it first, before it imports torch

    def load(self) -> SentenceTransformer:
        raise EmbeddingsUnavailable("vectors are off (memdesk mcp --no-vectors)")

    def encode(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        raise EmbeddingsUnavailable("vectors are off (memdesk mcp --no-vectors)")


class Runtime:
    """The server's state: the store, a retriever, the job worker thread, session ids."""

    def __init__(self, store: MemoryStore, extractor: Extractor, *, vectors: bool = True,
                 transport: str = "stdio", poll_s: float = 1.0,
                 binding: Binding | None = None) -> None:
        self.store = store
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
        self._answered.wait(WARM_DELAY_S)
        try:
            if self.vectors:  # load the model now, not on the first retrieve
                try:
                    self.retriever.embedder().encode(["warm up"])
                except EmbeddingsUnavailable as exc:
                    log.warning("vectors unavailable: %s", exc)
        finally:
            self.ready.set()
        # Ready for every channel now; recent users' snapshots are built meanwhile
        # (a call that comes first builds its own).
        self._warm_snapshots()

    async def wait_ready(self, timeout: float = READY_WAIT_S) -> bool:
        """Wait (bounded) for the start-up warm-up; whether it is done."""
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




def build_server(rt: Runtime) -> MCPServer:
    """The MCP server with memdesk's tools bound to ``rt``."""
    mcp = MCPServer(SERVER_NAME, instructions=instructions(rt.binding), log_level="WARNING")
    mcp_tools_write.register(mcp, rt)
    mcp_tools_read.register(mcp, rt)
    forbid_unknown_arguments(mcp)
    record_calls(mcp, rt.access, rt.transport, on_answered=rt.call_answered)
    return mcp


def serve(store: MemoryStore, extractor: Extractor, *, vectors: bool = True,
          http: bool = False, port: int = 8765, host: str = "127.0.0.1",
          users: frozenset[str] | None = None) -> None:
    """Run until the client disconnects (stdio) or the process is interrupted (HTTP).
    ``users``: the users this server serves (None: unbound).

    Over HTTP every request is authenticated by app/mcp/auth.py: a token is required on
    a non-loopback ``host``, and on loopback as soon as the store has any token."""
    binding = Binding(users)
    if binding.bound:
        log.warning("serving %d user(s): %s", len(users or ()), ", ".join(sorted(users or ())))
    else:
        log.warning("unbound: this server serves any user_id (start it with --user to bind "
                    "it to the users it serves)")
    rt = Runtime(store, extractor, vectors=vectors,
                 transport="streamable-http" if http else "stdio", binding=binding)
    server = build_server(rt)
    rt.start()
    try:
        if http:
            _stop_cleanly_on_sigterm()
            anyio.run(partial(serve_http, server, store, host=host, port=port))
        else:
            # The SDK's stdio transport, fed by a line reader that answers every line
            # (invalid JSON-RPC, oversized lines): app/mcp/lines.py.
            anyio.run(serve_stdio, server)
    finally:
        rt.stop()


def _stop_cleanly_on_sigterm() -> None:
    """Make SIGTERM end the HTTP server through ``serve``'s ``finally``.

    uvicorn catches SIGTERM, shuts down, then raises it again with the handler it
    found installed; with the default one the process died right there, and the job
    worker, the retrieval records and the access log's last rows were never flushed."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


async def serve_http(server: MCPServer, store: MemoryStore, *, host: str,
                     port: int) -> None:
    """The SDK's streamable HTTP app behind bearer-token authentication, on uvicorn."""
    import uvicorn

    from memdesk.app.mcp.auth import BearerTokens, is_loopback

    # JSON responses: one body per call instead of an SSE stream (fewer writes and
    # wake-ups per call); the tools never send requests back to the client.
    app = BearerTokens(server.streamable_http_app(host=host, json_response=True), store,
                       require=not is_loopback(host))
    # Idle keep-alive connections are kept 65 s, not uvicorn's 5: a client reusing a
    # connection the server is closing at that moment gets a read error on its call
    # (seen with 200 concurrent calls on a loaded machine); agents pause for seconds.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_keep_alive=65)
    await uvicorn.Server(config).serve()
