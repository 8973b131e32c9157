"""The offline extractor: the write-phase design's decision table without a language
model, for English, clause by clause.

It keeps what users say and stores nothing false.  It never stores the raw turn (the
design's fallback stored raw text at confidence 0.8: its named limitation), and when it
is unsure it stores nothing and says why in the notes:

1. a sentence in another language is skipped (the notes say the offline extractor reads
   English only);
2. quoted or reported speech, jokes ("haha", "allergic to Mondays"), complaints, sarcasm,
   transient state and questions are skipped (``SKIPS``, in :mod:`extract_table` with
   the other tables); a question that states
   something about the user keeps only that statement ("Since I'm vegan, what …?",
   :mod:`extract_frames`);
3. pleasantries and acknowledgements are stripped; a clause with nothing left is skipped;
4. hypothetical / role-play / rhetorical framing (``HEDGES``) marks the unit
   ``framing="hypothetical"`` with confidence ≤ 0.3: kept for the operator, never an
   active belief;
5. "Actually, …", "No, …", "I switched from X to Y", "I no longer use X", "… now" make
   the unit a correction with the same entity and attribute as what it corrects;
6. decisions, assistant rules and procedures are read by ``RULES``; statements about the
   user or a person of theirs by :mod:`extract_predicates` (specific attributes, values
   trimmed to their object, the text written from the triple);
7. hedges of uncertainty ("I think", "might", "maybe") cap confidence at 0.5.

What it cannot do (say so rather than guess; an Ollama model does better):

- other languages: skipped, and the notes say "English only";
- phrasings outside its verb and complement lexicons (:mod:`extract_phrases`).  Scored
  once on wording nobody had seen (docs/benchmarks.md, "Offline extraction"), it kept
  42–60 % of the facts at precision 0.74–0.87; the splits it was then fixed for score
  far higher, which says little about the next user's wording.  What it misses it does
  not store, and the notes say "nothing recognised";
- focus and inversion ("Jazz is what I listen to", "it's Safari I use"), fragments after
  a comma ("…, originally from Recife"), "I'm at X now" (an employer or a café?), kin
  named by rank ("my eldest"), place names holding a comma ("Washington, D.C."), irony
  without a marker, and anything that needs the previous turns.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime

from memdesk.core.write import extract_frames as ef
from memdesk.core.write import extract_lexicon as lx
from memdesk.core.write import extract_phrases as xp
from memdesk.core.write import extract_predicates as ep
from memdesk.core.write import extract_subjects as es
from memdesk.core.write.cardinality import multi_valued
from memdesk.core.write.extract_events import read_events
from memdesk.core.write.extract_parser import Parser, load_parser
from memdesk.core.write.extract_table import (
    COMPILED_RULES,
    CORRECTION,
    EMPHASIS,
    HABIT,
    HABIT_PATTERN,
    HEDGE_PATTERNS,
    LEAD_IN,
    MODALS,
    PLEASANTRIES,
    SKIP_PATTERNS,
    SUBJECTLESS,
    SUBJUNCTIVE,
    UNCERTAIN,
    UNCERTAIN_CONFIDENCE,
    Rule,
    changed,
)
from memdesk.core.write.extract_text import (
    clauses,
    is_english,
    paraphrase,
    protected_clauses,
    reported_speech,
    restore,
    third_person_verb,
)
from memdesk.core.write.units import Extraction, Turn, Unit, top_units
from memdesk.core.write.when import resolve_event_date

log = logging.getLogger(__name__)

NAME = "heuristic"
HEDGED_CONFIDENCE = 0.25  # the write-phase checklist: hypotheticals at most 0.3
HEDGED_IMPORTANCE = 0.3
EMPHASIS_BOOST = 0.1
HYPOTHETICAL = "hypothetical"
ENGLISH_ONLY = ("the offline extractor reads English only: skipped {n} sentence(s) in "
                "another language (an Ollama model can read them)")

__all__ = ["EMPHASIS_BOOST", "HEDGED_CONFIDENCE", "HEDGED_IMPORTANCE", "NAME",
           "UNCERTAIN_CONFIDENCE", "HeuristicExtractor", "clauses", "paraphrase",
           "third_person_verb"]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


class HeuristicExtractor:
    """The decision table without a language model (see the module docstring), and
    events read with a dependency parser when spaCy is installed (:mod:`extract_events`).

    ``parser``: None loads the pipeline on first use when installed; False reads with the
    rules only.  ``model`` names the pipeline of the last turn whose units it read
    (provenance), else None.
    """

    name = NAME

    def __init__(self, parser: bool | None = None) -> None:
        self._use_parser = parser is not False
        self.model: str | None = None
        # The turn being read: its time (for dates) and whether the parser read it.
        self._said_at: datetime | None = None
        self._parsed = False

    @property
    def parser(self) -> Parser | None:
        return load_parser() if self._use_parser else None

    def extract(self, turn: Turn) -> Extraction:
        self._said_at, self._parsed = turn.said_at, False
        notes: list[str] = []
        units: list[Unit] = []
        ctx = es.Context()
        foreign = 0
        correcting = False  # "Not Lisbon — Madrid. I live in Madrid.": the rest corrects
        framed: str | None = None  # "Roleplay as my landlord; I'm a tenant": the rest too
        for clause in protected_clauses(turn.text):
            if not is_english(clause):
                foreign += 1
                continue
            if ef.correction_marker(restore(clause)):
                correcting = True
                continue
            try:
                found = self._clause(clause, notes, ctx, correcting, framed)
            except Exception as exc:  # a bug in one rule must not lose the turn's others
                log.warning("offline extractor failed on %r", clause[:80], exc_info=True)
                notes.append(f"could not read {restore(clause)[:40]!r}: "
                             f"{type(exc).__name__} (a bug; the rest of the turn was read)")
                continue
            framed = framed or next((r for r, pat in HEDGE_PATTERNS if r in ("roleplay",
                                     "hypothetical") and pat.search(clause)), None)
            for unit in found:
                if unit not in units:
                    units.append(unit)
        if foreign:
            notes.insert(0, ENGLISH_ONLY.format(n=foreign))
        if undated := sum(1 for u in units if u.when is not None and u.when.start is None
                          and turn.said_at is None):
            notes.append(f"no session time was given: {undated} time phrase(s) kept as "
                         "said, not dated")
        parser = self.parser if self._parsed else None
        self.model = parser.name if parser is not None else None
        return Extraction(top_units(_drop_superfluous(units), notes), NAME, self.model, notes)

    def _clause(self, raw: str, notes: list[str], ctx: es.Context,
                correcting: bool = False, framed: str | None = None) -> list[Unit]:
        if reported_speech(raw):
            notes.append(f"skipped {restore(raw)[:40]!r}: quoted or reported speech")
            return []
        for reason, pat in SKIP_PATTERNS:
            if pat.search(raw):
                notes.append(f"skipped {restore(raw)[:40]!r}: {reason}")
                return []
        clause = PLEASANTRIES.sub("", raw).strip()
        if not clause.strip(" .,!?;:-~"):
            notes.append(f"skipped {restore(raw)[:40]!r}: pleasantry or acknowledgement")
            return []
        hedge = next((reason for reason, pat in HEDGE_PATTERNS if pat.search(clause)), framed)
        readings: list[str] = []  # the clause for the parser, as said and without lead-in
        guess = False
        if hedge is None and clause.rstrip().endswith("?"):
            if (inner := ef.statement_in_question(clause)) is None:
                notes.append(f"skipped {restore(raw)[:40]!r}: a question asserts nothing")
                return []
            clause, guess = inner
        elif (asked := ef.request_to_remember(clause)) is not None:
            clause = asked
        correction = correcting
        clause = re.sub(r"^(?:oh|ah|hmm|um|uh|well|ok|okay)\b[\s,.!]*", "", clause, flags=re.I)
        if hedge is None and (m := CORRECTION.match(clause)) and m.end() < len(clause):
            correction, clause = True, clause[m.end():]
        marked = correction  # said to correct, before any "now" in the clause
        if hedge is None and changed(clause):
            correction = True
        uncertain = guess or UNCERTAIN.search(clause) is not None
        emphasis = EMPHASIS.search(clause) is not None
        if hedge is not None:
            for said_as, repl in SUBJUNCTIVE:
                clause = re.sub(said_as, repl, clause, flags=re.IGNORECASE)
            # The framing words go ("what if", "imagine"): read from the first "I".
            if (i := re.search(r"\bI(?:'m|\s)(?!guess|think|suppose)", clause)) is not None:
                clause = clause[i.start():]
        else:
            # The parser reads the clause as said ("In January I …", "might", "could
            # have"), then without its lead-in ("I think I left my keys": a guess).
            readings.append(clause)
            clause = LEAD_IN.sub("", clause).strip()
            readings.append(clause)
            clause = MODALS.sub("I ", clause)
            for start, repl in SUBJECTLESS:  # chat drops the "I": "Been using Arch btw"
                if re.match(start, clause, re.IGNORECASE):
                    clause = repl + clause
                    break
        said = self._read(clause, ctx)
        if hedge is None and not guess and not said and (said := self._events(readings)):
            # An event corrects only when said to ("No, I went on Friday") or when its own
            # words say a change ("now I've got an iPhone"), not for a "now" elsewhere in
            # the clause ("I studied at St. Andrews and now I work at Google").
            return [self._score(u, None, marked or changed(u.text), uncertain, emphasis)
                    for u in said]
        if hedge is None and not guess and readings:
            said = self._dated(said, readings[0])
        if not said:
            notes.append(f"nothing recognised in {restore(raw)[:40]!r}"
                         + (f" ({hedge})" if hedge else ""))
            return []
        return [self._score(u, hedge, correction, uncertain, emphasis) for u in said]

    def _events(self, readings: list[str]) -> list[Unit]:
        """What happened, read from the parse of the first reading that tells of any;
        only for what the rules did not read."""
        parser = self.parser
        if parser is None:
            return []
        self._parsed = True
        for text in dict.fromkeys(readings):
            if found := read_events(parser(restore(text)), self._said_at):
                return found
        return []

    def _dated(self, units: list[Unit], clause: str) -> list[Unit]:
        """The rules' units, with the time their sentence names ("I moved to Lyon in
        2021"); their text is left as the rules wrote it."""
        if not units:
            return units
        when = resolve_event_date(restore(clause), self._said_at)
        return [replace(u, when=when) for u in units] if when is not None else units

    def _read(self, clause: str, ctx: es.Context) -> list[Unit]:
        """The units a clause states, before framing and scoring."""
        if (topic := ef.avoided_topic(clause)) is not None:
            return [_unit("user", "The user", ep.Said("avoids_topic", topic,
                                                      f"prefers not to discuss {topic}"))]
        if (tool := ef.requested_tool(clause)) is not None:
            return [_unit("user", "The user", ep.Said(lx.preference_attribute(tool), tool,
                                                      f"prefers {tool}", type="preference"))]
        for rule, pat in COMPILED_RULES:
            if (m := pat.search(clause)) is not None:
                return [_rule_unit(rule, m, clause)]
        text = es.expand(clause)
        mine = es.my_attribute(text)
        if mine:
            return [_unit("user", "The user", s) for _, s in mine]
        subj = es.subject(text, ctx)
        if subj is not None:
            said = [*subj.extra, *xp.parse_predicate(subj.predicate)] if subj.predicate \
                else list(subj.extra)
            if subj.tools_only:
                said = [s for s in said if (s.attribute or "").startswith("prefers_")]
            units = [_unit(subj.entity, subj.label, s, subj.is_user) for s in said]
            if subj.also is not None:
                theirs = [s for s in said if s.attribute != "relation"]
                theirs += xp.parse_predicate(subj.also_predicate) if subj.also_predicate \
                    else []
                units += [_unit(subj.also[0], subj.also[1], s, False) for s in theirs]
            if units:
                return units
        if (m := HABIT_PATTERN.search(clause)) is not None:
            return [_rule_unit(HABIT, m, clause)]
        return []

    @staticmethod
    def _score(unit: Unit, hedge: str | None, correction: bool, uncertain: bool,
               emphasis: bool) -> Unit:
        importance, confidence, typ, text = unit.importance, unit.confidence, unit.type, \
            unit.text
        # "Actually" or "now" does not make a statement about a several-valued attribute
        # a correction: a correction supersedes every older value of its attribute.
        correction = (correction and not multi_valued(unit.attribute)) or typ == "correction"
        if hedge is None and correction and typ not in ("decision", "procedure"):
            typ, importance, confidence = "correction", max(importance, 0.9), 0.9
            if not text.startswith("Correction: "):
                text = "Correction: " + _lower_first(text)
        if emphasis:
            importance = min(1.0, importance + EMPHASIS_BOOST)
        if uncertain:
            confidence = min(confidence, UNCERTAIN_CONFIDENCE)
        framing = None
        if hedge is not None and typ == "correction":
            # "Say I moved to Canada": imagined, so it corrects nothing.
            typ = ep.scores(unit.attribute)[0] if unit.attribute else "fact"
        if hedge is not None:
            confidence = min(confidence, HEDGED_CONFIDENCE)
            importance = min(importance, HEDGED_IMPORTANCE)
            text = f"Not asserted ({hedge}): " + _lower_first(text)
            framing = HYPOTHETICAL
        return replace(unit, text=text, type=typ, importance=round(importance, 3),
                       confidence=round(confidence, 3), framing=framing)


def _unit(entity: str, label: str, s: ep.Said, about_user: bool = True) -> Unit:
    kind, importance, confidence = ep.scores(s.attribute) if s.attribute else (
        s.type or "fact", 0.7, 0.8)
    if s.type is not None:
        kind = s.type
    if not about_user:
        kind = "fact"  # a person's likes are facts about them, not the user's preferences
    if s.correction:
        kind = "correction"
    gap = "" if s.predicate.startswith("'") else " "
    text = restore(f"{label}{gap}{s.predicate}").rstrip(" .") + "."
    if s.attribute is None:
        return Unit(text, kind, importance, confidence)
    return Unit(text, kind, importance, confidence, entity, s.attribute,
                restore(s.value) if s.value else None)


def _rule_unit(rule: Rule, m: re.Match[str], clause: str) -> Unit:
    if "rest" in m.groupdict():
        body = restore(m.group("rest")).strip().rstrip(".!?")
        text = rule.prefix + _lower_first(body) + "."
    else:
        text = paraphrase(clause[m.start():] if rule.type in ("procedure", "decision")
                          else clause)
    return Unit(text, rule.type, rule.importance, rule.confidence)


def _drop_superfluous(units: list[Unit]) -> list[Unit]:
    """A value-less correction ("I no longer use vim") when the same turn gives the new
    value ("I use Helix now") for the same entity and attribute; that value is then the
    correction ("I quit VS Code, I'm on Vim", "I'm not at Spotify any more; I joined
    Klarna")."""
    ended = {(u.entity, u.attribute) for u in units if u.value is None and u.attribute
             and u.type == "correction"}
    out: list[Unit] = []
    for u in units:
        key = (u.entity, u.attribute)
        if u.value is not None and key in ended and u.type != "correction" \
                and u.framing is None and not multi_valued(u.attribute):
            text = u.text if u.text.startswith("Correction: ") else \
                "Correction: " + _lower_first(u.text)
            u = replace(u, type="correction", text=text, importance=max(u.importance, 0.9),
                        confidence=u.confidence if u.confidence <= UNCERTAIN_CONFIDENCE
                        else max(u.confidence, 0.9))
        out.append(u)
    valued = {(u.entity, u.attribute) for u in out if u.value is not None}
    return [u for u in out if u.value is not None or u.attribute is None
            or (u.entity, u.attribute) not in valued]
