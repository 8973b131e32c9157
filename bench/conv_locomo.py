"""Reading a conversational benchmark in the public LoCoMo layout (``locomo10.json``).

The file is a JSON list of samples::

    {"sample_id": "conv-26",
     "conversation": {"speaker_a": "Caroline", "speaker_b": "Melanie",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "Caroline", "dia_id": "D1:1",
                                     "text": "Hey Mel!"}, ...], ...},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"],
             "category": 2}, ...]}

Other keys (observations, summaries, image captions) are ignored.  LoCoMo's numeric
categories do not follow the order the paper lists them in; the mapping the
published file and its evaluation code use (checked against the file's contents by
several groups: questions in 2 all ask "when", answers in 5 are absent) is
:data:`CATEGORIES`.  Category 5 (adversarial) questions ask about something the
conversation never says of that person: they are the no-answer questions, whatever
evidence they list.

A malformed file raises :class:`FormatError` with a message naming the sample, session
or question at fault; evidence ids that name no turn (the published file has a few,
some written as ``"D8:6; D9:17"``) are split, kept when they resolve and counted when
they do not, and a question with an answer but no resolvable evidence is set aside
and counted (it cannot be scored by retrieval).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

# LoCoMo's category numbers -> the names this benchmark reports.
CATEGORIES: dict[int, str] = {1: "multi_hop", 2: "temporal", 3: "open_domain",
                              4: "single_hop", 5: "no_answer"}
# Report order: from the simplest lookup to the questions without an answer.
ORDER = ("single_hop", "multi_hop", "temporal", "open_domain", "no_answer")
NUMBERS = {name: num for num, name in CATEGORIES.items()}
SESSION_KEY = re.compile(r"^session_(\d+)$")
DIA_SPLIT = re.compile(r"[;,\s]+")


class FormatError(ValueError):
    """The file is not in the LoCoMo layout; the message says where and why."""


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    at: datetime  # the session's date and time (turns carry no time of their own)
    index: int  # position within the session, from 0


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answer: str
    category: str
    evidence: tuple[str, ...]


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: dict[int, datetime]
    turns: list[Turn]
    questions: list[Question]
    unresolved_evidence: int = 0  # evidence ids naming no turn
    unscorable: int = 0  # questions with an answer but no resolvable evidence

    def turn(self, dia_id: str) -> Turn:
        return self.by_id[dia_id]

    @cached_property
    def by_id(self) -> dict[str, Turn]:
        return {t.dia_id: t for t in self.turns}


@dataclass
class Dataset:
    conversations: list[Conversation] = field(default_factory=list)

    def questions(self) -> int:
        return sum(len(c.questions) for c in self.conversations)

    def turns(self) -> int:
        return sum(len(c.turns) for c in self.conversations)


def parse_when(text: str, where: str) -> datetime:
    """LoCoMo's session stamps ("1:56 pm on 8 May, 2023"), or an ISO date/time."""
    s = " ".join(str(text).split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(s, fmt)
        except ValueError:
            pass
    try:
        return datetime.fromisoformat(s)
    except ValueError:
        raise FormatError(f"{where}: {text!r} is not a date and time "
                          "(expected e.g. '1:56 pm on 8 May, 2023')") from None


def _need(obj: Any, key: str, kind: type, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise FormatError(f"{where}: missing {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        raise FormatError(f"{where}: {key!r} should be {kind.__name__}, "
                          f"not {type(value).__name__}")
    return value


def _conversation(raw: Any, n: int) -> Conversation:
    if not isinstance(raw, dict):
        raise FormatError(f"sample {n}: should be an object, not {type(raw).__name__}")
    sid = str(raw.get("sample_id", f"sample-{n}"))
    where = f"sample {sid!r}"
    conv = _need(raw, "conversation", dict, where)
    a = _need(conv, "speaker_a", str, f"{where} conversation")
    b = _need(conv, "speaker_b", str, f"{where} conversation")
    sessions: dict[int, datetime] = {}
    turns: list[Turn] = []
    seen: set[str] = set()
    numbers = sorted(int(m.group(1)) for k in conv if (m := SESSION_KEY.match(k)))
    if not numbers:
        raise FormatError(f"{where}: no sessions (keys session_1, session_2, ...)")
    for num in numbers:
        swhere = f"{where} session_{num}"
        body = conv[f"session_{num}"]
        if not isinstance(body, list):
            raise FormatError(f"{swhere}: should be a list of turns")
        if not body:  # the published file has a few empty trailing sessions
            continue
        stamp = conv.get(f"session_{num}_date_time")
        if stamp is None:
            raise FormatError(f"{swhere}: missing 'session_{num}_date_time'")
        at = parse_when(stamp, f"{swhere}_date_time")
        sessions[num] = at
        for i, t in enumerate(body):
            twhere = f"{swhere} turn {i + 1}"
            dia = _need(t, "dia_id", str, twhere)
            speaker = _need(t, "speaker", str, twhere)
            text = _need(t, "text", str, twhere)
            if dia in seen:
                raise FormatError(f"{twhere}: dia_id {dia!r} is used twice")
            if not text.strip():
                raise FormatError(f"{twhere}: empty text")
            seen.add(dia)
            turns.append(Turn(dia, speaker, text, num, at, i))
    questions, unresolved, unscorable = _questions(raw, where, seen)
    return Conversation(sid, a, b, sessions, turns, questions, unresolved, unscorable)


def _questions(raw: dict[str, Any], where: str,
               turn_ids: set[str]) -> tuple[list[Question], int, int]:
    qa = _need(raw, "qa", list, where)
    out: list[Question] = []
    unresolved = unscorable = 0
    for i, q in enumerate(qa):
        qwhere = f"{where} question {i + 1}"
        text = _need(q, "question", str, qwhere)
        cat_num = q.get("category") if isinstance(q, dict) else None
        if isinstance(cat_num, str) and cat_num.isdigit():
            cat_num = int(cat_num)
        if cat_num not in CATEGORIES:
            raise FormatError(f"{qwhere}: category {cat_num!r} is not one of "
                              f"{', '.join(f'{k} ({v})' for k, v in CATEGORIES.items())}")
        cat = CATEGORIES[cat_num]
        ev_raw = q.get("evidence", [])
        if not isinstance(ev_raw, list):
            raise FormatError(f"{qwhere}: 'evidence' should be a list of dia_ids")
        ids: list[str] = []
        for e in ev_raw:
            for part in DIA_SPLIT.split(str(e)):
                if not part:
                    continue
                if part in turn_ids:
                    ids.append(part)
                else:
                    unresolved += 1
        answer = q.get("answer", q.get("adversarial_answer", ""))
        if cat != "no_answer" and not ids:
            unscorable += 1
            continue
        out.append(Question(f"{raw.get('sample_id', '?')}-q{i + 1}", text,
                            "" if answer is None else str(answer), cat,
                            tuple(dict.fromkeys(ids)) if cat != "no_answer" else ()))
    return out, unresolved, unscorable


def load(path: Path) -> Dataset:
    """Every conversation in ``path``; :class:`FormatError` with a clear message if the
    file cannot be read or is not in the LoCoMo layout."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}: not JSON ({exc.msg}, line {exc.lineno} "
                          f"column {exc.colno})") from None
    if isinstance(raw, dict):  # a single sample on its own
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise FormatError(f"{path}: expected a JSON list of samples (LoCoMo layout)")
    ds = Dataset([_conversation(s, i + 1) for i, s in enumerate(raw)])
    ids = [c.sample_id for c in ds.conversations]
    if len(set(ids)) != len(ids):
        raise FormatError(f"{path}: a sample_id is used twice")
    return ds
