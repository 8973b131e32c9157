"""The MCP tools that change memories: ``store_memory``, ``update_memory`` and
``forget`` (``purge: true``: the permanent erasure, core/erasure/, with the ``purge``
right).  Protocol glue only: the rules are core/guard/agent_actions.py's and the
write path's; every change is audited under actor ``agent`` with the client and session
this server assigned (the agent cannot set either)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from memdesk.app.mcp.common import ADD, FORGET, run_store
from memdesk.app.mcp.models import AgentArg, ChangeResult, Job, MemoryIdArg, RunArg, UserArg
from memdesk.core.erasure.service import Erasure
from memdesk.core.guard import SecretScreen, agent_actions
from memdesk.core.guard.agent_api import check_agent_text
from memdesk.core.guard.origin import AgentOrigin
from memdesk.core.write.intake import enqueue_screened_from_agent
from memdesk.core.write.secrets_lane import SecretsLane
from memdesk.core.write.units import MAX_TURN_TEXT, Turn, parse_said_at

if TYPE_CHECKING:
    from memdesk.app.mcp.runtime import Runtime
    from memdesk.core.store.memory_store import MemoryStore

SourceArg = Annotated[Literal["user", "assistant", "tool", "document"], Field(
    description="whose words these are: the user's own (default), or text from the "
                "assistant, a tool result or a document (weighed by the poisoning guard)")]


def _note(origin: AgentOrigin) -> str:
    return f"{origin.client_name} (session {origin.session[:8]}, {origin.transport})"


def _change(c: agent_actions.AgentChange) -> ChangeResult:
    return {"memory_id": c.memory_id, "status": c.status, "message": c.message,
            "correction_id": c.new_memory_id, "reasons": list(c.reasons)}


def register(mcp: MCPServer, rt: Runtime) -> None:
    store = rt.store

    @mcp.tool(annotations=ADD)
    async def store_memory(
        text: Annotated[str, Field(min_length=1, max_length=MAX_TURN_TEXT,
                                   description="the conversation turn to remember from")],
        ctx: Context,
        user_id: UserArg = None,
        session_id: Annotated[str | None, Field(max_length=200, description=(
            "your conversation's id (kept as the memories' source session)"))] = None,
        topic: Annotated[str | None, Field(max_length=200, description=(
            "a short subject to file the memories under (optional)"))] = None,
        source: SourceArg = "user",
        agent_id: AgentArg = None,
        run_id: RunArg = None,
        speaker: Annotated[str | None, Field(max_length=200, description=(
            "who said the turn: 'user', 'assistant' or a name (optional)"))] = None,
        said_at: Annotated[str | None, Field(max_length=64, description=(
            "when the conversation took place, ISO 8601 (e.g. 2023-05-08T13:56:00Z); "
            "'yesterday' in the turn is read against it"))] = None,
    ) -> Job:
        """Queue a conversation turn for extraction into memories; returns a job id at
        once, without waiting for extraction. Poll job_status for the result. The turn
        itself is kept as said (an episode), whatever the extraction finds in it."""
        def run() -> tuple[str, SecretScreen]:
            user = rt.scope.user(user_id)
            check_agent_text("text", text)
            for name, v in (("session_id", session_id), ("topic", topic),
                            ("agent_id", agent_id), ("run_id", run_id),
                            ("speaker", speaker), ("said_at", said_at)):
                check_agent_text(name, v)
            return enqueue_screened_from_agent(
                store, Turn(text, user, session_id, topic, agent_id, run_id, speaker,
                            parse_said_at(said_at)), rt.origin(ctx, source))

        job_id, screened = await run_store(run)
        rt.wake()
        out: Job = {"job_id": job_id, "status": "pending", "note": rt.readiness_note()}
        if screened.held or screened.masked:
            # Why, by category; never the value.
            out["secrets"] = {"held_for_review": list(screened.held_categories),
                              "masked": list(screened.masked_categories),
                              "note": screened.note() or ""}
        return out

    @mcp.tool(annotations=ADD)
    async def update_memory(
        memory_id: MemoryIdArg,
        text: Annotated[str, Field(min_length=1, max_length=10_000, description=(
            "the corrected memory, as a whole sentence (it replaces the old text)"))],
        ctx: Context,
        source: SourceArg = "user",
        agent_id: AgentArg = None,
        run_id: RunArg = None,
    ) -> ChangeResult:
        """Correct one memory by id: writes the correction as a new memory that
        supersedes the old one (the old one is kept as history, see memory_history).
        Screened like every agent write; a correction of a memory the operator curated,
        or one that reads as an instruction, is held for the operator's review."""
        origin = rt.origin(ctx, source)

        def run() -> agent_actions.AgentChange:
            for name, v in (("agent_id", agent_id), ("run_id", run_id)):
                check_agent_text(name, v)
            return agent_actions.correct(store, memory_id, text, rt.scope.serves(),
                                         note=_note(origin), source=source,
                                         agent_id=agent_id, run_id=run_id,
                                         secrets=SecretsLane(store).policy())

        out = _change(await run_store(run))
        rt.memories_changed()
        return out

    @mcp.tool(annotations=FORGET)
    async def forget(memory_id: MemoryIdArg, ctx: Context, purge: Annotated[bool, Field(
            description="erase it permanently instead, with the turn it came from and "
                        "that turn's other memories, and prove it (needs the 'purge' "
                        "right; cannot be undone)")] = False) -> ChangeResult:
        """Forget one memory by id (it stops being retrieved; the operator can undo
        it). A memory the operator curated is not forgotten: the request is held for
        their review. With purge: true the memory is erased permanently from every
        place the store keeps it (memories held for review or curated by the operator
        cannot be erased by an agent)."""
        note = _note(rt.origin(ctx, "user"))
        if purge:
            out = await run_store(purge_one, store, memory_id, rt.scope.serves(), note)
            rt.memories_changed()
            return out

        def run() -> agent_actions.AgentChange:
            return agent_actions.forget(store, memory_id, rt.scope.serves(),
                                        note=note)

        out = _change(await run_store(run))
        rt.memories_changed()
        return out


def purge_one(store: MemoryStore, memory_id: str, serves: agent_actions.Serves,
              note: str) -> ChangeResult:
    """An agent's purge (core/erasure/): its answer, without the receipt's details."""
    check_agent_text("memory_id", memory_id)
    erased = Erasure(store).purge(memory_id, actor="agent", who=note, serves=serves)
    ids = [e["id"] for e in erased.receipt["erased"]]
    done = ("Erased permanently" if erased.verdict == "erased" else
            "Erased, but the proof still found a copy (the operator has the receipt)")
    return {"memory_id": memory_id, "status": "erased",
            "message": f"{done}: {len(ids)} memor{'y' if len(ids) == 1 else 'ies'}; "
                       "this cannot be undone.",
            "correction_id": None, "reasons": [], "erased": ids,
            "erasure_id": erased.erasure_id, "verdict": erased.verdict}
