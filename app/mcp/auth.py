"""Bearer-token authentication of the shared MCP server over HTTP (an ASGI middleware).

Every HTTP request is checked before the SDK's streamable HTTP app sees it: the
``Authorization: Bearer …`` secret is looked up among the store's tokens
(core/guard/tokens.py, on every request, so a revocation takes effect on the next call)
and the request runs with :data:`memdesk.app.mcp.identity.current_caller` set to the
token's caller (its name, users and rights); the tools check that caller.  The SDK's
context streams carry the variable from the request into the session's tool call.

Refused with 401 and ``WWW-Authenticate: Bearer``, nothing reaching the tools: no token
(once the store has any token, or on a non-loopback address), an unknown token, a
revoked one.  A loopback server on a store without tokens stays open to local
processes, as before tokens existed (its callers are ``local``).

Why not the SDK's own auth (``MCPServer(token_verifier=…, auth=AuthSettings(…))``): it
is an OAuth resource server, which needs an authorization server URL, publishes
protected-resource metadata pointing clients at it, and answers every failure with the
same "Authentication required"; these tokens are static and issued by the operator,
and a revoked token deserves its own message.  The request still carries the SDK's
``AuthenticatedUser``, so the SDK binds each MCP session to the token that opened it
(another token presenting that session id gets "Session not found").
"""

from __future__ import annotations

import ipaddress
import json
import logging
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Receive, Scope, Send

from memdesk.app.mcp.identity import LOCAL, Caller, current_caller
from memdesk.core.errors import MemdeskError
from memdesk.core.guard import tokens

log = logging.getLogger("memdesk.mcp.auth")
REALM = "memdesk"
UNAUTHORIZED = -32001  # JSON-RPC's server-defined range: no usable credentials


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def caller_of(token: tokens.TokenInfo) -> Caller:
    """The caller a token's requests run as; a paused token's calls are let through to
    the tools, which refuse them (app/mcp/pause.py): the refusal then reaches the
    agent as a tool error naming the pause, and the access log as ``paused``."""
    return Caller(token.name, frozenset(token.users), frozenset(token.rights),
                  paused_since=token.paused_at if token.paused else None)


class BearerTokens:
    """ASGI middleware: authenticate each HTTP request against the store's tokens."""

    def __init__(self, app: ASGIApp, store: Any, *, require: bool) -> None:
        self.app = app
        self.store = store
        # True: every request needs a token (a non-loopback server).  Otherwise only
        # once the store has a token (checked per request: adding one locks the door).
        self.require = require

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the SDK's session manager
            await self.app(scope, receive, send)
            return
        secret, malformed = _bearer(scope)
        try:
            # On the event loop, not in a worker thread: an indexed read of a table of
            # tens of rows (WAL readers never wait for writers) costs well under a
            # millisecond, while a thread hop costs several on a loaded machine.
            verdict = tokens.verify(self.store, secret)
        except MemdeskError as exc:  # a locked or closed store: refuse, never open
            log.warning("token check failed: %s", exc)
            await _refuse(send, 503, "temporarily_unavailable",
                          "the token store cannot be read right now; try again", challenge=False)
            return
        if verdict.token is not None:
            caller = caller_of(verdict.token)
            scope["user"] = AuthenticatedUser(AccessToken(
                token=tokens.digest(secret or ""), client_id=caller.name,
                scopes=sorted(caller.rights)))
            reset = current_caller.set(caller)
            try:
                await self.app(scope, receive, send)
            finally:
                current_caller.reset(reset)
            return
        if verdict.revoked is not None:
            log.warning("refused a request with revoked token %r", verdict.revoked)
            await _refuse(send, 401, "invalid_token", "this token was revoked")
            return
        if secret or malformed:
            await _refuse(send, 401, "invalid_token", "unknown token" if secret else
                          "the Authorization header must be 'Bearer <token>'")
            return
        if self.require or verdict.configured:
            await _refuse(send, 401, None, "a bearer token is required "
                          "(Authorization: Bearer <token>; memdesk tokens add)")
            return
        reset = current_caller.set(LOCAL)  # an open loopback server on a store without tokens
        try:
            await self.app(scope, receive, send)
        finally:
            current_caller.reset(reset)


def _bearer(scope: Scope) -> tuple[str | None, bool]:
    """The presented secret, and whether an Authorization header was there but unusable."""
    for key, value in scope.get("headers") or ():
        if key.lower() == b"authorization":
            text = value.decode("latin-1").strip()
            scheme, _, rest = text.partition(" ")
            if scheme.lower() != "bearer" or not rest.strip():
                return None, True
            return rest.strip(), False
    return None, False


async def _refuse(send: Send, status: int, error: str | None, description: str, *,
                  challenge: bool = True) -> None:
    """An RFC 6750 refusal whose body is also a JSON-RPC error, so an MCP client shows
    the reason (the SDK's client reports a JSON error body of a non-2xx answer)."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": UNAUTHORIZED, "message": f"unauthorized: {description}",
        "data": {"error": error or "unauthorized", "error_description": description}}}
    ).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if challenge:
        parts = [f'realm="{REALM}"']
        if error:
            parts += [f'error="{error}"', f'error_description="{description}"']
        headers.append((b"www-authenticate", ("Bearer " + ", ".join(parts)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
