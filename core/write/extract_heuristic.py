"""The offline extractor: the write-phase design's decision table without a language
model, for English, clause by clause.

It keeps what users say and stores nothing false.  It never stores the raw turn (the
design's fallback stored raw text at confidence 0.8: its named limitation), and when it
is unsure it stores nothing and says why in the notes:

1. a sentence in another language is skipped (the notes say the offline extractor reads
   English only);
2. quoted or reported speech, jokes ("haha", "allergic to Mondays"), complaints, sarcasm,
   transient state and questions are skipped (``SKIPS``); a question that states
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
from dataclasses import dataclass, replace
from datetime import datetime

from memdesk.core.write import extract_frames as ef
from memdesk.core.write import extract_lexicon as lx
from memdesk.core.write import extract_phrases as xp
from memdesk.core.write import extract_predicates as ep
from memdesk.core.write import extract_subjects as es
from memdesk.core.write.cardinality import multi_valued
from memdesk.core.write.extract_events import read_events
from memdesk.core.write.extract_parser import Parser, load_parser
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
UNCERTAIN_CONFIDENCE = 0.5
EMPHASIS_BOOST = 0.1
HYPOTHETICAL = "hypothetical"
ENGLISH_ONLY = ("the offline extractor reads English only: skipped {n} sentence(s) in "
                "another language (an Ollama model can read them)")

__all__ = ["EMPHASIS_BOOST", "HEDGED_CONFIDENCE", "HEDGED_IMPORTANCE", "NAME",
           "UNCERTAIN_CONFIDENCE", "HeuristicExtractor", "clauses", "paraphrase",
           "third_person_verb"]


@dataclass(frozen=True)
class Rule:
    """One row of the decision table for what has no triple: a pattern and its unit."""

    name: str
    pattern: str
    type: str
    importance: float
    confidence: float
    prefix: str = ""

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)


_TEAM = r"(?:I|we|the team|our team|my team|the user's team)"
RULES: tuple[Rule, ...] = (
    Rule("decision", rf"\b{_TEAM}(?: have|'ve| has|'re| are|'ll| will| might| may| could"
         r"|'m| am)?"
         r" ?(?:finally |just "
         r"|all |now )?(?:decided|agreed|chose|chosen|picked|selected|settled on|opted for"
         r"|went with|going with|(?<!\bI )go with|committed to|voted to|locked in|signed off on"
         r"|landed on"
         r"|standardi[sz](?:ed|ing) on|approved|made up (?:my|our) minds?)\b.+$"
         r"|^(?:we|the team|our team) (?:have |'ve )?(?:switched|migrated|moved) (?:over )?"
         r"(?:from .+ )?to\b.+$",
         "decision", 0.8, 0.85),
    Rule("lets", r"^let'?s go with (?P<rest>.+)$", "decision", 0.8, 0.85,
         prefix="The user decided to go with "),
    # "final call: …", "We'll use Redis, that's settled."
    Rule("settled", r"^(?:final (?:call|decision|answer)|decision(?: made)?|decided|verdict)"
         r"\s*[:,-]\s*"
         r"(?P<rest>.+)$", "decision", 0.8, 0.85, prefix="Decided: "),
    Rule("settled_after", r"^(?P<rest>.+?),?\s+(?:(?:that's|that is|it's|it is) (?:settled"
         r"|decided|final|agreed|official)|final (?:answer|decision|call))\b.*$", "decision",
         0.8, 0.85, prefix="Decided: "),
    Rule("considering", rf"\b{_TEAM}(?: am| are|'m|'re) (?:considering|thinking (?:about|of)"
         r"|leaning towards)\b.+$", "decision", 0.6, UNCERTAIN_CONFIDENCE),
    Rule("assistant_rule", r"^(?:(?:when|while|whenever|in) [\w' ]{1,30},\s*)?"
         r"(?:please,? |from now on,? |going forward,? )+(?P<rest>"
         r"(?:always|never|don't|do not|use|answer|reply|write|keep|avoid)\b.+)$",
         "preference", 0.85, 0.9, prefix="The user wants the assistant to: "),
    Rule("assistant_standing", r"^(?P<rest>(?:keep|make|give|write|format|use|avoid|skip"
         r"|stop|start|include|add)\b[^.!?]*\b(?:answers|replies|responses|explanations"
         r"|summaries|examples|messages|code samples|comments)\b.*)$", "preference", 0.8,
         0.85, prefix="The user wants the assistant to: "),
    Rule("assistant_always", r"^(?P<rest>(?:always|never) (?!mind\b).+)$",
         "preference", 0.8, 0.85, prefix="The user wants the assistant to: "),
    Rule("routine", r"\bmy (?:\w+ )?(?:routine|workflow|process|procedure|steps|checklist)"
         r"(?: is| are)?\s*(?::|-|—)\s*(?P<rest>.+)$", "procedure", 0.7, 0.85,
         prefix="The user's routine: "),
    # "To release: run the tests, bump the version, then tag and push."
    Rule("how_to", r"^(?:to|for|when|before|after) [\w' -]{2,30}:\s*(?P<rest>[^,]+(?:,[^,]+)+"
         r"(?:\bthen\b|\band\b).+)$", "procedure", 0.65, 0.8, prefix="The user's steps: "),
    Rule("sequence", r"^(?:when|whenever|before|after|once) (?:I .+?,\s*|\w+ing\b[^,]*?,?\s+)"
         r"I (?:first |always |usually )?.+$", "procedure", 0.65, 0.8),
    Rule("then_then", r"^(?:(?:every|each|on) [\w ]{1,20}?,?\s+)?I .+?(?:\bfirst\b.+?"
         r"\bthen\b|\bthen\b.+?\bthen\b).+$", "procedure", 0.65, 0.8),
    Rule("first_then", r"\bfirst,? I .+?\b(?:then|and then|after that)\b.+$",
         "procedure", 0.65, 0.8),
)
# A habit with no object we read ("I never deploy on Fridays"): after the triples.
HABIT = Rule("habit", r"^I (?:always|never|usually|normally) (?!mind\b)\w+.*$",
             "preference", 0.75, 0.8)

# Stripped from the start of a clause; a clause that was only these is a pleasantry.
PLEASANTRIES = re.compile(
    r"^(?:(?:thanks|thank you|thx|ty|cheers|great|awesome|perfect|cool|nice|ok|okay|sure"
    r"|got it|sounds good|makes sense|that's (?:helpful|great|perfect|right|useful|fine)"
    r"|that is (?:helpful|great)|hi|hello|hey|good (?:morning|night|evening|afternoon)"
    r"|bye|see you|see ya|yes|yeah|yep|no problem|no worries|you're welcome"
    r"|understood|nice one|much appreciated|good point|fair enough|right|appreciate it"
    r"|will do|alright|all right"
    r"|you rock|love it|brilliant|excellent|wonderful|fantastic|amazing|(?:so )?helpful"
    r"|very|really|a lot|so much|again|for (?:that|this|the help|your help)|anyway"
    r"|[:;]-?[)D(]|🙂|😊|👍|🙏)(?:[\s,!.~]+|$))+",
    re.IGNORECASE,
)

# (reason, pattern): the clause carries no persistent, sincere signal.
SKIPS: tuple[tuple[str, str], ...] = (
    ("a joke", r"\b(?:haha\w*|hehe\w*|lol|lmao|rofl|jk|just kidding|kidding|joking|jokingly)"
               r"\b|😂|🤣|😜|😝|😆|😅|🙃|😉|🤪|💀|😹|;\)|:P\b"),
    ("a complaint", r"\b(?:so annoying|annoying|annoys me|frustrating|drives me (?:crazy|nuts"
                    r"|mad)|ugh|so tired of|sick of|fed up)\b|\bI (?:always|keep|constantly)"
                    r" (?:forget|forgetting|lose|losing|miss|missing|break|breaking|drop"
                    r"|oversleep|mess up|burn|spill|leave|misplace|lock myself)\b"
                    r"|\bI never (?:remember|manage|get)\b|\b(?:embarrassing|so bad at|terrible at"
                    r"|hopeless at)\b"
                    r"|\bI hate (?:it )?(?:when|that|how)\b"
                    r"|\b(?:typical me|classic me|story of my life|as usual"
                    r"|of course)\s*[.!]*$"),
    ("sarcasm", r"^(?:oh|ah|wow|well)[,!.]*\s+(?:great|wonderful|fantastic|perfect|joy|brilliant"
                r"|lovely|fun|nice|super|terrific|splendid)\b"),
    ("sarcasm", r"\byeah,? right\b"),
    ("sarcasm", r"\bjust what I (?:needed|wanted)\b"),
    ("sarcasm", r"\bI (?:just )?(?:love|adore) (?:it )?when\b.*\b(?:break|breaks|broke|crash"
                r"|crashes|crashed|fail|fails|failed|is late|goes down|is down)\b"),
    ("sarcasm", r"\bcan't wait (?:for|to)\b.*\b(?:another|more|again)\b"),
    ("sarcasm", r"\bwhat a (?:joy|treat|surprise|delight)\b"),
    ("sarcasm", r"(?:^|\s)/s$"),
    ("transient state", r"\bI(?:'m| am| feel| was|'m feeling| am feeling) (?:so |really |very "
                        r"|a bit |a little |kind of |kinda |pretty |super |totally )?(?:tired"
                        r"|exhausted|sleepy|hungry|thirsty|bored|stressed|busy|sick|cold|hot"
                        r"|sad|happy|grumpy|annoyed|excited|late|swamped|done|cranky|wiped"
                        r"|knackered|frustrated|in a hurry|running late|off today)\b(?! of\b)"),
    ("transient state", r"\b(?:today|tonight|this morning|this afternoon|right now) I(?:'m| am)"
                        r" (?!allergic)"),
    ("transient state", r"\bI(?:'m| am) (?:about to|going to grab|heading out|off to|stepping)"),
)

# (reason, pattern): said, but not asserted as true about the user.
HEDGES: tuple[tuple[str, str], ...] = (
    ("hypothetical", r"\bwhat if\b"),
    ("hypothetical", r"\b(?:picture|imagine|consider) me (?:as|being)\b"),
    ("hypothetical", r"(?<!\bI )\b(?:suppose|supposing|imagine|assume|assuming|hypothetically"
                     r"|in theory)\b(?: that)?|^say\b|, say\b"),
    ("hypothetical", r"\blet'?s (?:say|pretend|assume|imagine)\b"),
    ("hypothetical", r"\b(?:if|as if|even if) I (?:were|was|had been)\b"),
    ("hypothetical", r"^(?:if|what if) I (?:\w+ed|lived|worked|moved|had|got|went|became"
                     r"|ran|spoke|ate|took|left|quit)\b.*,\s*(?:would|could|should|will"
                     r"|what|how|do|does|is|am|can)\b.*\?\s*$"),
    ("roleplay", r"\b(?:pretend(?:ing)?|role-?play(?:ing)?|act(?:ing)? as|playing the role"
                 r"|in character|you are my)\b"),
    ("rhetorical framing", r"\bI(?:'m| am) (?:basically|practically|kind of|sort of|like)\b"),
    ("rhetorical framing", r"\bI(?:'m| am) (?:actually|really) (?:a|an)\b[^.;!?]*,?\s+so\b"),
)

# Stripped before the rules run; the unit becomes a correction of an earlier belief.
CORRECTION = re.compile(r"^(?:(?:no|nope|not quite|wrong|that's wrong|correction|actually"
                        r"|update|scratch that|(?:just )?to correct myself|my bad|my mistake"
                        r"|let me correct (?:myself|that)|sorry|oops|oh wait|wait"
                        r"|I meant(?: that)?|I mean)\b[\s,.!:;-]*)+", re.IGNORECASE)
# "… now" makes a statement a correction; "right now", "for now", "just now" do not.
NOW = re.compile(r"(?<!right )(?<!for )(?<!just )(?<!until )(?<!by )(?<!from )\bnow\b"
                 r"(?! and then)|\b(?:any more|anymore|no longer)\b",
                 re.IGNORECASE)

# "I've lived here for ten years now": a duration, not a change.
DURATION_NOW = re.compile(r"\bfor (?:about |around |almost |nearly |over |more than )?"
                          r"[\w-]+ (?:years?|months?|weeks?|decades?|ages|a while|long)"
                          r"(?: now)\b|\bsince \w+ now\b", re.IGNORECASE)

INSTEAD = re.compile(r"\b(?:use|uses|using|on|run|running|switched to|work|works|working"
                     r"|live|lives|living)\b[^,;]*\binstead of\b"
                     # "I'm 52, not 50": a name or number contradicted at the clause's end
                     r"|,\s*not (?:an? )?(?-i:[A-Z][\w'.-]*|\d+)\b[^,;]*$",
                     re.IGNORECASE)

UNCERTAIN = re.compile(r"\b(?:I think|I guess|I believe|I suppose|I reckon|maybe|probably"
                       r"|perhaps|might|(?-i:may)|not sure|I suspect|possibly|I feel like"
                       r"|pretty sure|fairly sure|not (?:yet )?decided|undecided|not certain"
                       r"|could be|I assume)\b", re.I)
EMPHASIS = re.compile(r"\b(?:really important|very important|always remember|severely"
                      r"|deathly|must|critical)\b|!!", re.IGNORECASE)
# Said before the statement, not part of it: "Honestly, I …", "I think I might …".
LEAD_IN = re.compile(
    r"^(?:(?:honestly|well|also|so|oh|btw|maybe|perhaps|probably|these days|nowadays"
    r"|by the way|personally|fwiw|anyway|and|plus|possibly|pretty sure|fairly sure|tbh|both"
    r"|fyi|for the record|just so you know|in case it matters|as you know|remember that"
    r"|note that|turns out|(?:for|at|in|on|with) [\w' ]{1,30}?(?=,? I\b)|it turns out"
    r"|to be honest|oh and|okay so|ok so|quick note"
    r"|I (?:think|guess|believe|suppose|feel like|reckon)(?: that)?"
    r"|I (?:realised|realized|found out|learned|learnt|discovered|noticed|figured out"
    r"|recently found out|just realised|just realized)(?: that)?)[\s,:;-]+)+", re.I)
# Chat style without the subject; the "I" it drops, put back.
SUBJECTLESS = (
    (r"^been\b", "I have "),
    (r"^(?:using|loving|living|working|learning|running|going with|going for)\b", "I am "),
    (r"^(?:not (?:really )?(?:a |an )?(?:big |huge )?fan of|(?:a )?(?:big |huge )?fan of"
     r"|allergic to|intolerant to|(?:lactose|gluten) intolerant|originally from|based in"
     r"|vegan|vegetarian|pescatarian|fluent in|really into|into)\b", "I am "),
    (r"^(?:love|hate|adore|really like|really love|can't stand|live in|work at|work for"
     r"|speak)\b(?! (?:it|that|this|to)\b)", "I "),
)
MODALS = re.compile(r"^I (?:might|may|probably|maybe|possibly|perhaps|could) (?!be\b)", re.I)

# A hedged clause read as the statement it imagines or frames (subjunctive/past verbs,
# "I'm basically a …"), so the parsers can recognise it.
SUBJUNCTIVE = ((r"\bI(?:'m| am) (?:basically|practically|kind of|sort of|like|actually|really)"
                r" (?=an? )", "I am "), (r"\bI were\b", "I am"),
               (r"\bI was\b", "I am"), (r"\bme (?:as|being) (?=an? )", "I am "),
               (r"\bI worked\b", "I work"),
               (r"\bI lived\b", "I live"), (r"\bI used\b", "I use"), (r"\bI had\b", "I have"),
               (r"\bI preferred\b", "I prefer"), (r"\bI liked\b", "I like"))

_COMPILED = tuple((r, r.compiled()) for r in RULES)
_HABIT = HABIT.compiled()
_SKIPS = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in SKIPS)
_HEDGES = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in HEDGES)


def _changed(clause: str) -> bool:
    """The clause says something changed ("… now", "instead of")."""
    return bool((NOW.search(clause) and not DURATION_NOW.search(clause))
                or INSTEAD.search(clause))


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
            framed = framed or next((r for r, pat in _HEDGES if r in ("roleplay",
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
        for reason, pat in _SKIPS:
            if pat.search(raw):
                notes.append(f"skipped {restore(raw)[:40]!r}: {reason}")
                return []
        clause = PLEASANTRIES.sub("", raw).strip()
        if not clause.strip(" .,!?;:-~"):
            notes.append(f"skipped {restore(raw)[:40]!r}: pleasantry or acknowledgement")
            return []
        hedge = next((reason for reason, pat in _HEDGES if pat.search(clause)), framed)
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
        if hedge is None and _changed(clause):
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
            return [self._score(u, None, marked or _changed(u.text), uncertain, emphasis)
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
        for rule, pat in _COMPILED:
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
        if (m := _HABIT.search(clause)) is not None:
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
