"""The guard's verdict on one item of an import, through the guard's own screening call
(:func:`memdesk.core.guard.screen.screen`, the one the worker and the agents' actions
make), never a copy of its rules.

An item is screened as the worker screens a memory whose job has no agent origin (the
operator's own writes): source ``user``, the memory's text and value, and the store
for the rules that read it (a contradiction of a curated memory).  There is no turn:
an export holds memories, not what was said.

Which verdicts are secrets or personal data is :func:`is_secret`, the one place that
decides it.  Today the guard's ``secret-value`` rule (a planted password, key, code or
payment detail) is its only such verdict.  The secrets lane being added to the guard
reports its holds through the same ``screen`` call; the lead wires its verdicts in
:data:`SECRET_RULES` / :func:`is_secret` (SECRETS LANE: wire here), and the preview
counts them with no other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from memdesk.core.guard.rule import Source
from memdesk.core.guard.screen import Candidate, Finding, screen

# How an imported memory is judged: as the operator's own write (no agent origin).
SOURCE = Source.USER
# SECRETS LANE: wire here.  The guard's verdicts that mean "a secret or personal data".
SECRET_RULES = frozenset({"secret-value"})


def is_secret(finding: Finding) -> bool:
    """Whether one of the guard's findings holds a memory for a secret or personal data.

    SECRETS LANE: wire here (a rule id prefix, a category on the finding: whatever
    the lane reports; its tests then count through this one function)."""
    return finding.rule_id in SECRET_RULES


@dataclass(frozen=True)
class Verdict:
    findings: tuple[Finding, ...]

    @property
    def held(self) -> bool:
        return bool(self.findings)

    @property
    def secret(self) -> bool:
        return any(is_secret(f) for f in self.findings)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(f.rule_id for f in self.findings)

    @property
    def reason(self) -> str:
        return "; ".join(f.reason for f in self.findings)


def judge(values: dict[str, Any], conn: Connection | None) -> Verdict:
    """The guard's findings on one memory's values (``conn``: a read of the store)."""
    return Verdict(tuple(screen(Candidate.from_values(values), None, SOURCE, conn)))


def judge_turn(text: str, user_id: str) -> Verdict:
    """A transcript turn: the guard reads it as the unit and as its turn, as the worker
    reads the units extracted from it."""
    return Verdict(tuple(screen(Candidate(text, user_id), text, SOURCE, None)))
