"""What every MCP tool module shares: running store work off the event loop, the
caller's scope (which users it may name and see), the one check of rights before every
tool call, the tools' annotations, and refusing arguments a tool does not take."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, model_validator

from memdesk.app.mcp.identity import (
    Binding,
    Paused,
    Refused,
    call_note,
    check_user,
    current_caller,
    lacking,
    may_serve,
    note_user,
)
from memdesk.core.errors import MemdeskError
from memdesk.core.guard.agent_api import check_agent_text
from memdesk.core.guard.rights import ARGUMENT_RIGHTS, TOOL_RIGHTS, missing_right

if TYPE_CHECKING:
    from memdesk.core.guard.access import AccessLog

T = TypeVar("T")

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                       open_world_hint=False)
# store_memory adds (a new job each call); update_memory adds a correction and retires
# the old memory (kept as history): neither destroys, neither is idempotent.
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                      open_world_hint=False)
# forget hides a memory (a soft delete the operator can undo); forgetting it again finds
# nothing, so repeating the call changes nothing more.  With purge: true it erases it
# for good (the purge right), and a repeated call is told it was erased.
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                         open_world_hint=False)


async def run_store(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run blocking store work in a worker thread, so one slow call never stalls the
    event loop; store errors and refusals become tool errors (a message for the agent,
    never a traceback).

    Reads also go to a thread: running a read on the event loop when no other was
    running (saving two thread hops) was measured slower under load 9 (HTTP retrieve
    p50 39-44 ms against 24-32, the retriever's own p95 22-26 ms against 7-8)."""
    try:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
    except (MemdeskError, Refused) as exc:
        raise ToolError(str(exc)) from exc


class Scope:
    """The users one call may name and see: the server's binding and the caller's own
    (``identity.current_caller``, set per request by the HTTP transport)."""

    def __init__(self, binding: Binding) -> None:
        self.binding = binding

    def user(self, user_id: str | None) -> str:
        """The user a call acts for: ``user_id`` or, left out, the one user served.
        Raises :class:`Refused` outside the binding or the caller's users (the call's
        right was checked before the tool ran: :func:`enforce_rights`)."""
        caller = current_caller.get()
        if user_id is None:
            served = self.binding.users
            if caller.users is not None:
                served = caller.users if served is None else served & caller.users
            if served is None or len(served) != 1:
                raise Refused("user_id is required: say whose memories (this server "
                              "serves more than one user)" if served else
                              "user_id is required: say whose memories")
            (user_id,) = served
        check_agent_text("user_id", user_id)
        note_user(user_id)
        check_user(self.binding, user_id, caller)
        return user_id

    def serves(self) -> Callable[[str], bool]:
        """A predicate for reads and changes by id: may the caller act for this user?"""
        caller = current_caller.get()

        def serves(user_id: str) -> bool:
            ok = may_serve(self.binding, caller, user_id)
            # Noted either way: the agent hears "not found", the operator's access
            # log says whose memory the refused call was after.
            note_user(user_id, refused=not ok)
            return ok

        return serves


def result_count(tool: str, result: Any) -> int | None:
    """How many memories a tool's answer returned or changed (None: not memories)."""
    if not isinstance(result, dict):
        return None
    if "results" in result:
        return len(result["results"]) + len(result.get("preferences") or ())
    for key in ("items", "events", "memory_ids"):
        if key in result:
            return len(result[key])
    return 1 if "memory_id" in result or "id" in result else None


def enforce_rights(server: MCPServer, binding: Binding) -> None:
    """Check before every tool call that the server and the caller hold the right the
    declared table gives the tool (core/guard/rights.py), and refuse it otherwise,
    naming the missing right and nothing about what the call was after.

    The only place a right is checked: the tools check users, never rights.  A tool
    without a row in the table, or a row without a tool, stops the server from being
    built, so a new tool cannot be served unchecked."""
    tools = {t.name: t for t in server._tool_manager.list_tools()}  # no public hook
    if set(tools) != set(TOOL_RIGHTS):
        unlisted, unserved = sorted(set(tools) - set(TOOL_RIGHTS)), sorted(
            set(TOOL_RIGHTS) - set(tools))
        raise RuntimeError(f"core/guard/rights.py's TOOL_RIGHTS and the MCP tools differ: "
                           f"no row for {unlisted}, no tool for {unserved}")
    for name, tool in tools.items():

        async def guarded(*args: Any, _fn: Callable[..., Any] = tool.fn,
                          _right: str = TOOL_RIGHTS[name], _name: str = name,
                          **kwargs: Any) -> Any:
            who, right = lacking(binding, current_caller.get(), _right), _right
            for (tool_name, arg), extra in ARGUMENT_RIGHTS.items():
                if who is None and tool_name == _name and kwargs.get(arg):
                    who, right = lacking(binding, current_caller.get(), extra), extra
            if who is not None:
                user_id = kwargs.get("user_id")
                if isinstance(user_id, str):  # the access log says whom it was after
                    note_user(user_id, refused=True)
                message = missing_right(right, who)
                raise ToolError(message) from Refused(message)
            return await _fn(*args, **kwargs)

        tool.fn = guarded


def record_calls(server: MCPServer, log: AccessLog, transport: str, *,
                 on_answered: Callable[[], None] = lambda: None) -> None:
    """Log every tool call in the access log (core/guard/access.py): the caller's
    token, the tool, the user it acted for, the memories it returned, the outcome.

    Each tool's function is wrapped (after the SDK validated the arguments); the row is
    queued in memory and written in batches by the log's own thread, off the call."""
    for tool in server._tool_manager.list_tools():  # the SDK exposes no public hook

        async def logged(*args: Any, _fn: Callable[..., Any] = tool.fn,
                         _name: str = tool.name, **kwargs: Any) -> Any:
            note: dict[str, str] = {}
            reset = call_note.set(note)
            t0 = time.perf_counter()
            outcome, result = "error", None
            try:
                result = await _fn(*args, **kwargs)
                outcome = "ok"
                return result
            except ToolError as exc:
                if isinstance(exc.__cause__, Paused):
                    outcome = "paused"
                elif isinstance(exc.__cause__, Refused) or "refused" in note:
                    outcome = "refused"
                raise
            finally:
                call_note.reset(reset)
                log.record(caller=current_caller.get().name, transport=transport,
                           tool=_name, user_id=note.get("refused") or note.get("user"),
                           results=result_count(_name, result) if outcome == "ok" else None,
                           outcome=outcome, ms=(time.perf_counter() - t0) * 1000)
                on_answered()

        tool.fn = logged


def forbid_unknown_arguments(server: MCPServer) -> None:
    """Refuse arguments a tool does not take, naming them and the ones it does take.

    The SDK builds each tool's argument model with pydantic's default (extra keys are
    ignored): a misspelt ``limit`` would silently do nothing.  Each model is replaced
    by a subclass that forbids extras, and the published schema says so."""
    for tool in server._tool_manager.list_tools():  # the SDK exposes no public hook
        base = tool.fn_metadata.arg_model
        names = sorted(f.alias or n for n, f in base.model_fields.items())

        def refuse_extras(cls: type, data: Any, names: list[str] = names,
                          tool_name: str = tool.name) -> Any:
            if isinstance(data, dict):
                unknown = sorted(set(data) - set(names))
                if unknown:
                    raise ValueError(
                        f"unknown argument{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(map(repr, unknown))}: {tool_name} takes "
                        f"{', '.join(names)}")
            return data

        strict = type(base.__name__, (base,), {
            "__module__": base.__module__,
            "model_config": ConfigDict(extra="forbid", arbitrary_types_allowed=True),
            # pydantic makes it a classmethod (its first parameter is ``cls``).
            "refuse_extras": model_validator(mode="before")(refuse_extras),
        })
        tool.fn_metadata.arg_model = strict
        tool.parameters["additionalProperties"] = False
