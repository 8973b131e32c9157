"""Paused tokens: every tool call of a token the operator paused is refused, on both
transports, with the time of the pause; the access log records it as ``paused``.

Over HTTP each request presents its token and the authentication reads its state for
that request (app/mcp/auth.py sets the caller's ``paused_since``).  Over stdio there is
no request header: a host that wants its agent to run under a token gives the secret in
``MEMDESK_MCP_TOKEN`` (the server's environment).  The server then acts as that token
(its name in the access log and in the writes' provenance, its users and rights
narrowing the server's own), and reads the token's state before every call, so a pause
or a revocation reaches a running stdio server at its next call.

**Calls in flight finish.**  The state is read when a call starts (the request's
authentication over HTTP, the wrapper below over stdio); a call that started before
the pause was written runs to its end and is logged ``ok``.  A call is one short
transaction or a read, and refusing it halfway would have to undo what it committed;
the pause stops every call that starts after it (tests/mcp/test_mcp_token_pause.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ToolError

from memdesk.app.mcp.identity import Paused, Refused, current_caller
from memdesk.core.guard import tokens

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memdesk.core.store.memory_store import MemoryStore

TOKEN_ENV = "MEMDESK_MCP_TOKEN"


def stdio_token(store: MemoryStore, *, http: bool) -> tokens.TokenInfo | None:
    """The token a stdio server runs as (``MEMDESK_MCP_TOKEN``), or None without one.
    Raises TokenError with the operator's message for an unknown or revoked secret,
    or one given to an HTTP server (whose requests each present their own)."""
    secret = os.environ.get(TOKEN_ENV, "").strip()
    if not secret:
        return None
    if http:
        raise tokens.TokenError(
            f"{TOKEN_ENV} is for a stdio server; over HTTP each request presents its own "
            "token (Authorization: Bearer …). Unset it, or leave out --http")
    verdict = tokens.verify(store, secret)
    if verdict.revoked is not None:
        raise tokens.TokenError(f"{TOKEN_ENV}: token {verdict.revoked!r} was revoked "
                                "(memdesk tokens list)")
    if verdict.token is None:
        raise tokens.TokenError(f"{TOKEN_ENV}: no token has this secret (memdesk tokens "
                                "list; a secret is shown once, by memdesk tokens add)")
    return verdict.token


def _refusal(store: MemoryStore, stdio_name: str | None) -> Refused | None:
    """Why the current call is refused before it runs (None: it may run)."""
    caller = current_caller.get()
    since = caller.paused_since
    if stdio_name is not None and caller.name == stdio_name:
        # Read now, on the event loop: an indexed read of a table of tens of rows,
        # cheaper than a thread hop (as app/mcp/auth.py reads it per request).
        now = tokens.state_of(store, stdio_name)
        if now is None or not now.active:
            return Refused(f"refused: this token ({stdio_name}) was revoked; its calls "
                           "are refused")
        since = now.paused_at
    if since is not None:
        return Paused(tokens.paused_message(caller.name, since))
    return None


def refuse_paused(server: MCPServer, store: MemoryStore, *, stdio_name: str | None) -> None:
    """Wrap every tool so a paused (or, over stdio, revoked) token's call is refused
    before anything else runs, its right included.  ``stdio_name``: the token a stdio
    server runs as (None over HTTP, or without one)."""
    for tool in server._tool_manager.list_tools():  # the SDK exposes no public hook

        async def checked(*args: Any, _fn: Callable[..., Any] = tool.fn, **kwargs: Any) -> Any:
            refused = _refusal(store, stdio_name)
            if refused is not None:
                raise ToolError(str(refused)) from refused
            return await _fn(*args, **kwargs)

        tool.fn = checked
