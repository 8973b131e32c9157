"""Identifiers and the clock every stored record uses (no database imports, so pure
modules such as delta composition can use them cheaply)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime


def utcnow() -> datetime:
    """Naive UTC, the convention for every stored time."""
    return datetime.now(UTC).replace(tzinfo=None)


def new_id() -> str:
    return uuid.uuid4().hex
