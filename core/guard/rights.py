"""What an agent may do: the rights a bearer token (or a server started with
``--rights``) holds, and which right each MCP tool needs.

One declaration, :data:`TOOL_RIGHTS`, and everything else follows from it: the MCP
server checks it before every tool call (app/mcp/common.py, the only place a right is
checked) and refuses to start when a tool has no row (or a row no tool), ``memdesk
tokens add --help`` and ``memdesk mcp --help`` list it, docs/agents.md's rights table is
generated from it (``tools/gen_rights_doc.py``; tests/docs/test_docs_rights.py compares),
and tests/mcp/test_mcp_rights_matrix.py derives every expected answer from it.

In core, not in app/mcp: the token store (core/guard/tokens.py), the desk's token
dialog and the CLI name the rights too, and none of them should import the MCP server.
"""

from __future__ import annotations

import textwrap

# Each right and what it lets an agent do, in the order tokens list them.
RIGHTS: dict[str, str] = {
    "read": "see the user's memories, their history and its store_memory jobs",
    "write": "hand over turns to remember and correct memories (a correction "
             "supersedes; the old memory is kept as history)",
    "forget": "forget memories (a soft delete the operator can undo), and archive them "
              "(kept and shown to the operator, never recalled) or unarchive them",
    "purge": "erase memories permanently with forget's purge: true (the memory, its "
             "episode or units and every copy of the text; cannot be undone). Never "
             "granted unless named",
}

# Rights a server grants only when ``memdesk mcp --rights`` names them, and a token only
# when ``memdesk tokens add --rights`` does: what cannot be undone is never a default.
NAMED_ONLY = ("purge",)
# What a server grants any caller without ``--rights``.
SERVER_DEFAULT_RIGHTS = tuple(r for r in RIGHTS if r not in NAMED_ONLY)

# Arguments that need a right of their own on top of their tool's, when given as true:
# (tool, argument) -> right.  Checked with the tool's right (app/mcp/common.py).
ARGUMENT_RIGHTS: dict[tuple[str, str], str] = {
    ("forget", "purge"): "purge",
}

# The right each MCP tool needs.  A new tool needs its row here: the server refuses to
# start without one, and the rights matrix test calls every tool the server lists.
TOOL_RIGHTS: dict[str, str] = {
    "retrieve": "read",
    "get_memory": "read",
    "search_memories": "read",
    "list_memories": "read",
    "memory_history": "read",
    "job_status": "read",
    "store_memory": "write",
    "update_memory": "write",
    "forget": "forget",
    # Archiving takes a memory out of recall as forgetting does, but keeps it: a token
    # trusted to forget is trusted to archive, and unarchive undoes what it archived.
    # Never a memory an operator curated (core/guard/agent_actions.py).
    "archive": "forget",
    "unarchive": "forget",
}

# Rights a new token gets when none are named (memdesk tokens add).
DEFAULT_TOKEN_RIGHTS = ("read", "write")

MARK_BEGIN = "<!-- rights table: generated from core/guard/rights.py by tools/gen_rights_doc.py -->"
MARK_END = "<!-- end of rights table -->"


def tools_needing(right: str) -> list[str]:
    """The tools (or a tool with an argument: ``forget(purge: true)``) that need
    ``right``, in declaration order."""
    return [tool for tool, needs in TOOL_RIGHTS.items() if needs == right] + [
        f"{tool}({arg}: true)" for (tool, arg), needs in ARGUMENT_RIGHTS.items()
        if needs == right]


def missing_right(right: str, who: str) -> str:
    """The refusal of a call whose caller lacks ``right``: names the right and the
    caller, nothing about the user or memory the call was after (the SDK puts the
    tool's name before it)."""
    return f"refused: this tool needs the {right!r} right, and {who} does not have it"


def rights_help(width: int = 79) -> str:
    """The rights and their tools, for ``--help`` (plain text, wrapped to ``width``)."""
    lines = ["rights, and the MCP tools that need each:"]
    for right, what in RIGHTS.items():
        lines += textwrap.wrap(f"{right}: {', '.join(tools_needing(right))}", width,
                               initial_indent="  ", subsequent_indent="      ")
        lines += textwrap.wrap(f"lets the agent {what}", width, initial_indent="      ",
                               subsequent_indent="      ")
    return "\n".join(lines)


def rights_markdown() -> str:
    """docs/agents.md's rights table, between its markers (tools/gen_rights_doc.py)."""
    rows = ["| right | lets the agent | tools that need it |", "|---|---|---|"]
    for right, what in RIGHTS.items():
        tools = ", ".join(f"`{t}`" for t in tools_needing(right))
        rows.append(f"| `{right}` | {what} | {tools} |")
    return "\n".join([MARK_BEGIN, *rows, MARK_END])
