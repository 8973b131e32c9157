"""The secrets lane: what a store does with each category of secret it recognises.

Per category the store's policy says **hold** (the memory waits in the review inbox, as
the guard's other holds do: never recalled until an operator approves it), **mask**
(the value is masked before anything is written, so no table, index, vector or audit
row of the store ever holds it) or **store** (kept as said).  Holding is the default
for credentials, cards, IBANs and government ids; phone numbers and e-mail addresses
are masked by default.  The policy is a store setting per category (its storage and
undo are the write path's settings, ``memdesk.core.write.settings``; the guard only
judges with it).

:func:`apply_policy` screens one text (masking what the policy masks);
:func:`unit_findings` gives the guard's findings for a memory about to be held (the
``secret.<category>`` rules); the evidence they keep is masked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from memdesk.core.errors import ValidationError
from memdesk.core.guard.screen import Finding
from memdesk.core.guard.secrets import (
    MASK,
    SecretCategory,
    SecretHit,
    find_secrets,
    mask_text,
)

RULE_PREFIX = "secret."
EVIDENCE_CHARS = 200
# The fields of a memory a secret can be in (the triple's value: "password = hunter2").
TEXT_FIELDS = ("text", "value", "entity", "attribute", "topic")


class SecretAction(StrEnum):
    HOLD = "hold"
    MASK = "mask"
    STORE = "store"


DEFAULT_ACTIONS: dict[SecretCategory, SecretAction] = {
    c: SecretAction.MASK if c in (SecretCategory.PHONE, SecretCategory.EMAIL)
    else SecretAction.HOLD for c in SecretCategory}


def check_action(value: Any) -> str:
    """A policy value, checked (the store setting's check)."""
    try:
        return SecretAction(str(value).strip().lower()).value
    except ValueError:
        raise ValidationError("action", f"{value!r} is not hold, mask or store") from None


def check_category(value: str) -> SecretCategory:
    try:
        return SecretCategory(value.strip().lower().replace("-", "_"))
    except ValueError:
        raise ValidationError("category", f"{value!r} is not a category of secret (known: "
                              f"{', '.join(c.value for c in SecretCategory)})") from None


def rule_id(category: SecretCategory) -> str:
    return RULE_PREFIX + category.value


def category_of_rule(rule: str) -> SecretCategory | None:
    """The category a ``secret.<category>`` rule holds, None for the guard's other rules."""
    if not rule.startswith(RULE_PREFIX):
        return None
    try:
        return SecretCategory(rule[len(RULE_PREFIX):])
    except ValueError:
        return None


@dataclass(frozen=True)
class SecretPolicy:
    """What to do with each category (the defaults for any not named)."""

    actions: Mapping[SecretCategory, SecretAction] = field(
        default_factory=lambda: dict(DEFAULT_ACTIONS))

    def action(self, category: SecretCategory) -> SecretAction:
        return self.actions.get(category, DEFAULT_ACTIONS[category])

    def to_json(self) -> dict[str, str]:
        return {c.value: self.action(c).value for c in SecretCategory}


def _labels(categories: Iterable[SecretCategory]) -> str:
    names = [c.label for c in dict.fromkeys(categories)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class SecretScreen:
    """What the lane did to one text: ``text`` as it will be stored (masked where the
    policy masks) and the hits it holds, masked and lets through."""

    text: str
    held: tuple[SecretHit, ...] = ()
    masked: tuple[SecretHit, ...] = ()
    stored: tuple[SecretHit, ...] = ()

    @property
    def held_categories(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(h.category.value for h in self.held))

    @property
    def masked_categories(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(h.category.value for h in self.masked))

    def note(self) -> str | None:
        """What an agent or the CLI is told: held and why, masked; never the value."""
        parts = []
        if self.held:
            parts.append(f"held for an operator's review: it holds "
                         f"{_labels(h.category for h in self.held)} (never recalled until "
                         "approved)")
        if self.masked:
            parts.append(f"{_labels(h.category for h in self.masked)} masked before it "
                         "was stored")
        return "; ".join(parts) or None

    def to_json(self) -> dict[str, Any]:
        return {"held_for_review": list(self.held_categories),
                "masked": list(self.masked_categories), "note": self.note()}


def apply_policy(text: str, policy: SecretPolicy, preceding: str | None = None
                 ) -> SecretScreen:
    """Screen ``text`` (said after ``preceding`` in the same session, if known): mask
    what the policy masks, say what it holds and what it stores as said."""
    hits = find_secrets(text, preceding)
    if not hits:
        return SecretScreen(text)
    by: dict[SecretAction, list[SecretHit]] = {a: [] for a in SecretAction}
    for h in hits:
        by[policy.action(h.category)].append(h)
    masked = mask_text(text, by[SecretAction.MASK]) if by[SecretAction.MASK] else text
    return SecretScreen(masked, tuple(by[SecretAction.HOLD]), tuple(by[SecretAction.MASK]),
                        tuple(by[SecretAction.STORE]))


def mask_fields(values: dict[str, Any], policy: SecretPolicy,
                preceding: str | None = None) -> tuple[dict[str, Any], SecretScreen]:
    """A memory's fields with what the policy masks masked, and the screen of its text
    (the other text fields' holds and masks folded in)."""
    out = dict(values)
    held: list[SecretHit] = []
    masked: list[SecretHit] = []
    stored: list[SecretHit] = []
    for name in TEXT_FIELDS:
        v = out.get(name)
        if not isinstance(v, str) or not v:
            continue
        s = apply_policy(v, policy, preceding if name == "text" else None)
        out[name] = s.text
        held += s.held
        masked += s.masked
        stored += s.stored
    return out, SecretScreen(str(out.get("text", "")), tuple(held), tuple(masked),
                             tuple(stored))


def _evidence(text: str, hit: SecretHit, hits: Iterable[SecretHit]) -> str:
    """The hit's surroundings with every secret in them masked (what the inbox shows)."""
    shown = mask_text(text, hits)
    # Where the hit's mask now starts: the text before it shrank or grew by the masks.
    before = mask_text(text[:hit.start], [h for h in hits if h.end <= hit.start])
    lo = max(0, len(before) - 80)
    clip = " ".join(shown[lo:lo + EVIDENCE_CHARS].split())
    return ("…" if lo else "") + clip


def unit_findings(values: dict[str, Any], policy: SecretPolicy,
                  preceding: str | None = None,
                  turn_values: Iterable[tuple[SecretCategory, str]] = ()) -> list[Finding]:
    """The ``secret.<category>`` findings that hold this memory: a secret the policy
    holds in one of its text fields, or a held value of the turn it came from found in
    it verbatim (an extractor may drop the words that made it recognisable)."""
    out: dict[SecretCategory, Finding] = {}
    for name in TEXT_FIELDS:
        v = values.get(name)
        if not isinstance(v, str) or not v:
            continue
        hits = find_secrets(v, preceding if name == "text" else None)
        for h in hits:
            if policy.action(h.category) is SecretAction.HOLD and h.category not in out:
                out[h.category] = _finding(h.category, h.detector, _evidence(v, h, hits))
        for cat, value in turn_values:
            if cat not in out and len(value) >= 4 and value in v:
                at = v.index(value)
                hit = SecretHit(cat, at, at + len(value), value, "a held value of its turn")
                out[cat] = _finding(cat, hit.detector, _evidence(v, hit, [hit, *hits]))
    return list(out.values())


# The poisoning guard's rule for a secret planted in a memory: the lane judges the
# secrets it recognises by the store's policy instead (and keeps their evidence masked);
# the rule still holds what the lane does not recognise (made-up payment details).
PLANTED_SECRET_RULE = "secret-value"


def refine(findings: list[Finding], lane: list[Finding], recognised: bool) -> list[Finding]:
    """The rules' findings with the lane's: where the lane holds a secret, its judgement
    (by the policy, with a masked evidence) replaces the planted-secret rule's.  Only
    then: a text the lane recognises in part but does not hold (an IBAN written with
    look-alike letters, a masked e-mail beside a planted instruction) keeps the rule's
    hold, so the lane never lets through what the guard alone would have held."""
    kept = [f for f in findings
            if not (recognised and lane and f.rule_id == PLANTED_SECRET_RULE)]
    return kept + lane


def secret_check(policy: SecretPolicy, turn_text: str, preceding: str | None = None
                 ) -> Callable[[dict[str, Any], list[Finding]], list[Finding]]:
    """The worker's secrets lane for one job, for :func:`screen_job_in`: its turn's
    secrets found once, then each memory judged (the episode is the turn itself, read
    after the turn before it; a unit on its own, and for the turn's held values)."""
    turn = find_secrets(turn_text, preceding)
    values = [(h.category, h.value) for h in turn
              if policy.action(h.category) is SecretAction.HOLD]

    def check(row: dict[str, Any], findings: list[Finding]) -> list[Finding]:
        own = preceding if row.get("text") == turn_text else None
        lane = unit_findings(row, policy, own, values)
        recognised = bool(turn) or any(
            find_secrets(v) for v in (row.get(k) for k in TEXT_FIELDS)
            if isinstance(v, str) and v)
        return refine(findings, lane, recognised)

    return check


def _finding(category: SecretCategory, detector: str, evidence: str) -> Finding:
    return Finding(rule_id(category),
                   f"Holds {category.label} ({detector}); secrets are never recalled until "
                   f"an operator approves them. Evidence, masked: “{evidence}”", evidence)


def shown_text(text: str, categories: Iterable[SecretCategory]) -> str:
    """A held memory's text as the inbox lists it before the operator reveals it: every
    secret masked; a value recognised only from its context (the turn before) is not
    found again in the text alone, so then all of it is masked."""
    cats = set(categories)
    if not cats:
        return text
    hits = find_secrets(text)
    if not any(h.category in cats for h in hits):
        return f"{MASK * 8} (reveal to read: held for {_labels(cats)})"
    return mask_text(text, hits)
