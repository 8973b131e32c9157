"""A fake Ollama server for tests: real HTTP on 127.0.0.1 (an ephemeral port), scripted
replies to ``POST /api/chat`` (and ``/api/generate``, the reranker's), so the official
``ollama`` client is exercised end to end.

Each request takes the next scripted :class:`Reply` (the last one repeats): a message
content (any string: valid JSON, malformed JSON, NaN), an HTTP status with an error body
(404 model not found), a raw body, and a delay (for timeouts).  Requests are recorded.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = '{"memories": []}'
    status: int = 200
    error: str | None = None  # body {"error": ...} for non-200 statuses
    raw: bytes | None = None  # sent as the body instead of a chat response
    delay: float = 0.0


def units(*items: dict[str, Any]) -> Reply:
    return Reply(json.dumps({"memories": list(items)}))


def unit(text: str = "The user prefers Python.", type_: str = "preference",
         importance: Any = 0.8, confidence: Any = 0.9, entity: Any = "user",
         attribute: Any = "prefers", value: Any = "Python") -> dict[str, Any]:
    return {"text": text, "type": type_, "importance": importance, "confidence": confidence,
            "entity": entity, "attribute": attribute, "value": value}


class FakeOllama:
    """Start with ``with FakeOllama([...]) as fake:``; ``fake.host`` is its URL."""

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies = list(replies or [Reply()])
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._release = threading.Event()  # ends slow replies early on shutdown
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, **body})
                    reply = fake.replies.pop(0) if len(fake.replies) > 1 else fake.replies[0]
                if reply.delay:
                    fake._release.wait(reply.delay)
                if reply.status != 200:
                    payload = json.dumps({"error": reply.error or "error"}).encode()
                elif reply.raw is not None:
                    payload = reply.raw
                elif self.path == "/api/generate":  # the reranker's completion call
                    payload = json.dumps({
                        "model": body.get("model", ""), "created_at": "2026-01-01T00:00:00Z",
                        "response": reply.content, "done": True, "done_reason": "stop",
                    }).encode()
                else:
                    payload = json.dumps({
                        "model": body.get("model", ""), "created_at": "2026-01-01T00:00:00Z",
                        "message": {"role": "assistant", "content": reply.content},
                        "done": True, "done_reason": "stop",
                    }).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.host = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOllama:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._release.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(5)

