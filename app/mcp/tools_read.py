"""The MCP tools that read: ``retrieve``, ``get_memory``, ``search_memories``,
``list_memories``, ``memory_history`` and ``job_status``.  Each answers only about the
users the server and the caller serve: another user's memory or job is "not found",
word for word as a missing one (no existence oracle)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Literal, cast

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from memdesk.app.mcp.common import READ, run_store
from memdesk.app.mcp.models import (
    AgentArg,
    Event,
    History,
    Hit,
    JobIdArg,
    JobState,
    LimitArg,
    Memory,
    MemoryIdArg,
    MemoryTypeName,
    MemoryWithOrigin,
    Page,
    Preference,
    Retrieval,
    RunArg,
    StatusArg,
    UserArg,
)
from memdesk.core.errors import NotFoundError
from memdesk.core.guard import agent_actions
from memdesk.core.guard.agent_api import agent_filter, agent_view, check_agent_text
from memdesk.core.guard.origin import origin_of_memory
from memdesk.core.guard.review import Review
from memdesk.core.ids import utcnow
from memdesk.core.read.retriever import MAX_K
from memdesk.core.read.terms import MAX_QUERY_CHARS
from memdesk.core.store.episodes import Episodes
from memdesk.core.store.query import Status
from memdesk.core.write.jobs import JobQueue

if TYPE_CHECKING:
    from memdesk.app.mcp.runtime import Runtime

HIT_FIELDS = ("id", "text", "type", "layer", "score", "relevance", "importance", "created_at")
# Present only on some results: below the floor (floor=false); an episode's own fields;
# a unit's episode.
FLOOR_OFF = ("below_floor", "speaker", "session", "said_at", "event_date", "event_phrase",
             "date_note", "episode")


LOADING_NOTE = ("the embedding model is still loading: answered from the keyword and "
                "graph channels only")
FULL = "full: keyword, vector and graph channels"


def recall_line(used: tuple[str, ...], asked: Sequence[str] | None, notes: list[str]) -> str:
    """The answer's first field: whether it is full, and if not why, in words an agent
    reads before the results (a host may show only the text, and notes come last)."""
    if "vector" in used or (asked and "vector" not in asked):
        return FULL if not asked else f"as asked: the {', '.join(used)} channel(s) only"
    loading = LOADING_NOTE in notes
    why = "the embedding model is still loading" if loading else next(
        (n for n in notes if "vectors are off" in n), "the vector channel did not run")
    return (f"DEGRADED, without vector search ({why}): these results come from the "
            "keyword and graph channels only and can miss memories worded differently "
            "from the query" + ("; ask again in a few seconds for a full answer"
                                if loading else ""))


def register(mcp: MCPServer, rt: Runtime) -> None:
    store = rt.store

    @mcp.tool(annotations=READ)
    async def retrieve(
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description=(
            "what you need to know, in words (the user's question or the topic at hand)"))],
        user_id: UserArg = None,
        k: Annotated[int, Field(ge=1, le=min(MAX_K, 100), description=(
            "how many memories to return"))] = 10,
        channels: Annotated[list[Literal["fts", "vector", "graph"]] | None, Field(
            max_length=3, description="for diagnosis only: run just these retrieval "
                                      "channels (turns preference injection off); "
                                      "default: all")] = None,
        include_preferences: Annotated[bool, Field(description=(
            "also return the user's standing preferences (default: yes)"))] = True,
        agent_id: AgentArg = None,
        run_id: RunArg = None,
        floor: Annotated[bool, Field(description=(
            "true (default): only memories that relate to the query, so a question "
            "with no answer in memory gets few or none; false: always k, filled with "
            "the nearest memories below the relevance bar, each marked below_floor "
            "(for callers that judge relevance themselves)"))] = True,
    ) -> Retrieval:
        """The user's memories most relevant to the query (keyword, vector and entity-graph
        channels fused), plus their standing preferences (injected every time). Call it
        before answering. agent_id / run_id limit it (preferences included) to what
        that agent or run stored. An empty result means nothing stored relates to the
        query; floor=false returns the nearest k anyway. The answer's first field,
        recall, says whether it is full or DEGRADED (no vector search) and why."""
        ready = await rt.wait_ready()

        def run() -> Retrieval:
            user = rt.scope.user(user_id)
            for name, v in (("query", query), ("agent_id", agent_id), ("run_id", run_id)):
                check_agent_text(name, v)
            retriever = rt.retriever if ready else rt.keyword_retriever()
            # list[str]: the core takes any channel names (it refuses unknown ones).
            r = retriever.retrieve(query, user, k, list(channels or ()) or None,
                                   include_preferences,
                                   agent_id=agent_id, run_id=run_id, floor=floor)
            notes = list(r.notes)
            if not ready:
                notes = [n for n in notes if "vectors are off" not in n]
                notes.append(LOADING_NOTE)
            # The core answers plain JSON dicts; models.py declares their shape for
            # the tool's schema, and these casts say that is what they are.
            return {"recall": recall_line(r.channels, channels, notes),
                    "retrieval_id": r.retrieval_id,
                    "results": [cast(Hit, {f: j[f] for f in (*HIT_FIELDS, *FLOOR_OFF) if f in j})
                                for j in (h.to_json() for h in r.results)],
                    "preferences": [cast(Preference, p.to_json()) for p in r.preferences],
                    "notes": notes, "duration_ms": round(r.duration_ms, 2)}

        return await run_store(run)

    @mcp.tool(annotations=READ)
    async def get_memory(memory_id: MemoryIdArg) -> MemoryWithOrigin:
        """One memory by id, with its status (active, superseded, expired) and the agent
        client it came from."""
        def run() -> MemoryWithOrigin:
            serves = rt.scope.serves()
            with store.read() as conn:
                out = agent_view(agent_actions.visible_in(store, conn, memory_id, serves))
                origin = origin_of_memory(conn, memory_id)
            out["origin"] = origin.to_json() if origin else None
            return cast(MemoryWithOrigin, out)

        return await run_store(run)

    def page(user_id: str | None, *, text: str = "", types: list[str] | None = None,
             status: str, agent_id: str | None, run_id: str | None, offset: int,
             limit: int) -> Page:
        user = rt.scope.user(user_id)
        flt = agent_filter(user, text=text, types=types or (), status=status,
                           agent_id=agent_id, run_id=run_id)
        rows = store.page(flt, order_by="created_at", descending=True, offset=offset,
                          limit=limit + 1)
        more = len(rows) > limit
        return {"items": [cast(Memory, agent_view(r)) for r in rows[:limit]],
                "offset": offset, "limit": limit, "more": more,
                "next_offset": offset + limit if more else None}

    @mcp.tool(annotations=READ)
    async def search_memories(
        user_id: UserArg = None,
        text: Annotated[str, Field(max_length=1000, description=(
            "words the memories must contain (full-text search; empty: any)"))] = "",
        types: Annotated[list[MemoryTypeName], Field(max_length=8, description=(
            "only these kinds of memory (default: all)"))] = [],  # noqa: B006
        status: StatusArg = "active",
        limit: LimitArg = 20,
        agent_id: AgentArg = None,
        run_id: RunArg = None,
    ) -> Page:
        """Memories of one user that contain these words, newest first. Use retrieve to
        find what is relevant to a question; this finds exact words."""
        return await run_store(page, user_id, text=text, types=list(types), status=status,
                               agent_id=agent_id, run_id=run_id, offset=0, limit=limit)

    @mcp.tool(annotations=READ)
    async def list_memories(
        user_id: UserArg = None,
        status: StatusArg = "active",
        agent_id: AgentArg = None,
        run_id: RunArg = None,
        limit: LimitArg = 20,
        offset: Annotated[int, Field(ge=0, le=100_000, description=(
            "skip this many (pass the previous page's next_offset)"))] = 0,
    ) -> Page:
        """One user's memories, newest first, a page at a time (more/next_offset say
        whether another page follows)."""
        return await run_store(page, user_id, status=status, agent_id=agent_id,
                               run_id=run_id, offset=offset, limit=limit)

    @mcp.tool(annotations=READ)
    async def memory_history(memory_id: MemoryIdArg) -> History:
        """What happened to one memory, oldest first: created, corrected, edited by the
        operator, forgotten, held for review… with who did it (agent, operator, worker,
        import) and the fields that changed."""
        def run() -> History:
            events = agent_actions.history(store, memory_id, rt.scope.serves())
            return {"memory_id": memory_id, "events": cast(list[Event], events)}

        return await run_store(run)

    @mcp.tool(annotations=READ)
    async def job_status(job_id: JobIdArg) -> JobState:
        """The state of a store_memory job: pending or running (with how long it has
        waited), done (with the ids of the memories it stored) or failed (with the
        error)."""
        def run() -> JobState:
            serves = rt.scope.serves()
            check_agent_text("job_id", job_id)
            try:
                job = JobQueue(store).get(job_id)
            except NotFoundError:
                job = None
            if job is None or not serves(job.user_id):
                raise NotFoundError(f"No job with id {job_id!r}")
            episode = Episodes(store).of_job(job.id) if job.status == "done" else None
            records = store.get_many([*job.memory_ids, *([episode] if episode else [])])
            visible = [r.id for r in records if r.status is Status.ACTIVE and r.id != episode]
            held = sum(1 for r in records if r.status is Status.QUARANTINED)
            shown_episode = episode if episode in {r.id for r in records
                                                   if r.status is Status.ACTIVE} else None
            end = job.finished_at or utcnow()
            held_ids = [r.id for r in records if r.status is Status.QUARANTINED]
            secrets = Review(store).secret_categories(held_ids)
            state: JobState = {
                "job_id": job.id, "status": job.status, "attempts": job.attempts,
                "created_at": job.created_at.isoformat(),
                "finished_at": job.finished_at.isoformat() if job.finished_at else None,
                "waited_s": round((end - job.created_at).total_seconds(), 3),
                "memory_ids": visible, "held_for_review": held, "error": job.error,
                "episode_id": shown_episode}
            if secrets:  # the categories of secret held, never a value
                state["held_secrets"] = secrets
            return state

        return await run_store(run)
