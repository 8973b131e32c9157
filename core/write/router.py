"""The memory router's old home: it moved to :mod:`memdesk.core.routing` so the store,
which routes every insert, does not import the write path above it."""

from memdesk.core.routing import (
    ROUTES,
    SESSION_SCOPE,
    WORKING_NOT_STORED,
    is_session_scoped,
    route,
    route_values,
)

# Re-exported for existing callers.
__all__ = ["ROUTES", "SESSION_SCOPE", "WORKING_NOT_STORED", "is_session_scoped", "route",
           "route_values"]
