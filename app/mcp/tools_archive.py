"""The MCP tools ``archive`` and ``unarchive``: an agent takes a memory out of recall
without forgetting it, or brings it back.  Protocol glue only: the rules are
core/guard/agent_actions.py's (``set_archived``), the state core/store/archive.py's;
each change is audited under actor ``agent`` with the client and session, and the
operator can undo it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from typing_extensions import TypedDict

from memdesk.app.mcp.common import run_store
from memdesk.app.mcp.models import MemoryIdArg
from memdesk.core.guard import agent_actions

if TYPE_CHECKING:
    from memdesk.app.mcp.runtime import Runtime

# Archive takes a memory out of what the agent recalls (kept, reversible): destructive
# for the agent's recall as forget is, so it needs the forget right
# (core/guard/rights.py); repeating it is refused ("archived already"), not repeated.
# Unarchive adds back to recall what was there before: no destruction.
ARCHIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                          open_world_hint=False)
UNARCHIVE = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                            idempotent_hint=True, open_world_hint=False)


class ArchiveResult(TypedDict):
    memory_id: str
    status: Literal["archived", "unarchived"]
    message: str


def _note(rt: Runtime, ctx: Context) -> str:
    origin = rt.origin(ctx, "user")
    return f"{origin.client_name} (session {origin.session[:8]}, {origin.transport})"


def register(mcp: MCPServer, rt: Runtime) -> None:
    store = rt.store

    async def change(memory_id: str, ctx: Context, archiving: bool) -> ArchiveResult:
        note = _note(rt, ctx)

        def run() -> agent_actions.ArchiveChange:
            return agent_actions.set_archived(store, memory_id, rt.scope.serves(),
                                              archiving=archiving, note=note)

        c = await run_store(run)
        rt.memories_changed()
        return {"memory_id": c.memory_id, "status": c.status, "message": c.message}

    @mcp.tool(annotations=ARCHIVE)
    async def archive(memory_id: MemoryIdArg, ctx: Context) -> ArchiveResult:
        """Archive one memory by id: it is kept (the operator still sees it, and
        get_memory says 'archived'), but retrieve, search_memories and list_memories
        no longer return it, until it is unarchived. A memory the operator curated
        cannot be archived by an agent."""
        return await change(memory_id, ctx, True)

    @mcp.tool(annotations=UNARCHIVE)
    async def unarchive(memory_id: MemoryIdArg, ctx: Context) -> ArchiveResult:
        """Unarchive one archived memory by id: it is retrieved again. A memory the
        operator archived (or otherwise curated) stays as the operator left it."""
        return await change(memory_id, ctx, False)
