"""The MCP tools' typed outputs (the SDK publishes each as the tool's ``outputSchema``
and checks every answer against it) and their shared argument types."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from memdesk.core.read.terms import MAX_QUERY_CHARS  # noqa: F401 - re-exported for the tools

UserArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=200,
    description="whose memories (one user per call). May be left out when this server "
                "serves exactly one user; otherwise required, and only a user this server "
                "serves is accepted")]
AgentArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=200,
    description="your agent's name: memories you store carry it, and reads can be "
                "limited to it")]
RunArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=200,
    description="your run's or task's id: memories you store carry it, and reads can be "
                "limited to it")]
MemoryIdArg = Annotated[str, Field(min_length=1, max_length=64,
                                   description="a memory id, as returned by another tool")]
JobIdArg = Annotated[str, Field(min_length=1, max_length=64,
                                description="the job id store_memory returned")]
MemoryTypeName = Literal["preference", "fact", "decision", "procedure", "correction", "error",
                         "note", "reasoning"]
StatusArg = Annotated[Literal["active", "superseded", "expired", "any"], Field(
    description="active: what holds now (default); superseded/expired: replaced or "
                "outdated beliefs, kept as history; any: all three")]
LimitArg = Annotated[int, Field(ge=1, le=100, description="at most this many memories")]


class Memory(TypedDict):
    id: str
    user_id: str
    text: str
    type: str
    layer: str | None
    topic: str | None
    importance: float
    confidence: float
    source_session: str | None
    agent_id: str | None
    run_id: str | None
    created_at: str
    last_accessed: str | None
    access_count: int
    entity: str | None
    attribute: str | None
    value: str | None
    superseded_by: str | None
    valid_until: str | None
    status: str


class Origin(TypedDict):
    actor: str
    client_name: str
    client_version: str | None
    session: str
    transport: str
    source: str
    created_at: str | None


class MemoryWithOrigin(Memory):
    origin: Origin | None


class Page(TypedDict):
    items: list[Memory]
    offset: int
    limit: int
    more: bool
    next_offset: int | None


class SecretsNote(TypedDict):
    """What the secrets lane did to a turn: categories held for review, categories
    masked, and a sentence saying so (never a value)."""

    held_for_review: list[str]
    masked: list[str]
    note: str


class Job(TypedDict):
    job_id: str
    status: str
    note: str | None
    secrets: NotRequired[SecretsNote]


class JobState(TypedDict):
    job_id: str
    status: str
    attempts: int
    created_at: str
    finished_at: str | None
    waited_s: float | None
    memory_ids: list[str]
    held_for_review: int
    # The categories of secret its held memories hold (the secrets lane), never values.
    held_secrets: NotRequired[list[str]]
    error: str | None
    # The turn kept as said (its episode); None until the job is done, or while the
    # guard holds the turn for review.
    episode_id: NotRequired[str | None]


class Hit(TypedDict):
    id: str
    text: str
    type: str
    layer: str | None
    score: float
    # How strongly the result relates to the query (0-1, the channels' evidence), for
    # an agent that cuts the list itself.
    relevance: float
    importance: float
    created_at: str
    # Only with retrieve(floor=false), on the results below the relevance bar.
    below_floor: NotRequired[bool]
    # An episode (a turn kept as said): who said it, in which session, when, and when
    # what it tells of happened.
    speaker: NotRequired[str | None]
    session: NotRequired[str | None]
    said_at: NotRequired[str | None]
    event_date: NotRequired[str]
    event_phrase: NotRequired[str | None]
    date_note: NotRequired[str]
    # A unit: the episode it was extracted from (id, session, speaker, said_at, …).
    episode: NotRequired[dict[str, Any]]


class Preference(TypedDict):
    id: str
    text: str
    type: str
    layer: str | None
    created_at: str


class Retrieval(TypedDict):
    # First, so that the text an agent reads opens with it: "full" or why not
    # (the vector channel did not run).  tools_read.recall_line.
    recall: str
    retrieval_id: str
    results: list[Hit]
    preferences: list[Preference]
    notes: list[str]
    duration_ms: float


class ChangeResult(TypedDict):
    memory_id: str
    status: Literal["forgotten", "corrected", "held_for_review", "erased"]
    message: str
    correction_id: str | None
    reasons: list[str]
    # A purge (forget with purge: true): every memory it erased (the turn and its
    # units go together), the erasure's id (its receipt is kept in the store) and the
    # verdict of its proof ("erased", or "incomplete": a copy was still found).
    erased: NotRequired[list[str]]
    erasure_id: NotRequired[str]
    verdict: NotRequired[str]


class Event(TypedDict):
    event_id: int
    at: str
    by: str
    action: str
    what: str
    changed: dict[str, dict[str, Any]]
    undone: bool


class History(TypedDict):
    memory_id: str
    events: list[Event]
