"""Regenerate docs/agents.md's rights table from the declaration the MCP server enforces
(core/guard/rights.py's RIGHTS and TOOL_RIGHTS), so what is documented is what is
checked.  tests/docs/test_docs_rights.py fails while the page and the declaration differ.

    .venv/bin/python tools/gen_rights_doc.py            # rewrite docs/agents.md
    .venv/bin/python tools/gen_rights_doc.py --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memdesk.core.guard.rights import MARK_BEGIN, MARK_END, rights_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


def rewritten(text: str) -> str:
    """``text`` with the table between the markers replaced by the generated one."""
    start, end = text.find(MARK_BEGIN), text.find(MARK_END)
    if start < 0 or end < start:
        raise SystemExit(f"the rights table's markers are missing: {MARK_BEGIN} … {MARK_END}")
    return text[:start] + rights_markdown() + text[end + len(MARK_END):]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="only say whether it is stale")
    p.add_argument("doc", nargs="?", type=Path, default=DOC, help="the page (docs/agents.md)")
    args = p.parse_args(argv)
    text = args.doc.read_text(encoding="utf-8")
    new = rewritten(text)
    if args.check:
        if new != text:
            print(f"{args.doc}: the rights table is stale; run tools/gen_rights_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        args.doc.write_text(new, encoding="utf-8")
        print(f"{args.doc}: rights table rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
