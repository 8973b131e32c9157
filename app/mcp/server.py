"""``memdesk mcp``: a Model Context Protocol server over one store (official ``mcp`` SDK).

Tools (app/mcp/tools_read.py, app/mcp/tools_write.py; both take the server's state,
app/mcp/runtime.py, so neither imports this module): ``store_memory`` (asynchronous:
returns a job id at once; a worker thread in this process extracts and stores),
``job_status``, ``retrieve`` (the hybrid retriever with dispositional preferences),
``get_memory``, ``search_memories``, ``list_memories``, ``memory_history``,
``update_memory`` (a correction that supersedes), ``forget`` (a soft delete), and
``archive`` / ``unarchive`` (app/mcp/tools_archive.py: kept, never recalled).  Every
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
import threading
from functools import partial
from typing import TypeVar

import anyio
from mcp.server.mcpserver import MCPServer

from memdesk.app.mcp import tools_archive as mcp_tools_archive
from memdesk.app.mcp import tools_read as mcp_tools_read
from memdesk.app.mcp import tools_write as mcp_tools_write
from memdesk.app.mcp.common import enforce_rights, forbid_unknown_arguments, record_calls
from memdesk.app.mcp.identity import RIGHTS, Binding, Caller, current_caller
from memdesk.app.mcp.lines import AnsweredIds, serve_stdio
from memdesk.app.mcp.pause import refuse_paused
from memdesk.app.mcp.runtime import Runtime
from memdesk.core.guard.rights import SERVER_DEFAULT_RIGHTS
from memdesk.core.guard.tokens import TokenInfo
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.units import Extractor

log = logging.getLogger("memdesk.mcp")
T = TypeVar("T")
SERVER_NAME = "memdesk"
INSTRUCTIONS = (
    "Long-term memory for one or more users. Call store_memory with what the user said "
    "(it returns a job id; job_status tells when the memories exist), retrieve before "
    "answering, get_memory / search_memories / list_memories to look things up, "
    "update_memory to correct a memory by id, forget to drop one, archive to keep one out "
    "of recall (unarchive brings it back), memory_history to see what happened to one. "
    "Writes that read as instructions to the model, and changes to memories a human "
    "operator curated, are held for the operator's review."
)


def instructions(binding: Binding) -> str:
    """The server's instructions: what it is for, whom it serves, what it allows."""
    allowed = ""
    if set(binding.rights) != set(SERVER_DEFAULT_RIGHTS):
        allowed = (" It allows these rights: "
                   f"{', '.join(r for r in RIGHTS if r in binding.rights)}.")
    if binding.users is None:
        return (INSTRUCTIONS + " This server is unbound: it serves any user_id (meant for "
                "one local user; start it with --user to bind it)." + allowed)
    users = sorted(binding.users)
    if len(users) == 1:
        return (INSTRUCTIONS + f" It serves one user, {users[0]!r}: user_id may be left "
                "out." + allowed)
    return (INSTRUCTIONS + f" It serves these users only: {', '.join(map(repr, users))}."
            + allowed)


def build_server(rt: Runtime) -> MCPServer:
    """The MCP server with memdesk's tools bound to ``rt``."""
    mcp = MCPServer(SERVER_NAME, instructions=instructions(rt.binding), log_level="WARNING")
    mcp_tools_write.register(mcp, rt)
    mcp_tools_read.register(mcp, rt)
    mcp_tools_archive.register(mcp, rt)
    forbid_unknown_arguments(mcp)
    # Rights inside the access log's wrapper, so a refusal is logged as refused; a
    # paused token is refused before its rights are looked at.
    enforce_rights(mcp, rt.binding)
    refuse_paused(mcp, rt.store, stdio_name=rt.token)
    record_calls(mcp, rt.access, rt.transport, on_answered=rt.call_answered)
    return mcp


def serve(store: MemoryStore, extractor: Extractor, *, vectors: bool = True,
          http: bool = False, port: int = 8765, host: str = "127.0.0.1",
          users: frozenset[str] | None = None,
          rights: frozenset[str] | None = None, token: TokenInfo | None = None) -> None:
    """Run until the client disconnects (stdio) or the process is interrupted (HTTP).
    ``users``: the users this server serves (None: unbound); ``rights``: what it lets
    any caller do (None: every right but ``purge``, which is granted only when
    named; a token's rights narrow them further).

    Over HTTP every request is authenticated by app/mcp/auth.py: a token is required on
    a non-loopback ``host``, and on loopback as soon as the store has any token.
    ``token``: the token a stdio server runs as (``MEMDESK_MCP_TOKEN``, app/mcp/pause.py)."""
    binding = Binding(users) if rights is None else Binding(users, rights)
    if binding.bound:
        log.warning("serving %d user(s): %s", len(users or ()), ", ".join(sorted(users or ())))
    else:
        log.warning("unbound: this server serves any user_id (start it with --user to bind "
                    "it to the users it serves)")
    if rights is not None:
        log.warning("rights: %s", ", ".join(r for r in RIGHTS if r in rights))
    rt = Runtime(store, extractor, vectors=vectors,
                 transport="streamable-http" if http else "stdio", binding=binding,
                 token=None if token is None else token.name)
    if token is not None:  # every call of this process is the token's (its context)
        current_caller.set(Caller(token.name, frozenset(token.users), frozenset(token.rights)))
        log.warning("running as token %r (%s)", token.name, token.state)
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
    # AnsweredIds: a request whose id is not a string or an integer gets -32600, as
    # over stdio (app/mcp/lines.py); the SDK would take it for a notification.
    sdk_app = AnsweredIds(server.streamable_http_app(host=host, json_response=True))
    app = BearerTokens(sdk_app, store, require=not is_loopback(host))
    # Idle keep-alive connections are kept 65 s, not uvicorn's 5: a client reusing a
    # connection the server is closing at that moment gets a read error on its call
    # (seen with 200 concurrent calls on a loaded machine); agents pause for seconds.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_keep_alive=65)
    await uvicorn.Server(config).serve()
