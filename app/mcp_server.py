"""``memdesk mcp``: a Model Context Protocol server over one store (official ``mcp`` SDK).

Tools: ``store_memory`` (asynchronous: returns a job id at once; a
worker thread in this process extracts and stores), ``job_status``, ``retrieve`` (the
hybrid retriever with dispositional preferences), ``get_memory`` and
``search_memories``.  Arguments are validated by the SDK against each tool's JSON
schema (types, lengths, ranges, enums) and then by the core; any refusal comes back as
an MCP tool error (``isError``), never as a crash of the session.

Every write carries provenance the agent cannot set: actor ``agent``, the client's
name and version from its initialize request, a session id this server assigns, the
transport.  The agent only says whose words the turn holds (``source``), which the
poisoning guard weighs (core/guard/).  There is no tool that edits or deletes: an
agent adds memories, the operator curates them.

This module is protocol glue only: validation rules, provenance and the agent's view
of memories live in core/guard/.  Database work runs in worker threads
(``anyio.to_thread``) so one slow call never stalls the session's event loop.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memdesk.core.embeddings import EmbeddingsUnavailable
from memdesk.core.errors import MemdeskError, NotFoundError
from memdesk.core.guard.agent_api import (
    agent_filter,
    agent_view,
    check_agent_text,
)
from memdesk.core.guard.origin import AgentOrigin, origin_of_memory
from memdesk.core.ids import new_id
from memdesk.core.read.config import ReadConfig
from memdesk.core.read.retriever import MAX_K, Retriever
from memdesk.core.read.terms import MAX_QUERY_CHARS
from memdesk.core.store.query import Status
from memdesk.core.write.intake import enqueue_from_agent
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import MAX_TURN_TEXT, Extractor, Turn
from memdesk.core.write.worker import Worker, WorkerConfig

from .mcp_identity import LOCAL, Binding, Caller, Refused, check, current_caller, may_serve
from .mcp_lines import serve_stdio

log = logging.getLogger("memdesk.mcp")
T = TypeVar("T")
SERVER_NAME = "memdesk"
INSTRUCTIONS = (
    "Long-term memory for one or more users. Call store_memory with what the user said "
    "(it returns a job id; job_status tells when the memories exist), retrieve before "
    "answering, get_memory / search_memories to look things up. Writes that read as "
    "instructions to the model are held for a human operator's review."
)

UserId = Annotated[str, Field(min_length=1, max_length=200,
                              description="whose memories (one user per call)")]
Id = Annotated[str, Field(min_length=1, max_length=64)]
Score = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
MemoryTypeName = Literal["preference", "fact", "decision", "procedure", "correction", "error",
                         "note", "reasoning"]


class NoVectors:
    """The embedder of a server started with ``--no-vectors``: always unavailable, so the
    retriever runs its keyword and graph channels and still injects preferences."""

    def encode(self, texts: list[str]):  # type: ignore[no-untyped-def]
        raise EmbeddingsUnavailable("vectors are off (memdesk mcp --no-vectors)")


class Runtime:
    """The server's state: the store, a retriever, the job worker thread, session ids."""

    def __init__(self, store, extractor: Extractor, *, vectors: bool = True,  # type: ignore[no-untyped-def]
                 transport: str = "stdio", poll_s: float = 1.0) -> None:
        self.store = store
        self.transport = transport
        self.binding = Binding()  # the users this server serves (unbound: any)
        self.vectors = vectors
        self.retriever = Retriever(store, ReadConfig(), embedder=None if vectors else NoVectors())
        self.worker = Worker(store, extractor, WorkerConfig(embed=vectors))
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
        threading.Thread(target=self._warm_up, name="memdesk-mcp-warmup", daemon=True).start()

    def _warm_up(self) -> None:
        if self.vectors:  # load the model now, not on the first retrieve
            try:
                self.retriever.embedder().encode(["warm up"])
            except EmbeddingsUnavailable as exc:
                log.warning("vectors unavailable: %s", exc)
        self._warm_snapshots()

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
                if self.worker.run(drain=True):
                    # A stored memory invalidates its user's snapshot: rebuild the
                    # active users' stale ones here rather than on their next call.
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

    def origin(self, ctx: Context, source: str, caller: Caller = LOCAL) -> AgentOrigin:
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        name = _printable(getattr(info, "name", None)) or "unknown"
        version = _printable(getattr(info, "version", None))
        return AgentOrigin(client_name=name, client_version=version,
                           session=self.session_id(ctx.session), transport=self.transport,
                           source=source, token=None if caller is LOCAL else caller.name)

    def check_owner(self, caller: Caller, user_id: str, what: str) -> None:
        """Refuse to read about ``user_id``'s ``what`` as "not found" (no existence
        oracle) unless ``caller`` may act for that user; then ask for the read right."""
        if not may_serve(self.binding, caller, user_id):
            raise NotFoundError(f"No {what}")
        check(self.binding, "read", user_id, caller)


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


async def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run blocking store work off the event loop; store errors become tool errors."""
    try:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
    except (MemdeskError, Refused) as exc:
        raise ToolError(str(exc)) from exc


def build_server(rt: Runtime) -> MCPServer:
    """The MCP server with memdesk's five tools bound to ``rt``."""
    mcp = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING")
    store = rt.store

    @mcp.tool()
    async def store_memory(
        text: Annotated[str, Field(min_length=1, max_length=MAX_TURN_TEXT,
                                   description="the conversation turn to remember from")],
        user_id: UserId,
        ctx: Context,
        session_id: Annotated[str | None, Field(max_length=200, description=(
            "your conversation's id (kept as the memories' source session)"))] = None,
        topic: Annotated[str | None, Field(max_length=200)] = None,
        source: Annotated[Literal["user", "assistant", "tool", "document"], Field(
            description="whose words these are: the user's own, or text from the "
                        "assistant, a tool result or a document")] = "user",
    ) -> dict[str, Any]:
        """Queue a conversation turn for extraction into memories; returns a job id at
        once, without waiting for extraction. Poll job_status for the result."""
        caller = current_caller.get()

        def run() -> str:
            check(rt.binding, "write", user_id, caller)
            check_agent_text("text", text)
            for name, v in (("user_id", user_id), ("session_id", session_id), ("topic", topic)):
                check_agent_text(name, v)
            return enqueue_from_agent(store, Turn(text, user_id, session_id, topic),
                                      rt.origin(ctx, source, caller))

        job_id = await _call(run)
        rt.wake()
        return {"job_id": job_id, "status": "pending"}

    @mcp.tool()
    async def job_status(job_id: Id) -> dict[str, Any]:
        """The state of a store_memory job: pending, running, done (with the ids of the
        memories it stored) or failed (with the error)."""
        caller = current_caller.get()

        def run() -> dict[str, Any]:
            job = JobQueue(store).get(job_id)
            rt.check_owner(caller, job.user_id, f"job with id {job_id!r}")
            records = store.get_many(list(job.memory_ids))
            visible = [r.id for r in records if r.status is Status.ACTIVE]
            held = sum(1 for r in records if r.status is Status.QUARANTINED)
            return {"job_id": job.id, "status": job.status, "attempts": job.attempts,
                    "created_at": job.created_at.isoformat(),
                    "finished_at": job.finished_at.isoformat() if job.finished_at else None,
                    "memory_ids": visible, "held_for_review": held, "error": job.error}

        return await _call(run)

    @mcp.tool()
    async def retrieve(
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)],
        user_id: UserId,
        k: Annotated[int, Field(ge=1, le=min(MAX_K, 100))] = 10,
        channels: Annotated[list[Literal["fts", "vector", "graph"]] | None, Field(
            max_length=3, description="isolate channels (turns preference injection off); "
                                      "default: all")] = None,
        include_preferences: bool = True,
    ) -> dict[str, Any]:
        """The user's memories most relevant to the query (keyword, vector and entity-graph
        channels fused), plus their standing preferences (injected every time)."""
        caller = current_caller.get()

        def run() -> dict[str, Any]:
            check(rt.binding, "read", user_id, caller)
            check_agent_text("query", query)
            check_agent_text("user_id", user_id)
            r = rt.retriever.retrieve(query, user_id, k, channels or None, include_preferences)
            keep = ("id", "text", "type", "layer", "score", "importance", "created_at")
            return {"retrieval_id": r.retrieval_id,
                    "results": [{f: j[f] for f in keep}
                                for j in (h.to_json() for h in r.results)],
                    "preferences": [p.to_json() for p in r.preferences],
                    "notes": r.notes, "duration_ms": round(r.duration_ms, 2)}

        return await _call(run)

    @mcp.tool()
    async def get_memory(memory_id: Id) -> dict[str, Any]:
        """One memory by id, with its status (active, superseded, expired) and origin."""
        caller = current_caller.get()

        def run() -> dict[str, Any]:
            with store.read() as conn:
                record = store.get(memory_id, conn)
                rt.check_owner(caller, record.user_id, f"memory with id {memory_id!r}")
                out = agent_view(record)
                origin = origin_of_memory(conn, memory_id)
            out["origin"] = origin.to_json() if origin else None
            return out

        return await _call(run)

    @mcp.tool()
    async def search_memories(
        user_id: UserId,
        text: Annotated[str, Field(max_length=1000, description="full-text words")] = "",
        types: Annotated[list[MemoryTypeName], Field(max_length=8)] = [],  # noqa: B006
        topics: Annotated[list[Annotated[str, Field(max_length=200)]],
                          Field(max_length=20)] = [],  # noqa: B006
        status: Literal["active", "superseded", "expired", "any"] = "active",
        min_importance: Score = 0.0,
        max_importance: Score = 1.0,
        min_confidence: Score = 0.0,
        max_confidence: Score = 1.0,
        entity: Annotated[str | None, Field(max_length=200)] = None,
        attribute: Annotated[str | None, Field(max_length=200)] = None,
        order_by: Literal["created_at", "importance", "confidence"] = "created_at",
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
        offset: Annotated[int, Field(ge=0, le=100_000)] = 0,
    ) -> dict[str, Any]:
        """Filter one user's memories (newest first by default); pages with offset."""
        caller = current_caller.get()

        def run() -> dict[str, Any]:
            check(rt.binding, "read", user_id, caller)
            flt = agent_filter(
                user_id, text=text, types=types, topics=topics, status=status,
                importance=(min_importance, max_importance),
                confidence=(min_confidence, max_confidence),
                entity=entity, attribute=attribute)
            rows = store.page(flt, order_by=order_by, descending=True, offset=offset,
                              limit=limit + 1)
            return {"items": [agent_view(r) for r in rows[:limit]], "offset": offset,
                    "limit": limit, "more": len(rows) > limit}

        return await _call(run)

    return mcp


def serve(store, extractor: Extractor, *, vectors: bool = True,  # type: ignore[no-untyped-def]
          http: bool = False, port: int = 8765, host: str = "127.0.0.1") -> None:
    """Run until the client disconnects (stdio) or the process is interrupted (HTTP).

    Over HTTP every request is authenticated by app/mcp_auth.py: a token is required on
    a non-loopback ``host``, and on loopback as soon as the store has any token."""
    rt = Runtime(store, extractor, vectors=vectors,
                 transport="streamable-http" if http else "stdio")
    server = build_server(rt)
    rt.start()
    try:
        if http:
            anyio.run(partial(serve_http, server, store, host=host, port=port))
        else:
            # The SDK's stdio transport, fed by a line reader that answers every line
            # (invalid JSON-RPC, oversized lines): app/mcp_lines.py.
            anyio.run(serve_stdio, server)
    finally:
        rt.stop()


async def serve_http(server: MCPServer, store, *, host: str, port: int) -> None:  # type: ignore[no-untyped-def]
    """The SDK's streamable HTTP app behind bearer-token authentication, on uvicorn."""
    import uvicorn

    from .mcp_auth import BearerTokens, is_loopback

    app = BearerTokens(server.streamable_http_app(host=host), store,
                       require=not is_loopback(host))
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
