"""What curation does as the job worker stores memories, importable cheaply: the worker's
owners (``memdesk worker``, the MCP server, the desk) bind these hooks at start-up, and
the calibration (scikit-learn's maps, the feature code) loads on the first job, not
while the MCP server is answering its first request."""

from __future__ import annotations

from typing import Any


def calibrate_at_write(store: Any, conn: Any, job_id: str, extractor: str | None,
                       memory_ids: list[str]) -> list[str]:
    """``memdesk.core.curation.calibration.calibrate_at_write``, imported on first use."""
    from memdesk.core.curation.calibration import calibrate_at_write as hook

    return hook(store, conn, job_id, extractor, memory_ids)


WRITE_HOOKS = (calibrate_at_write,)
