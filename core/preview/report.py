"""What an import preview found: counts, the first few of each kind of item, the
duplicate clusters and contradiction groups the import would join, and which counts
it could not compute (and why).

Lists are capped (a 200 MB file may hold 100,000 duplicates): the counts are always
complete, the lists say how many they leave out.  The item numbers of the duplicates an
"import without the duplicates" leaves out are kept whole (``skip``): one int each.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.guard.reveal import hidden_positions

MAX_LISTED = 20  # bad items, flagged items: the first few, with their numbers
MAX_GROUPS = 50  # duplicate clusters and contradiction groups listed


@dataclass(frozen=True)
class Item:
    """One item of the file: its number (line, item or row), id when known, and why it
    is listed (a bad item's reason, the guard's reasons)."""

    number: int
    ref: str | None
    reason: str
    rules: tuple[str, ...] = ()

    def to_json(self, unit: str) -> dict[str, Any]:
        out: dict[str, Any] = {unit: self.number, "id": self.ref, "reason": self.reason}
        if self.rules:
            out["rules"] = list(self.rules)
        return out


@dataclass(frozen=True)
class Member:
    """A member of a cluster or group: a stored memory (``number`` None) or an item of
    the file (its number)."""

    id: str
    text: str
    number: int | None
    value: str | None = None

    def to_json(self, unit: str) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "text": self.text,
                               "in_store": self.number is None}
        if self.number is not None:
            out[unit] = self.number
        if self.value is not None:
            out["value"] = self.value
        return out


@dataclass(frozen=True)
class Group:
    """A duplicate cluster (``kind`` "duplicates") or contradiction group
    ("conflict" / "correction") the import would join."""

    kind: str
    user_id: str
    members: tuple[Member, ...]
    label: str = ""  # a contradiction's entity.attribute; a cluster's suggested keep

    @property
    def with_store(self) -> bool:
        return any(m.number is None for m in self.members)

    def to_json(self, unit: str) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "user_id": self.user_id,
                               "with_store": self.with_store,
                               "members": [m.to_json(unit) for m in self.members]}
        if self.kind == "duplicates":
            out["suggested_keep"] = self.label
        else:
            out["about"] = self.label
        return out


@dataclass
class Findings:
    """One kind of finding (duplicates or contradictions): how many items of the file,
    split by what they meet, and the first groups."""

    of_store: int = 0  # items that meet a stored memory
    within_file: int = 0  # items that meet only other items of the file
    group_count: int = 0
    groups: list[Group] = field(default_factory=list)
    not_computed: str | None = None  # why the count could not be made at all
    partial: str | None = None  # why the count is a lower bound

    @property
    def total(self) -> int:
        return self.of_store + self.within_file

    def add(self, group: Group) -> None:
        self.group_count += 1
        if len(self.groups) < MAX_GROUPS:
            self.groups.append(group)

    def to_json(self, unit: str) -> dict[str, Any]:
        return {"count": None if self.not_computed else self.total,
                "of_store": None if self.not_computed else self.of_store,
                "within_file": None if self.not_computed else self.within_file,
                "groups_count": self.group_count,
                "groups": [g.to_json(unit) for g in self.groups],
                "not_computed": self.not_computed, "partial": self.partial}


@dataclass
class ImportPreview:
    """What importing one file would do; nothing of it has been written."""

    label: str = ""
    kind: str = ""
    unit: str = "line"
    items: int = 0  # items read (good and bad)
    would_add: int = 0
    would_update: int = 0
    already_in_store: int = 0  # same id, left as it is (on_existing skip)
    repeated_in_file: int = 0  # an id given twice: the later ones are skipped or update
    bad_count: int = 0
    bad: list[Item] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    guard_count: int = 0
    guard: list[Item] = field(default_factory=list)
    secret_count: int = 0
    secrets: list[Item] = field(default_factory=list)
    duplicates: Findings = field(default_factory=Findings)
    contradictions: Findings = field(default_factory=Findings)
    vectors: str = ""  # where the vectors compared came from, or why there were none
    skip: set[int] = field(default_factory=set)  # numbers "without the duplicates" skips
    cancelled: bool = False
    stopped_at: int | None = None
    seconds: float = 0.0
    file_stamp: tuple[int, int] | None = None  # (size, mtime_ns): the import checks it

    @property
    def would_add_without_duplicates(self) -> int:
        return self.would_add - len(self.skip)

    @property
    def empty(self) -> bool:
        return self.items == 0 and not self.cancelled

    def add_bad(self, item: Item) -> None:
        self.bad_count += 1
        if len(self.bad) < MAX_LISTED:
            self.bad.append(item)

    def add_flagged(self, item: Item, secret: bool, held: bool = True) -> None:
        """An item the guard would hold (``held``), or a secret it would store masked."""
        if held:
            self.guard_count += 1
            if len(self.guard) < MAX_LISTED:
                self.guard.append(item)
        if secret:
            self.secret_count += 1
            if len(self.secrets) < MAX_LISTED:
                self.secrets.append(item)

    # -- words -------------------------------------------------------------------------
    def headline(self) -> str:
        u = self.unit
        if self.cancelled:
            return (f"Preview cancelled after {u} {self.stopped_at or 0:,}: nothing was "
                    "written, and the counts below cover only what was read.")
        if self.empty:
            return f"{self.label or 'The input'} holds no memories: nothing would be imported."
        return f"Preview of {self.label} ({self.kind}): nothing has been written."

    def lines(self) -> list[str]:
        """The summary, one fact a line, for the CLI and the dialog."""
        u = self.unit
        out = [self.headline()]
        if self.empty:
            return out
        out.append(f"{self.items:,} {u}s read")
        add = f"would add {self.would_add:,} memories"
        if self.skip:
            add += f" ({self.would_add_without_duplicates:,} without the duplicates)"
        out.append(add)
        if self.would_update:
            out.append(f"would update {self.would_update:,} stored memories (same id)")
        if self.already_in_store:
            out.append(f"would leave {self.already_in_store:,} alone (their id is already "
                       "in the store)")
        if self.repeated_in_file:
            out.append(f"{self.repeated_in_file:,} repeat an id given earlier in the file")
        out.append(self._findings_line("duplicate", self.duplicates))
        out.append(self._findings_line("contradict", self.contradictions))
        out.append(f"the poisoning guard flags {self.guard_count:,}"
                   + (" (an import is not held: they would arrive active; see below)"
                      if self.guard_count else ""))
        out.append(f"secrets or personal data found in {self.secret_count:,}")
        out.append(f"bad {u}s (not importable): {self.bad_count:,}")
        if self.vectors:
            out.append(f"vectors: {self.vectors}")
        return out

    @staticmethod
    def _findings_line(verb: str, f: Findings) -> str:
        if f.not_computed:
            return f"{verb}s: not computed ({f.not_computed})"
        text = (f"would {verb} {f.total:,}: {f.of_store:,} what the store holds, "
                f"{f.within_file:,} each other ({f.group_count:,} "
                f"{_plural(f.group_count, verb)})")
        if f.partial:
            text += f"; at least: {f.partial}"
        return text

    def details(self) -> list[str]:
        """The listed items and groups, for the CLI's stderr and the dialog's details."""
        u = self.unit
        out: list[str] = []
        for title, f in (("Duplicates", self.duplicates),
                         ("Contradictions", self.contradictions)):
            for g in f.groups:
                head = (f"{title[:-1]} ({g.user_id}, "
                        + (f"keep {g.label}" if g.kind == "duplicates" else g.label) + "):")
                out.append(head)
                for m in g.members:
                    where = "store" if m.number is None else f"{u} {m.number:,}"
                    val = f" [{m.value}]" if m.value is not None else ""
                    out.append(f"  {where}: {m.id}{val} {_one_line(m.text)}")
            if f.group_count > len(f.groups):
                out.append(f"… and {f.group_count - len(f.groups):,} more "
                           f"{title.lower()} ({'--json lists' if f.groups else 'not'} "
                           f"the first {len(f.groups)})")
        for title, items, count in (("flagged by the guard", self.guard, self.guard_count),
                                    ("secret or personal data", self.secrets,
                                     self.secret_count),
                                    ("bad", self.bad, self.bad_count)):
            for it in items:
                ref = f" (id {it.ref})" if it.ref else ""
                out.append(f"{title}: {u} {it.number:,}{ref}: {_one_line(it.reason, 240)}")
            if count > len(items):
                out.append(f"… and {count - len(items):,} more {title}")
        for name, n in sorted(self.dropped.items()):
            out.append(f"not carried over: {name} ({n:,} {u}s)")
        return out

    def to_json(self) -> dict[str, Any]:
        u = self.unit
        return {
            "dry_run": True, "written": False, "file": self.label, "format": self.kind,
            "unit": u, "items": self.items, "would_add": self.would_add,
            "would_add_without_duplicates": self.would_add_without_duplicates,
            "would_update": self.would_update, "already_in_store": self.already_in_store,
            "repeated_in_file": self.repeated_in_file,
            "duplicates": self.duplicates.to_json(u),
            "contradictions": self.contradictions.to_json(u),
            "guard": {"count": self.guard_count, "held_on_import": False,
                      "items": [i.to_json(u) for i in self.guard]},
            "secrets": {"count": self.secret_count,
                        "items": [i.to_json(u) for i in self.secrets]},
            "bad_count": self.bad_count, "bad": [i.to_json(u) for i in self.bad],
            "dropped_fields": dict(sorted(self.dropped.items())),
            "vectors": self.vectors, "cancelled": self.cancelled,
            "stopped_at": self.stopped_at, "seconds": round(self.seconds, 3),
        }


def _plural(n: int, verb: str) -> str:
    one, many = ("cluster", "clusters") if verb == "duplicate" else ("group", "groups")
    return one if n == 1 else many


def _one_line(text: str, n: int = 100) -> str:
    """A memory's text on one line, cut, with what the guard counts as hidden (and
    control characters) shown as ⟨U+XXXX⟩: a terminal must not reorder or hide it."""
    text = " ".join(text.split())
    text = text if len(text) <= n else text[: n - 1] + "…"
    if text.isascii() and text.isprintable():
        return text
    at = set(hidden_positions(text))
    at.update(i for i, ch in enumerate(text) if unicodedata.category(ch) in ("Cc", "Zl", "Zp"))
    return "".join(f"⟨U+{ord(ch):04X}⟩" if i in at else ch for i, ch in enumerate(text))
