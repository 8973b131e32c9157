"""Every right enforced: every MCP tool × every combination of rights × both transports
× the caller's own user and another user, each cell allowed or refused as the declared
table (core/guard/rights.py's TOOL_RIGHTS) says.

How the cells map onto the transports:

- **HTTP** (``memdesk mcp --http`` granting every right, one server, unbound): one
  bearer token per combination of rights, each for alice only; its own user is alice,
  the other bob.
- **stdio** has no token: ``memdesk mcp --user alice --rights R`` binds the server to
  alice and grants every caller R (without ``--rights``: every right).  One server per
  combination; its own user is alice, the other bob (outside the binding).
- **none**: a token holds at least one right (``tokens add --rights ''`` is refused), and
  so does a server (``mcp --rights ''``); over HTTP a call without a token is refused
  with 401 before any tool runs, for every tool.

``forget`` with ``purge: true`` is a call of its own (``forget+purge``): it needs the
``purge`` right on top of ``forget``'s (core/guard/rights.py's ARGUMENT_RIGHTS), and an
allowed one erases the memory for good.

Each cell checks the answer (allowed: the tool answered; refused: a tool error that
names the missing right, or for another user "not found" / "not served" word for word
as for an id or user that does not exist), the access log (one row per call, in order,
``refused`` for every refusal) and the store afterwards (a refused forget, correction or
store_memory changed nothing).  The expected answer comes from TOOL_RIGHTS, and the
tools called are the ones the server lists: a new tool fails here until it has a row
(the server refuses to start without one) and arguments below.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession

from memdesk.app.main import main
from memdesk.core.errors import NotFoundError
from memdesk.core.guard import access, tokens
from memdesk.core.guard.rights import ARGUMENT_RIGHTS, RIGHTS, TOOL_RIGHTS, missing_right
from memdesk.core.ids import new_id
from memdesk.core.store.archive import Archive
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from tests.helpers import mcp_stdio
from tests.helpers.mcp_http import http_server, post, session

# Every combination of the four rights, on both transports: 30 servers' worth of calls,
# which takes longer than the suite's default limit on a loaded two-core machine.
pytestmark = pytest.mark.timeout(900)
OWN, OTHER, GHOST_USER = "alice", "bob", "nobody-at-all"
COMBOS = [frozenset(c) for n in range(1, len(RIGHTS) + 1) for c in combinations(RIGHTS, n)]
TRANSPORTS = ("stdio", "http")
TARGETS = ("own", "other")


def key(combo: frozenset[str]) -> str:
    return ".".join(r for r in RIGHTS if r in combo)


@dataclass
class Targets:
    """One user's ids a cell calls with: shared reads, and a fresh memory per server ×
    combination for the tools that change it."""

    user: str
    memory: str
    job: str
    to_update: str = ""
    to_forget: str = ""
    to_purge: str = ""
    to_archive: str = ""
    to_unarchive: str = ""  # archived by an agent (an operator's archive is curated)


# Each tool's arguments for a target: the whole argument set the tool is called with.
ARGS: dict[str, Callable[[Targets], dict[str, Any]]] = {
    "retrieve": lambda t: {"query": "green tea", "user_id": t.user},
    "get_memory": lambda t: {"memory_id": t.memory},
    "search_memories": lambda t: {"user_id": t.user, "text": "tea"},
    "list_memories": lambda t: {"user_id": t.user},
    "memory_history": lambda t: {"memory_id": t.memory},
    "job_status": lambda t: {"job_id": t.job},
    "store_memory": lambda t: {"text": "I moved to Oslo last year.", "user_id": t.user},
    "update_memory": lambda t: {"memory_id": t.to_update,
                                "text": "The user drinks coffee now."},
    "forget": lambda t: {"memory_id": t.to_forget},
    "forget+purge": lambda t: {"memory_id": t.to_purge, "purge": True},
    "archive": lambda t: {"memory_id": t.to_archive},
    "unarchive": lambda t: {"memory_id": t.to_unarchive},
}
# Every call a cell makes: each tool, then each argument that needs a right of its own
# ("forget+purge"), with the tool it calls and the rights it needs, in order.
CALLS: dict[str, tuple[str, tuple[str, ...]]] = {
    **{tool: (tool, (right,)) for tool, right in TOOL_RIGHTS.items()},
    **{f"{tool}+{arg}": (tool, (TOOL_RIGHTS[tool], right))
       for (tool, arg), right in ARGUMENT_RIGHTS.items()},
}
# The argument that names the target, and so differs between a target and a ghost.
NAMES = {"user_id", "memory_id", "job_id"}


def expected(call: str, combo: frozenset[str], target: str) -> str:
    """The cell's answer, from the declared tables only."""
    needs = CALLS[call][1]
    return "allowed" if target == "own" and set(needs) <= combo else "refused"


def missing(call: str, combo: frozenset[str]) -> str | None:
    """The first right the call needs and the combination lacks (the one refused)."""
    return next((r for r in CALLS[call][1] if r not in combo), None)


@dataclass
class Answer:
    error: bool
    text: str


@dataclass
class Run:
    """What one server × combination answered: per (tool, target) the answer, and for
    the other user also what a ghost (an id or user that does not exist) got."""

    db: Path
    answers: dict[tuple[str, str], Answer] = field(default_factory=dict)
    ghost: dict[str, Answer] = field(default_factory=dict)
    ghost_names: dict[str, str] = field(default_factory=dict)
    other_names: dict[str, str] = field(default_factory=dict)
    listed: dict[str, Any] = field(default_factory=dict)  # tool: its annotations
    log: list[access.Access] = field(default_factory=list)


@dataclass
class Matrix:
    runs: dict[tuple[str, str], Run]
    targets: dict[tuple[str, str], dict[str, Targets]]
    jobs_before: dict[str, int]
    no_token: dict[str, int]


def targeted(call: str, t: Targets) -> str:
    args = ARGS[call](t)
    return str(next(v for k, v in args.items() if k in NAMES))


async def call_all(s: ClientSession, run: Run, targets: dict[str, Targets]) -> None:
    run.listed = {t.name: t.annotations for t in (await s.list_tools()).tools}
    ghost = Targets(GHOST_USER, new_id(), new_id(), new_id(), new_id(), new_id(), new_id(),
                    new_id())
    # Own and other first, ghosts last: the access log's rows come in this order.
    for call, (tool, _needs) in CALLS.items():
        for target in TARGETS:
            r = await s.call_tool(tool, ARGS[call](targets[target]))
            run.answers[call, target] = Answer(bool(r.is_error), r.content[0].text)
        run.other_names[call] = targeted(call, targets["other"])
    for call, (tool, _needs) in CALLS.items():
        r = await s.call_tool(tool, ARGS[call](ghost))
        run.ghost[call] = Answer(bool(r.is_error), r.content[0].text)
        run.ghost_names[call] = targeted(call, ghost)


def jobs_of(store: MemoryStore) -> dict[str, int]:
    users = [j.user_id for j in JobQueue(store).list(limit=100_000)]
    return {u: users.count(u) for u in (OWN, OTHER, GHOST_USER)}


def seed(store: MemoryStore, user: str) -> Targets:
    mem = store.add(user_id=user, text=f"{user} likes green tea", type="preference",
                    actor="agent").id
    return Targets(user, mem, JobQueue(store).enqueue(Turn(f"I am {user}.", user)))


def copy_store(db: Path, to: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{db}{suffix}").exists():
            shutil.copyfile(f"{db}{suffix}", f"{to}{suffix}")
    return to


def read_log(db: Path, caller: str) -> list[access.Access]:
    """The caller's access rows, oldest first (the server flushed them as it stopped)."""
    store = MemoryStore.open(db, create=False)
    try:
        return list(reversed(access.recent_calls(store, caller, 1000)))
    finally:
        store.close()


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Matrix]:
    """Runs every cell once: one HTTP server (a token per combination, called one after
    another), and a stdio server per combination on its own copy of the store (so its
    access log is its own), several at a time."""
    home = tmp_path_factory.mktemp("rights")
    db = home / "store.db"
    store = MemoryStore.open(db, create=True)
    shared = {"own": seed(store, OWN), "other": seed(store, OTHER)}
    targets: dict[tuple[str, str], dict[str, Targets]] = {}
    secrets: dict[str, str] = {}
    for transport in TRANSPORTS:
        for combo in COMBOS:
            per: dict[str, Targets] = {}
            for target, base in shared.items():
                # Texts of their own: a purge takes the user's memories of exactly the
                # same text along, so a shared text would be erased by the first cell.
                fresh = [store.add(user_id=base.user, type="fact", actor="agent",
                                   text=f"{base.user} lives in Lisbon ({transport} "
                                        f"{key(combo)} #{i})").id for i in range(5)]
                Archive(store).archive(fresh[4:], actor="agent")
                per[target] = Targets(base.user, base.memory, base.job, *fresh)
            targets[transport, key(combo)] = per
    for combo in COMBOS:
        secrets[key(combo)] = tokens.add_token(store, f"t-{key(combo)}", [OWN],
                                               sorted(combo)).secret
    jobs_before = jobs_of(store)
    store.close()
    runs = {("stdio", key(c)): Run(copy_store(db, home / f"stdio-{key(c)}.db"))
            for c in COMBOS} | {("http", key(c)): Run(db) for c in COMBOS}
    limiter = anyio.CapacityLimiter(4)  # a 2-core machine: starting them is the cost

    async def over_stdio(combo: frozenset[str]) -> None:
        run = runs["stdio", key(combo)]
        async with limiter:
            with anyio.fail_after(mcp_stdio.LIMIT_S):
                async with mcp_stdio.client(run.db, home, "--user", OWN, "--rights",
                                            ",".join(sorted(combo))) as s:
                    await call_all(s, run, targets["stdio", key(combo)])

    async def over_http(url: str) -> None:
        for combo in COMBOS:
            with anyio.fail_after(mcp_stdio.LIMIT_S):
                async with session(url, secrets[key(combo)]) as s:
                    await call_all(s, runs["http", key(combo)], targets["http", key(combo)])

    async def everything(url: str) -> None:
        async with anyio.create_task_group() as tg:
            for combo in COMBOS:
                tg.start_soon(over_stdio, combo)
            tg.start_soon(over_http, url)

    no_token: dict[str, int] = {}
    # The server grants every right (purge only when named), so each token's own
    # rights decide the HTTP cells.
    with http_server(db, home, "--rights", ",".join(RIGHTS)) as url:
        anyio.run(everything, url)
        for tool in TOOL_RIGHTS:  # "none": no token at all
            status, _, body = post(url, None, {
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": ARGS[tool](shared["own"])}})
            assert "bearer token is required" in body["error"]["message"]
            no_token[tool] = status
    for (transport, combo), run in runs.items():
        run.log = read_log(run.db, "local" if transport == "stdio" else f"t-{combo}")
    yield Matrix(runs, targets, jobs_before, no_token)


CELLS = [(transport, key(combo), call, target) for transport in TRANSPORTS
         for combo in COMBOS for call in CALLS for target in TARGETS]


def test_the_table_covers_every_tool_the_server_lists(matrix: Matrix) -> None:
    for run in matrix.runs.values():
        assert set(run.listed) == set(TOOL_RIGHTS) == {tool for tool, _ in CALLS.values()}
        assert set(CALLS) == set(ARGS)
    assert set(TOOL_RIGHTS.values()) <= set(RIGHTS)
    # The table agrees with what each tool says it does: a read-only tool needs read,
    # one that destroys needs forget, one that adds needs write; unarchive, which
    # destroys nothing, needs what archive needs (it takes back what archive did).
    for tool, hints in matrix.runs["http", "read"].listed.items():
        need = ("read" if hints.read_only_hint else
                "forget" if hints.destructive_hint or tool == "unarchive" else "write")
        assert TOOL_RIGHTS[tool] == need, (tool, hints)
    assert len(matrix.runs) == len(TRANSPORTS) * len(COMBOS) == 30


@pytest.mark.parametrize(("transport", "combo", "call", "target"), CELLS,
                         ids=["-".join(c) for c in CELLS])
def test_cell(matrix: Matrix, transport: str, combo: str, call: str, target: str) -> None:
    rights = frozenset(combo.split("."))
    run = matrix.runs[transport, combo]
    answer = run.answers[call, target]
    tool = CALLS[call][0]
    need = missing(call, rights)
    if expected(call, rights, target) == "allowed":
        assert not answer.error, answer.text
        json.loads(answer.text)
    else:
        assert answer.error, (f"{transport} {combo}: {call} for the {target} user was "
                              f"allowed: {answer.text}")
        if need is not None:
            # The missing right is named; the words do not depend on whom or what the
            # call was after (own, other or a ghost: the same text).
            who = ("this server (started with --rights "
                   f"{','.join(r for r in RIGHTS if r in rights)})"
                   if transport == "stdio" else f"this caller (t-{combo})")
            assert answer.text == f"Error executing tool {tool}: {missing_right(need, who)}"
            assert run.ghost[call].text == answer.text
        else:
            # Another user's: word for word what an id or user that does not exist gets.
            ghost = run.ghost[call]
            assert ghost.error
            assert (answer.text.replace(run.other_names[call], "<x>")
                    == ghost.text.replace(run.ghost_names[call], "<x>")), (answer, ghost)
    # The access log: this call's row, in call order, refused when it was refused.
    index = 2 * list(CALLS).index(call) + TARGETS.index(target)
    row = run.log[index]
    assert (row.tool, row.transport) == (tool, "stdio" if transport == "stdio"
                                         else "streamable-http")
    assert row.outcome == ("ok" if expected(call, rights, target) == "allowed"
                           else "refused"), row
    if target == "other":
        assert row.user_id in (OTHER, None), row


@pytest.mark.parametrize(("transport", "combo"), [(t, key(c)) for t in TRANSPORTS
                                                  for c in COMBOS])
def test_refused_changes_change_nothing(matrix: Matrix, transport: str, combo: str) -> None:
    """A refused forget, correction, archive, unarchive or store_memory changed nothing;
    an allowed one did."""
    rights = frozenset(combo.split("."))
    per = matrix.targets[transport, combo]
    store = MemoryStore.open(matrix.runs[transport, combo].db, create=False)
    try:
        for target, t in per.items():
            erased = _gone(store, t.to_purge)
            assert erased == (expected("forget+purge", rights, target) == "allowed"), t
            forgotten = store.get(t.to_forget).status is Status.DELETED
            corrected = store.get(t.to_update).status is Status.SUPERSEDED
            archived = store.get(t.to_archive).status is Status.ARCHIVED
            unarchived = store.get(t.to_unarchive).status is Status.ACTIVE
            assert forgotten == (expected("forget", rights, target) == "allowed"), t
            assert corrected == (expected("update_memory", rights, target) == "allowed"), t
            assert archived == (expected("archive", rights, target) == "allowed"), t
            assert unarchived == (expected("unarchive", rights, target) == "allowed"), t
        jobs = jobs_of(store)
    finally:
        store.close()
    # One store per stdio server; the HTTP server's is shared by every token.
    combos = [rights] if transport == "stdio" else COMBOS
    writers = sum(1 for c in combos if expected("store_memory", c, "own") == "allowed")
    assert jobs == {OWN: matrix.jobs_before[OWN] + writers,
                    OTHER: matrix.jobs_before[OTHER], GHOST_USER: 0}


def _gone(store: MemoryStore, memory_id: str) -> bool:
    """Whether the memory was erased (a purge leaves nothing to get)."""
    try:
        store.get(memory_id)
    except NotFoundError as exc:
        assert "erased permanently" in str(exc)
        return True
    return False


@pytest.mark.parametrize("tool", list(TOOL_RIGHTS))
def test_no_rights_no_call(matrix: Matrix, tool: str) -> None:
    """The "none" column: without a token every tool is refused (401) over HTTP."""
    assert matrix.no_token[tool] == 401


def test_no_token_and_no_server_holds_no_right(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    assert main(["tokens", "add", "empty", "--db", db, "--user", OWN, "--rights", ""]) == 2
    assert "a token needs at least one right" in capsys.readouterr().err
    assert main(["mcp", "--db", db, "--user", OWN, "--rights", " , "]) == 2
    assert "a server needs at least one right" in capsys.readouterr().err
    assert main(["mcp", "--db", db, "--rights", "read,admin"]) == 2
    assert "unknown right(s) admin" in capsys.readouterr().err
