"""The guard's verdict on one item of an import, through the guard's own screening call
(:func:`memdesk.core.guard.screen.screen`, the one the worker and the agents' actions
make), never a copy of its rules.

An item is screened as the worker screens a memory whose job has no agent origin (the
operator's own writes): source ``user``, the memory's text and value, and the store
for the rules that read it (a contradiction of a curated memory).  There is no turn:
an export holds memories, not what was said.

The secrets lane judges each item as the importer will (core/guard/secret_lane.py,
with the store's policy): a secret the policy holds is a ``secret.<category>`` finding
that replaces the planted-secret rule's; one it masks is counted as found, not held.
Which verdicts are secrets or personal data is :func:`is_secret`, the one place that
decides it: the lane's findings and the guard's ``secret-value`` rule (a planted secret
the lane does not recognise, such as an IBAN with a wrong check digit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from memdesk.core.guard.rule import Source
from memdesk.core.guard.screen import Candidate, Finding, screen
from memdesk.core.guard.secret_lane import (
    PLANTED_SECRET_RULE,
    TEXT_FIELDS,
    SecretAction,
    SecretPolicy,
    category_of_rule,
    secret_check,
)
from memdesk.core.guard.secrets import find_secrets
from memdesk.core.write.settings import secret_policy_in

# How an imported memory is judged: as the operator's own write (no agent origin).
SOURCE = Source.USER


def is_secret(finding: Finding) -> bool:
    """Whether one of the guard's findings holds a memory for a secret or personal data."""
    return (category_of_rule(finding.rule_id) is not None
            or finding.rule_id == PLANTED_SECRET_RULE)


@dataclass(frozen=True)
class Verdict:
    findings: tuple[Finding, ...]
    masked: tuple[str, ...] = ()  # the categories the policy would store masked

    @property
    def held(self) -> bool:
        return bool(self.findings)

    @property
    def secret(self) -> bool:
        return bool(self.masked) or any(is_secret(f) for f in self.findings)

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(f.rule_id for f in self.findings)

    @property
    def reason(self) -> str:
        said = [f.reason for f in self.findings]
        if self.masked:
            said.append("would be stored masked: " + ", ".join(self.masked))
        return "; ".join(said)


def _policy(conn: Connection | None) -> SecretPolicy:
    return secret_policy_in(conn) if conn is not None else SecretPolicy()


def _with_lane(values: dict[str, Any], findings: list[Finding], text: str,
               policy: SecretPolicy) -> Verdict:
    judged = secret_check(policy, text)(values, findings)
    masked = sorted({h.category.value for k in TEXT_FIELDS
                     if isinstance(v := values.get(k), str) and v
                     for h in find_secrets(v)
                     if policy.action(h.category) is SecretAction.MASK})
    return Verdict(tuple(judged), tuple(masked))


def judge(values: dict[str, Any], conn: Connection | None) -> Verdict:
    """The guard's findings on one memory's values (``conn``: a read of the store), the
    secrets lane's included."""
    findings = screen(Candidate.from_values(values), None, SOURCE, conn)
    return _with_lane(values, findings, str(values.get("text", "")), _policy(conn))


def judge_turn(text: str, user_id: str, conn: Connection | None = None) -> Verdict:
    """A transcript turn: the guard reads it as the unit and as its turn, as the worker
    reads the units extracted from it."""
    findings = screen(Candidate(text, user_id), text, SOURCE, None)
    return _with_lane({"text": text, "user_id": user_id}, findings, text, _policy(conn))
