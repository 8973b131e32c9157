"""Hostile JSON-RPC lines for both MCP transports, each with what the server answers.

One corpus, two transports: ``stdio`` is the answer docs/agents.md ("Every stdio line is
answered") promises on stdout; ``http`` the answer to the same bytes POSTed to the
streamable HTTP endpoint (the official SDK's, plus the one fix memdesk makes there: a
request whose id is not a string or an integer gets ``-32600`` rather than a silent
202).  Every line that would write (``store_memory``) must write nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    """What comes back: ``kind`` "error" (a JSON-RPC error with ``code`` and ``id``),
    "errors" (a batch's array of -32600 errors, with these ``ids``), "tool_error" (a
    result with ``isError``), "none" (no answer at all: a notification).  ``words``:
    what the message must say."""

    kind: str
    id: Any = None
    code: int | None = None
    words: str = ""
    ids: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Hostile:
    name: str
    line: bytes
    stdio: Answer
    http_status: int  # the HTTP status for the same bytes as a POST body
    http: Answer  # the HTTP body ("none": an empty 202)


def _req(id_: Any, method: str, params: Any = None, **extra: Any) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    msg.update(extra)
    return json.dumps(msg).encode()


def _store(id_: Any, text: str = "I live in Lisbon.") -> bytes:
    return _req(id_, "tools/call",
                {"name": "store_memory", "arguments": {"text": text, "user_id": "alice"}})


def _nested_store(id_: str, depth: int) -> bytes:
    return (b'{"jsonrpc":"2.0","id":"' + id_.encode() + b'","method":"tools/call","params":'
            b'{"name":"store_memory","arguments":{"user_id":"alice","text":'
            + b"[" * depth + b"]" * depth + b"}}}")


def _error(id_: Any, code: int, words: str = "") -> Answer:
    return Answer("error", id=id_, code=code, words=words)


NONE = Answer("none")
PARSE, INVALID, PARAMS, NO_METHOD = -32700, -32600, -32602, -32601
TOO_LARGE = 5 * 1024 * 1024  # above stdio's 4 MiB line limit and the SDK's 4 MB body limit

CORPUS: list[Hostile] = [
    # -- nesting: past the parser's depth limit (about 200), and past Python's (1,000)
    Hostile("100,000 [", b"[" * 100_000, _error(None, PARSE, "recursion limit"),
            400, _error(None, PARSE, "recursion limit")),
    Hostile("100,000 {", b'{"a":' * 100_000, _error(None, PARSE, "recursion limit"),
            400, _error(None, PARSE, "recursion limit")),
    Hostile("closed nesting 5,000 deep in a store_memory", _nested_store("deep", 5_000),
            _error("deep", PARSE, "recursion limit"), 400, _error(None, PARSE, "recursion")),
    Hostile("closed nesting 300 deep in a store_memory", _nested_store("d300", 300),
            _error("d300", PARSE, "recursion limit"), 400, _error(None, PARSE, "recursion")),
    Hostile("nesting 50 deep as a tool argument", _nested_store("d50", 50),
            Answer("tool_error", id="d50", words="text"), 200,
            Answer("tool_error", id="d50", words="text")),
    # -- huge: past the line limit (stdio) and the body limit (HTTP: 413, plain text)
    Hostile("5 MB store_memory", _store("big", "x" * TOO_LARGE),
            _error("big", INVALID, "too large"), 413, NONE),
    # -- ids that are neither a string nor an integer: -32600 (a notification has no id)
    Hostile("id null", _store(None), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    Hostile("id an object", _store({}), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    Hostile("id an array", _store([7]), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    Hostile("id 1.5", _store(1.5), _error(1.5, INVALID, "id"), 400, _error(1.5, INVALID, "id")),
    Hostile("id true", _store(True), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    Hostile("id false on a ping", _req(False, "ping"), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    Hostile("id 1e400 (infinite as a float)", b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
            _error(None, INVALID, "id"), 400, _error(None, INVALID, "id")),
    Hostile("id null on a notification's method",
            _req(None, "notifications/initialized"), _error(None, INVALID, "id"),
            400, _error(None, INVALID, "id")),
    # -- invalid UTF-8 (JSON text is UTF-8): a parse error, never U+FFFD stored
    Hostile("Latin-1 é in a store_memory",
            _store(20, "I like cafe au lait").replace(b"cafe", b"caf\xe9"),
            _error(20, PARSE, "UTF-8"), 400, _error(None, PARSE, "")),
    Hostile("bytes that are never UTF-8", b"\xff\xfe garbage", _error(None, PARSE, "UTF-8"),
            400, _error(None, PARSE, "")),
    Hostile("an overlong encoding of /",
            _req(21, "tools/list").replace(b"tools/list", b"tools\xc0\xaflist"),
            _error(21, PARSE, "UTF-8"), 400, _error(None, PARSE, "")),
    # -- lone surrogates: escaped (the tool refuses the text) and raw (not UTF-8)
    Hostile("escaped lone surrogate in store_memory", _store(22, "I live in \ud800 Rome"),
            Answer("tool_error", id=22, words="text"), 400, _error(None, PARSE, "")),
    Hostile("raw lone surrogate bytes (CESU-8)",
            _store(23, "I live in ## Rome").replace(b"##", b"\xed\xa0\x80"),
            _error(23, PARSE, "UTF-8"), 400, _error(None, PARSE, "")),
    Hostile("escaped lone surrogate in the id", _req("a\udc00", "ping"),
            _error("a\udc00", INVALID, "surrogate"), 400, _error(None, PARSE, "")),
    Hostile("escaped lone surrogate before nesting 900 deep",
            b'{"jsonrpc":"2.0","id":"s900","method":"tools/call","params":{"name":"retrieve",'
            b'"arguments":{"query":"\\ud800","user_id":' + b"[" * 900 + b"]" * 900 + b"}}}",
            _error("s900", PARSE, ""), 400, _error(None, PARSE, "")),
    # -- wrong types
    Hostile("method a number", _req(24, 42), _error(24, INVALID, "method"),
            400, _error(None, PARAMS, "")),
    Hostile("params an array", _req(25, "tools/list", [1]), _error(25, INVALID, "params"),
            400, _error(None, PARAMS, "")),
    Hostile("params a string", _req(26, "tools/list", "all"), _error(26, INVALID, "params"),
            400, _error(None, PARAMS, "")),
    Hostile('"jsonrpc": 2 (a number)', _req(27, "ping", jsonrpc=2), _error(27, INVALID, "2.0"),
            400, _error(None, PARAMS, "")),
    Hostile("a bare string", b'"ping"', _error(None, INVALID, "object"),
            400, _error(None, PARAMS, "")),
    Hostile("null", b"null", _error(None, INVALID, "object"), 400, _error(None, PARAMS, "")),
    Hostile("tool name a number", _req(28, "tools/call", {"name": 5, "arguments": {}}),
            _error(28, PARAMS, ""), 200, _error(28, PARAMS, "")),
    Hostile("tool arguments an array",
            _req(29, "tools/call", {"name": "store_memory", "arguments": ["I live in Oslo."]}),
            _error(29, PARAMS, ""), 200, _error(29, PARAMS, "")),
    Hostile("store_memory text a number",
            _req(30, "tools/call", {"name": "store_memory",
                                    "arguments": {"text": 5, "user_id": "alice"}}),
            Answer("tool_error", id=30, words="text"), 200,
            Answer("tool_error", id=30, words="text")),
    # -- unknown methods and tools
    Hostile("unknown method", _req("u1", "memories/drop_all"),
            _error("u1", NO_METHOD, "not found"), 200, _error("u1", NO_METHOD, "not found")),
    Hostile("unknown notification", b'{"jsonrpc":"2.0","method":"memories/drop_all"}',
            NONE, 202, NONE),
    Hostile("unknown tool", _req("u2", "tools/call", {"name": "drop_all", "arguments": {}}),
            Answer("tool_error", id="u2", words="Unknown tool"), 200,
            Answer("tool_error", id="u2", words="Unknown tool")),
    # -- batch arrays: MCP takes none; one -32600 per element that is not a notification
    Hostile("a batch of two requests and a notification",
            b"[" + _store(40) + b"," + _req("b", "ping") + b","
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}]',
            Answer("errors", ids=(40, "b"), words="batch"), 400, _error(None, PARAMS, "")),
    Hostile("a batch of notifications", b'[{"jsonrpc":"2.0","method":"notifications/x"}]',
            NONE, 400, _error(None, PARAMS, "")),
    Hostile("an empty batch", b"[]", _error(None, INVALID, "empty"),
            400, _error(None, PARAMS, "")),
    Hostile("a batch of numbers", b"[1,2,3]", Answer("errors", ids=(None, None, None)),
            400, _error(None, PARAMS, "")),
    Hostile("a batch inside a batch", b"[[" + _req(41, "ping") + b"]]",
            Answer("errors", ids=(None,)), 400, _error(None, PARAMS, "")),
    # -- notifications with ids are requests (JSON-RPC): their method is not one
    Hostile("notifications/initialized with an id", _req("n1", "notifications/initialized"),
            _error("n1", NO_METHOD, "not found"), 200,
            _error("n1", NO_METHOD, "not found")),
    Hostile("notifications/cancelled with an id",
            _req("n2", "notifications/cancelled", {"requestId": 1}),
            _error("n2", NO_METHOD, "not found"), 200,
            _error("n2", NO_METHOD, "not found")),
    # -- responses nobody asked for, blank lines, NUL
    Hostile("a response to no request", b'{"jsonrpc":"2.0","id":999,"result":{}}',
            NONE, 202, NONE),
    Hostile("an error response", b'{"jsonrpc":"2.0","id":998,"error":{"code":1,"message":"x"}}',
            NONE, 202, NONE),
    Hostile("a NUL after the object", _req(50, "ping") + b"\x00",
            _error(50, PARSE, "control"), 400, _error(None, PARSE, "")),
    Hostile("spaces only", b"   \t ", NONE, 400, _error(None, PARSE, "")),
]
