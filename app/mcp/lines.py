"""``memdesk mcp`` over stdio: every line read is answered or passed on, in linear time.

The official SDK's stdio transport reads stdin a line at a time and drops a line it
cannot validate without a word: a client that sent JSON-RPC "1.0", a batch, a raw
NUL or a lone surrogate escape with a request id waits for an answer forever.  Its
line reading also has no bound (a 50 MB line took 48 s, then the next call hung).

So the server keeps the SDK's transport and session but feeds it lines from
:class:`LineReader` (whole lines, at most :data:`MAX_LINE_BYTES`), after
:func:`judge` has looked at each:

* a valid JSON-RPC message passes to the SDK unchanged (lone surrogate escapes
  marked first, so the tool answers with a clear error — :func:`mark_lone_surrogates`);
* an invalid one gets a JSON-RPC error reply on stdout: ``-32700`` (parse error) when
  the line is not JSON — not UTF-8 (never decoded with U+FFFD), or nested deeper than
  the SDK's parser reads (about 200 levels; Python's own parser would raise
  RecursionError past 1,000 and end the server) — ``-32600`` (invalid request) when
  it is JSON but not a JSON-RPC 2.0 message, with the line's ``id`` when one can be
  read and ``null`` otherwise, as JSON-RPC 2.0 says.  A request whose id is not a
  string or an integer (null, an object, 1.5, true) is one too: the SDK would take it
  for a notification and never answer (:func:`misread_request`).  A batch (an array)
  gets an array of errors, one per element that is not a notification: MCP does not
  take batches.  Something shaped like a response (it has ``result`` or ``error`` and
  no ``method``) is never answered: its id is one of ours;
* a line longer than :data:`MAX_LINE_BYTES` is skipped to its end without being kept
  (constant memory, one pass) and answered with ``-32600`` naming the limit; its id is
  read from the line's start when it comes before ``params`` (as clients write it).

Like the SDK's transport, file descriptors 0 and 1 are pointed at /dev/null and
stderr while serving, so nothing else in the process can write onto the wire.

Over HTTP the SDK answers a bad body itself (400 with a JSON-RPC error); only the
misread ids are answered here too, by :class:`AnsweredIds` in front of its app.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
import pydantic_core
from mcp.server.stdio import stdio_server
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memdesk.core.guard.agent_api import INVALID_MARK

log = logging.getLogger("memdesk.mcp")

# 4 MiB: a store_memory turn (100,000 characters) is at most 600 kB even with every
# character escaped as \uXXXX; no legitimate message comes near it.
MAX_LINE_BYTES = 4 * 1024 * 1024
READ_CHUNK = 64 * 1024
ID_PREFIX_BYTES = 64 * 1024  # where an oversized line's id is looked for
PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR = -32700, -32600, -32603

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ID_AT_START = re.compile(
    rb'^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,200}"\s*,)*'
    rb'\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,200}")')


def mark_lone_surrogates(text: str) -> str:
    """One JSON-RPC line with every lone surrogate escape (``"\\ud800"``) replaced by
    ``INVALID_MARK``, so the tool answers with a clear error.  The SDK's parser rejects
    such a line outright and, not knowing its id, never answers: the client would hang."""
    if not _SURROGATE_ESCAPE.search(text):
        return text
    try:
        message = json.loads(text)

        def fix(v: Any) -> Any:
            if isinstance(v, str):
                return _LONE_SURROGATE.sub(INVALID_MARK, v)
            if isinstance(v, list):
                return [fix(x) for x in v]
            if isinstance(v, dict):
                return {fix(k): fix(x) for k, x in v.items()}
            return v

        return json.dumps(fix(message), ensure_ascii=False, allow_nan=False)
    except (ValueError, RecursionError):
        return text  # not JSON, or nested too deeply to walk: judged below


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit: its first bytes and its length."""

    prefix: bytes
    size: int


@dataclass(frozen=True)
class Verdict:
    """What to do with one line: pass ``line`` to the SDK and/or write ``reply``."""

    line: str | None = None
    reply: str | None = None


def _error(id_: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _request_id(value: Any) -> bool:
    """An id MCP takes on a request: a string or an integer (never null, nor a bool)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def _echo(value: Any) -> Any:
    """``value`` when an error may carry it back as its id (a JSON-RPC string or finite
    number, so the client can match the answer), else ``None``."""
    if _request_id(value) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return None


ID_RULE = ("Invalid Request: id must be a string or an integer (a notification has no "
           "id at all)")
BATCH_RULE = "Invalid Request: batches are not supported; send one message per line"


def _why(obj: dict[str, Any]) -> str:
    if obj.get("jsonrpc") != "2.0":
        return 'Invalid Request: only JSON-RPC 2.0 is spoken here ("jsonrpc": "2.0")'
    if "method" in obj and not isinstance(obj["method"], str):
        return "Invalid Request: method must be a string"
    if "params" in obj and not isinstance(obj["params"], dict):
        return "Invalid Request: params must be an object"
    if "id" in obj and not _request_id(obj["id"]):
        return ID_RULE
    return "Invalid Request: not a valid JSON-RPC 2.0 message for this server"


def _is_notification(item: Any) -> bool:
    return isinstance(item, dict) and "method" in item and "id" not in item


def _is_response(item: Any) -> bool:
    return (isinstance(item, dict) and "method" not in item
            and ("result" in item or "error" in item))


def _reply_for(obj: Any) -> dict[str, Any] | list[dict[str, Any]] | None:
    """The error answering a JSON value that is not a valid message (None: no answer)."""
    if isinstance(obj, list):
        if not obj:
            return _error(None, INVALID_REQUEST, "Invalid Request: an empty batch")
        # JSON-RPC 2.0: one error per element that is not a notification (a number, a
        # nested array: id null); MCP takes no batches, so every request is refused.
        errors = [_error(_echo(item.get("id")) if isinstance(item, dict) else None,
                         INVALID_REQUEST, BATCH_RULE)
                  for item in obj if not _is_notification(item) and not _is_response(item)]
        return errors or None  # a batch of notifications: nothing to answer
    if not isinstance(obj, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    if _is_response(obj):
        return None  # a response to one of our requests: never answer an answer
    return _error(_echo(obj.get("id")), INVALID_REQUEST, _why(obj))


def misread_request(text: str | bytes) -> dict[str, Any] | None:
    """The ``-32600`` error for a request the SDK would take for a notification, else None.

    The SDK reads a message whose ``id`` is not a string or an integer (``null``, an
    object, ``1.5``, ``true``) as a notification with a stray field: it runs nothing
    and answers nothing, and the client waits forever.  JSON-RPC 2.0 makes it an
    invalid request."""
    try:
        obj = pydantic_core.from_json(text)  # the SDK's parser, with its depth limit
    except ValueError:
        return None  # not JSON: the caller's parse error
    if (isinstance(obj, dict) and isinstance(obj.get("method"), str) and "id" in obj
            and not _request_id(obj["id"])):
        return _error(_echo(obj["id"]), INVALID_REQUEST, ID_RULE)
    return None


def judge(line: bytes | Oversized) -> Verdict:
    """Pass ``line`` on, answer it with an error, or both skip it (blank lines)."""
    if isinstance(line, Oversized):
        too_large = _error(_id_at_start(line.prefix), INVALID_REQUEST,
                           f"Request too large: lines are limited to {MAX_LINE_BYTES:,} "
                           f"bytes (this one had {line.size:,}); it was not read")
        return Verdict(reply=json.dumps(too_large))
    if not line.strip():
        return Verdict()
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:  # never U+FFFD in a stored memory
        return Verdict(reply=json.dumps(_not_utf8(line, exc)))
    marked = mark_lone_surrogates(text)
    if marked is not text and (bad_id := _lone_surrogate_id(text)) is not None:
        # Marked, the id would no longer be the client's: answer with its own, escaped.
        return Verdict(reply=json.dumps(_error(
            bad_id, INVALID_REQUEST,
            "Invalid Request: the id holds a lone surrogate escape, not a Unicode string")))
    text = marked
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        unreadable = [e["msg"] for e in exc.errors() if e["type"] == "json_invalid"]
        if unreadable:  # includes nesting past the parser's depth limit
            return Verdict(reply=json.dumps(_parse_error(text, unreadable[0])))
        try:
            obj = json.loads(text)  # within the SDK parser's depth: no recursion limit
        except (ValueError, RecursionError):
            return Verdict(reply=json.dumps(_parse_error(text, "not JSON")))
        reply = _reply_for(obj)
        return Verdict(reply=json.dumps(reply) if reply is not None else None)
    if isinstance(message, types.JSONRPCNotification):
        wrong_id = misread_request(text)
        if wrong_id is not None:
            return Verdict(reply=json.dumps(wrong_id))
    return Verdict(line=text)


def _id_at_start(prefix: bytes) -> Any:
    """The id of a request whose start reads ``{"jsonrpc": …, "id": …`` (None otherwise)."""
    m = _ID_AT_START.match(prefix[:ID_PREFIX_BYTES])
    return json.loads(m.group(1)) if m else None


def _readable_request(text: str) -> dict[str, Any] | None:
    """The request a line starts with, read leniently (raw control characters in
    strings, bytes after the object), when it can be: only to answer with its id."""
    try:
        obj, _ = json.JSONDecoder(strict=False).raw_decode(text.lstrip())
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and "method" in obj else None


def _parse_error(text: str, detail: str) -> dict[str, Any]:
    """A parse error, with the id when the line starts with a readable request."""
    detail = detail.removeprefix("Invalid JSON: ")
    request = _readable_request(text)
    if request is not None:
        id_ = _echo(request.get("id"))
    else:
        id_ = _id_at_start(text[:ID_PREFIX_BYTES].encode("utf-8"))
    if "recursion limit" in detail:
        why = "nested too deeply to read"
    elif "control character" in detail or "trailing" in detail:
        why = ("raw control characters (such as NUL) or other bytes that are not JSON; "
               "escape control characters in strings (\\u0000)")
    elif "surrogate" in detail or "escape" in detail:
        why = "an escape that is not a Unicode character"
    else:
        why = "the line is not JSON"
    return _error(id_, PARSE_ERROR, f"Parse error: {why} ({detail})")


def _lone_surrogate_id(text: str) -> Any:
    """The id of a request whose id holds a lone surrogate escape (None otherwise)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    id_ = obj.get("id") if isinstance(obj, dict) and "method" in obj else None
    return id_ if isinstance(id_, str) and _LONE_SURROGATE.search(id_) else None


def _not_utf8(line: bytes, exc: UnicodeDecodeError) -> dict[str, Any]:
    """A parse error for a line that is not UTF-8 (JSON text is), with its id when the
    rest of it reads as a request: the line is refused, never decoded with U+FFFD."""
    request = _readable_request(line.decode("utf-8", "replace"))
    id_ = _echo(request.get("id")) if request is not None else _id_at_start(line)
    return _error(id_, PARSE_ERROR,
                  f"Parse error: the line is not JSON: JSON text is UTF-8 and byte "
                  f"{exc.start} (0x{line[exc.start]:02x}) is not; nothing was read")


class LineReader:
    """Whole lines from a file descriptor, each at most ``limit`` bytes, in one pass.

    Bytes are read in chunks and searched for a newline only where not searched
    before; a line past ``limit`` is skipped to its newline without being kept.
    """

    def __init__(self, fd: int, limit: int = MAX_LINE_BYTES) -> None:
        self.fd = fd
        self.limit = limit
        self._buf = bytearray()
        self._scanned = 0
        self._skipping: tuple[bytes, int] | None = None  # (prefix, bytes seen)

    def next_line(self) -> bytes | Oversized | None:
        """The next line (without its newline), an Oversized, or None at the end."""
        while True:
            at = self._buf.find(b"\n", self._scanned)
            if at >= 0:
                line = bytes(self._buf[:at])
                del self._buf[: at + 1]
                self._scanned = 0
                if self._skipping is not None:
                    prefix, seen = self._skipping
                    self._skipping = None
                    return Oversized(prefix, seen + at)
                if len(line) > self.limit:
                    return Oversized(line[:ID_PREFIX_BYTES], len(line))
                return line
            if self._skipping is not None:
                prefix, seen = self._skipping
                self._skipping = (prefix, seen + len(self._buf))
                self._buf.clear()
            elif len(self._buf) > self.limit:
                self._skipping = (bytes(self._buf[:ID_PREFIX_BYTES]), len(self._buf))
                self._buf.clear()
            self._scanned = len(self._buf)
            chunk = os.read(self.fd, READ_CHUNK)
            if not chunk:
                return self._at_end()
            self._buf += chunk

    def _at_end(self) -> bytes | Oversized | None:
        if self._skipping is not None:
            prefix, seen = self._skipping
            self._skipping = None
            return Oversized(prefix, seen)
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            return line
        return None


class LineWriter:
    """The wire's output: one whole line per write, from the SDK or from the judge."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()

    def _write_all(self, data: bytes) -> None:
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write_all, text.encode("utf-8"))

    async def flush(self) -> None:
        return None  # every write went straight to the descriptor


class JudgedLines:
    """The SDK transport's ``stdin``: an async iterator of the lines to pass on."""

    def __init__(self, reader: LineReader, out: LineWriter) -> None:
        self.reader = reader
        self.out = out

    def __aiter__(self) -> JudgedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await anyio.to_thread.run_sync(self.reader.next_line,
                                                 abandon_on_cancel=True)
            if raw is None:
                raise StopAsyncIteration
            try:
                verdict = judge(raw)
            except Exception:  # a bug in the judge must not end the session
                log.exception("a line could not be judged")
                verdict = Verdict(reply=json.dumps(_error(
                    None, INTERNAL_ERROR,
                    "Internal error: the line could not be read; nothing was done")))
            if verdict.reply is not None:
                await self.out.write(verdict.reply + "\n")
            if verdict.line is not None:
                return verdict.line


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[int, int]]:
    """Private copies of fds 0 and 1; meanwhile 0 reads /dev/null and 1 goes to stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(null, 0)
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr: stray output goes nowhere rather than on the wire
            os.dup2(null, 1)
        yield wire_in, wire_out
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for fd in (null, wire_in, wire_out):
            with contextlib.suppress(OSError):
                os.close(fd)


async def serve_stdio(server: Any) -> None:
    """Serve ``server`` (an SDK ``MCPServer``) over stdin/stdout through the judge."""
    with claimed_stdio() as (wire_in, wire_out):
        out = LineWriter(wire_out)
        lines = JudgedLines(LineReader(wire_in), out)
        async with stdio_server(stdin=lines, stdout=out) as (read, write):  # type: ignore[arg-type]  # the SDK wants anyio.AsyncFile; ours duck-type what it calls
            # The SDK's own in-memory transport reaches the low-level server the same way.
            low = server._lowlevel_server
            await low.run(read, write, low.create_initialization_options())


class AnsweredIds:
    """ASGI middleware in front of the SDK's streamable HTTP app: a POSTed request whose
    id is not a string or an integer gets HTTP 400 with ``-32600`` (see
    :func:`misread_request`), as over stdio; the SDK would accept it with a silent 202.

    The body is buffered up to ``limit`` bytes to be judged, then handed on unchanged;
    a longer one goes on unjudged, for the SDK to refuse (413)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_LINE_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more, other = 0, True, None
        while more and size <= self.limit:
            message = await receive()
            if message["type"] != "http.request":  # the client left: the app sees it too
                other = message
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if other is None and not more:
            error = misread_request(body)
            if error is not None:
                await _json_response(send, 400, error)
                return
        pending: list[Message] = [{"type": "http.request", "body": body, "more_body": more}]
        if other is not None:
            pending.append(other)

        async def replay() -> Message:
            return pending.pop(0) if pending else await receive()

        await self.app(scope, replay, send)


async def _json_response(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
