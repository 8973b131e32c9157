"""Import from Mem0: the JSON its ``Memory.get_all()`` / ``MemoryClient.get_all()``
returns, saved to a file: ``{"results": [{"id", "memory", "hash", "metadata",
"created_at", "updated_at", "user_id", "agent_id", "run_id", ...}, ...]}`` (older
releases returned the bare list, which is accepted too).

The mapping onto memdesk's fields is documented in docs/import-export.md; fields
memdesk has no place for are counted in the report's ``dropped`` so the operator sees
what did not come across.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import IO, Any

from memdesk.core.errors import ValidationError
from memdesk.core.taxonomy import MemoryType
from memdesk.core.transfer.importer import Candidate, Source, TransferError
from memdesk.core.transfer.jsonl import parse_time

# Mem0 item keys that map onto a memdesk field (everything else is reported as dropped).
MAPPED = frozenset({"id", "memory", "user_id", "agent_id", "run_id", "created_at",
                    "metadata", "categories", "expiration_date"})
# Keys that are derived or transient and not worth reporting as lost.
IGNORED = frozenset({"score", "hash"})
# metadata keys memdesk reads; the rest of a metadata object is reported as dropped.
META_MAPPED = frozenset({"type", "memory_type", "category", "topic", "importance",
                         "confidence", "entity", "attribute", "value", "layer"})
MAX_FILE_BYTES = 1024 * 1024 * 1024  # one JSON document is read whole


def load_items(stream: IO[bytes], label: str) -> list[Any]:
    """The ``results`` list of a Mem0 ``get_all`` export (or a bare list)."""
    raw = stream.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise TransferError(f"{label} is larger than 1 GB; split it before importing.")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise TransferError(
            f"{label} is not a Mem0 export: not UTF-8 text (byte {exc.start + 1})."
        ) from None
    except json.JSONDecodeError as exc:
        raise TransferError(
            f"{label} is not a Mem0 export: not JSON ({exc.msg}, line {exc.lineno} "
            f"column {exc.colno})."
        ) from None
    except (ValueError, RecursionError) as exc:
        raise TransferError(f"{label} is not a Mem0 export: {exc}.") from None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        results: list[Any] = data["results"]
        return results
    if isinstance(data, list):
        return data
    raise TransferError(
        f"{label} is not a Mem0 export: expected an object with a \"results\" list "
        "(what get_all returns) or a list of memories."
    )


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


class Mem0Source(Source):
    """Items of a Mem0 export, mapped to memdesk fields; progress in items."""

    unit = "item"
    kind = "Mem0"

    def __init__(
        self, stream: IO[bytes], *, label: str = "", default_user: str | None = None,
        default_type: str = MemoryType.FACT.value, now: datetime | None = None,
    ) -> None:
        super().__init__()
        self.label = label
        self.items = load_items(stream, label or "the input")
        self.total = len(self.items)
        self.default_user = default_user
        self.default_type = default_type
        self.now = now

    def __iter__(self) -> Iterator[Candidate]:
        for n, item in enumerate(self.items, start=1):
            try:
                values = self.map_item(item)
            except ValidationError as exc:
                yield Candidate(n, None, str(exc), n)
                continue
            yield Candidate(n, values, None, n)

    def map_item(self, item: Any) -> dict[str, Any]:
        if not isinstance(item, dict):
            raise ValidationError("item", "must be a JSON object")
        for key in item:
            if key not in MAPPED and key not in IGNORED:
                self.dropped[key] += 1
        out: dict[str, Any] = {"text": item.get("memory")}
        if "id" in item:
            out["id"] = str(item["id"]) if isinstance(item["id"], int | str) else item["id"]
        user = item.get("user_id") or item.get("agent_id") or self.default_user
        if user is None:
            raise ValidationError(
                "user_id", "missing (the item has no user_id or agent_id; pass a default user)"
            )
        out["user_id"] = user
        if item.get("run_id") is not None:
            out["source_session"] = item["run_id"]
            out["run_id"] = item["run_id"]
        if item.get("agent_id") is not None:
            out["agent_id"] = item["agent_id"]
        if item.get("created_at") is not None:
            out["created_at"] = parse_time("created_at", item["created_at"])
        expires = item.get("expiration_date")
        if expires is not None:
            when = parse_time("expiration_date", expires)
            # memdesk has no scheduled expiry: a past date ends the memory's validity,
            # a future one cannot be kept (counted as dropped).
            if when <= (self.now or datetime.now(UTC).replace(tzinfo=None)):
                out["valid_until"] = when
            else:
                self.dropped["expiration_date (in the future)"] += 1
        meta = item.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise ValidationError("metadata", "must be a JSON object")
        meta = meta or {}
        for key in meta:
            if key not in META_MAPPED:
                self.dropped[f"metadata.{key}"] += 1
        out["type"] = meta.get("type") or meta.get("memory_type") or self.default_type
        if not _is_type(out["type"]):
            self.dropped["metadata.type (not a memdesk type)"] += 1
            out["type"] = self.default_type
        topic = meta.get("topic") or meta.get("category")
        categories = item.get("categories")
        if topic is None and isinstance(categories, list) and categories:
            topic = categories[0]
            if len(categories) > 1:
                self.dropped["categories (after the first)"] += 1
        if topic is not None:
            out["topic"] = topic
        for key in ("importance", "confidence"):
            v = meta.get(key)
            if v is None:
                continue
            if _is_score(v):
                out[key] = float(v)
            else:  # Mem0 users write "high" here; keep the memory, say what was lost
                self.dropped[f"metadata.{key} (not a number in [0, 1])"] += 1
        for key in ("entity", "attribute", "value", "layer"):
            if meta.get(key) is not None:
                out[key] = meta[key]
        return out


def _is_score(v: Any) -> bool:
    return (not isinstance(v, bool) and isinstance(v, int | float)
            and math.isfinite(v) and 0.0 <= v <= 1.0)


def _is_type(value: Any) -> bool:
    try:
        MemoryType(str(value).strip().lower())
    except ValueError:
        return False
    return True
