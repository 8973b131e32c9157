"""The offline extractor: seed 003's decision table as data, applied clause by clause.

Honest by design.  It stores only what one of its rules recognises, never the raw turn
(the seed's fallback stored raw text with confidence 0.8: its named limitation):

1. pleasantries and acknowledgements are stripped; a clause with nothing left is skipped;
2. transient state, sarcasm and questions are skipped (``SKIPS``);
3. hypothetical / roleplay / rhetorical framing marks the clause (``HEDGES``): its unit
   gets confidence ≤ 0.3 and says it was not asserted;
4. an explicit correction marker ("No, …", "Actually, …") makes the unit a correction;
5. the first ``RULES`` row that matches gives type, scores and the user triple;
6. hedges of uncertainty ("I think", "maybe") cap confidence at 0.5.

Anything no rule recognises yields nothing: an empty answer is a valid answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdesk.core.write.units import Extraction, Turn, Unit, top_units

NAME = "heuristic"
HEDGED_CONFIDENCE = 0.25  # seed 003's checklist: hypotheticals at most 0.3
HEDGED_IMPORTANCE = 0.3
UNCERTAIN_CONFIDENCE = 0.5
EMPHASIS_BOOST = 0.1

_V = r"(?P<v>[^,.;!?]+?)"
# Where a captured value stops: punctuation, end, or a joining word.
_STOP = (r"\s*(?:[,.;:!?]|$)|\s+(?:and|but|because|so|since|which|though|although"
         r"|not|instead|rather|over|when|if|for|with|in|on|at|during|every|from|to|these days"
         r"|now|nowadays"
         r"|anymore)\b")
_END = rf"(?={_STOP})"


@dataclass(frozen=True)
class Rule:
    """One row of the decision table: a clause pattern and the unit it produces.

    ``attribute`` set: the unit carries the triple (user, attribute, captured value).
    """

    name: str
    pattern: str
    type: str
    importance: float
    confidence: float
    attribute: str | None = None
    prefix: str = ""

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)


_ADV = (r"(?:(?:really|strongly|generally|usually|mostly|mainly|normally|always|also|still"
        r"|definitely) )?")

RULES: tuple[Rule, ...] = (
    # -- self-disclosure (facts about the user) ----------------------------------------
    Rule("allergy", rf"\bI(?:'m| am) (?:(?:very|severely|really|deathly|highly|quite) )?"
         rf"allergic to {_V}{_END}", "fact", 0.9, 0.9, "allergic_to"),
    Rule("works_at", rf"\bI (?:currently )?(?:work|am working|'m working) (?:at|for) {_V}{_END}",
         "fact", 0.7, 0.85, "works_at"),
    Rule("lives_in", rf"\bI (?:currently )?(?:live|am living|'m living|am based|'m based|reside)"
         rf" in {_V}{_END}", "fact", 0.6, 0.85, "lives_in"),
    Rule("name", rf"\b(?:my name is|call me) {_V}{_END}", "fact", 0.7, 0.9, "name"),
    # -- stated preferences ---------------------------------------------------------------
    Rule("assistant_rule", r"^(?:please,? |from now on,? |going forward,? )+(?P<rest>"
         r"(?:always|never|don't|do not|use|answer|reply|write|keep|avoid)\b.+)$",
         "preference", 0.85, 0.9, prefix="The user wants the assistant to: "),
    Rule("assistant_always", r"^(?P<rest>(?:always|never) (?!mind\b).+)$",
         "preference", 0.8, 0.85, prefix="The user wants the assistant to: "),
    Rule("prefers", rf"\bI {_ADV}prefer {_V}{_END}", "preference", 0.8, 0.85, "prefers"),
    Rule("uses_habit", rf"\bI (?:always|usually|normally|mostly|mainly|only) use {_V}{_END}",
         "preference", 0.8, 0.85, "uses"),
    Rule("habit", r"\bI (?:always|never|usually|normally) (?!mind\b)\w+",
         "preference", 0.75, 0.8),
    Rule("dislikes", rf"\bI {_ADV}(?:hate|dislike|can't stand|cannot stand|don't like"
         rf"|do not like) {_V}{_END}", "preference", 0.6, 0.8, "dislikes"),
    Rule("likes", rf"\bI {_ADV}(?:like|love|enjoy) {_V}{_END}", "preference", 0.6, 0.8, "likes"),
    Rule("uses", rf"\bI (?:use|am using|'m using|code in|write) {_V}{_END}",
         "fact", 0.6, 0.85, "uses"),
    # "I'm a backend engineer": after the narrower "I'm allergic…" rows.
    Rule("is_a", rf"\bI(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b|fan of\b){_V}"
         rf"(?=\s+(?:at|for|in|with|who|from)\b|{_STOP})", "fact", 0.7, 0.85, "is_a"),
    # -- decisions --------------------------------------------------------------------------
    Rule("decision", rf"\b(?:I|we) (?:finally )?(?:went with|chose|picked|selected|settled on"
         rf"|opted for|decided (?:on|to use|to go with)|are going with|'re going with"
         rf"|switched to|migrated to|have decided on) {_V}{_END}", "decision", 0.8, 0.85),
    Rule("considering", rf"\b(?:I|we)(?:'m| am|'re| are) (?:considering|thinking (?:about|of)"
         rf"|leaning towards) {_V}{_END}", "decision", 0.6, UNCERTAIN_CONFIDENCE),
    # -- procedures -----------------------------------------------------------------------
    Rule("routine", r"\bmy (?:\w+ )?(?:routine|workflow|process|procedure|steps|checklist)"
         r"(?: is| are)?\s*(?::|-|—)\s*(?P<rest>.+)$", "procedure", 0.7, 0.85,
         prefix="The user's routine: "),
    Rule("sequence", r"^(?:when|whenever|before|after) I .+?,\s*I (?:first |always )?.+$",
         "procedure", 0.65, 0.8),
    Rule("first_then", r"\bfirst,? I .+?\b(?:then|and then|after that)\b.+$",
         "procedure", 0.65, 0.8),
)

# Stripped from the start of a clause; a clause that was only these is a pleasantry.
PLEASANTRIES = re.compile(
    r"^(?:(?:thanks|thank you|thx|ty|cheers|great|awesome|perfect|cool|nice|ok|okay|sure"
    r"|got it|sounds good|makes sense|that's (?:helpful|great|perfect|right|useful|fine)"
    r"|that is (?:helpful|great)|hi|hello|hey|good (?:morning|night|evening|afternoon)"
    r"|bye|see you|see ya|lol|haha|yes|yeah|yep|no problem|no worries|you're welcome"
    r"|understood|nice one|much appreciated|appreciate it|will do|alright|all right"
    r"|you rock|love it|brilliant|excellent|wonderful|fantastic|amazing|(?:so )?helpful"
    r"|very|really|a lot|so much|again|for (?:that|this|the help|your help)|anyway"
    r"|[:;]-?[)D(]|🙂|😊|👍|🙏)(?:[\s,!.~]+|$))+",
    re.IGNORECASE,
)

# (reason, pattern): the clause carries no persistent, sincere signal.
SKIPS: tuple[tuple[str, str], ...] = (
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
    ("hypothetical", r"\b(?:suppose|supposing|imagine|assume|assuming|hypothetically"
                     r"|in theory|say)\b(?: that)?"),
    ("hypothetical", r"\blet'?s (?:say|pretend|assume|imagine)\b"),
    ("hypothetical", r"\b(?:if|as if|even if) I (?:were|was|had been)\b"),
    ("roleplay", r"\b(?:pretend(?:ing)?|role-?play(?:ing)?|act(?:ing)? as|playing the role"
                 r"|in character|you are my)\b"),
    ("rhetorical framing", r"\bI(?:'m| am) (?:basically|practically|kind of|sort of|like)\b"),
    ("rhetorical framing", r"\bI(?:'m| am) (?:actually|really) (?:a|an)\b[^.;!?]*,?\s+so\b"),
)

# Stripped before the rules run; the unit becomes a correction of an earlier belief.
CORRECTION = re.compile(r"^(?:no|nope|not quite|wrong|that's wrong|correction|actually)\b"
                        r"[\s,.!:;-]*(?:actually[\s,]*)?", re.IGNORECASE)

UNCERTAIN = re.compile(r"\b(?:I think|I guess|I believe|maybe|probably|perhaps|might"
                       r"|not sure|I suspect)\b", re.IGNORECASE)
EMPHASIS = re.compile(r"\b(?:really important|very important|always remember|severely"
                      r"|deathly|must|critical)\b|!!", re.IGNORECASE)

# A hedged clause read as the statement it imagines or frames (subjunctive/past verbs,
# "I'm basically a …"), so the rules can recognise it.
SUBJUNCTIVE = ((r"\bI(?:'m| am) (?:basically|practically|kind of|sort of|like|actually|really)"
                r" (?=an? )", "I'm "), (r"\bI were\b", "I am"),
               (r"\bI was\b", "I am"), (r"\bI worked\b", "I work"),
               (r"\bI lived\b", "I live"), (r"\bI used\b", "I use"), (r"\bI had\b", "I have"),
               (r"\bI preferred\b", "I prefer"), (r"\bI liked\b", "I like"))

# First person → third person, so the unit reads without the conversation (seed 003).
PERSON = ((r"^my\b", "the user's"), (r"\bI'm\b", "the user is"), (r"\bI am\b", "the user is"),
          (r"\bI've\b", "the user has"), (r"\bI'll\b", "the user will"),
          (r"\bI'd\b", "the user would"), (r"\bI\b", "the user"), (r"\bmy\b", "their"),
          (r"\bme\b", "them"), (r"\bmine\b", "theirs"), (r"\bmyself\b", "themselves"),
          (r"\bwe're\b", "the user's team is"), (r"\bwe've\b", "the user's team has"),
          (r"\bwe\b", "the user's team"), (r"\bour\b", "their team's"),
          (r"\bthe user don't\b", "the user doesn't"), (r"\bthe user do not\b",
                                                         "the user does not"))
_NO_CONJ = frozenset(re.findall(
    r"\S+", "is has was were will would can could should must did does doesn't may might had"))
_PAST = frozenset(re.findall(
    r"\S+", "chose went made took got had did said found left moved bought built wrote ran "
    "began quit set put kept picked"))
_NEGATED = {"don't": "doesn't", "haven't": "hasn't"}
_SUBJECT_VERB = re.compile(
    r"\b(the user(?:'s team)?)((?: (?:always|never|usually|often|mostly|mainly|really|"
    r"generally|normally|also|just|still|only|strongly|typically|finally|currently))*) "
    r"([a-z]+(?:'[a-z]+)?)\b")

_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n+|,?\s+(?:and|but)\s+(?=I\b|we\b|my\b)")


def _third_person_verb(verb: str) -> str:
    if verb.endswith("n't"):
        # A negated auxiliary is conjugated as a whole ("haven't" -> "hasn't"), never
        # as the word before the apostrophe ("doesn't" -> "doesns't").
        return _NEGATED.get(verb, verb)
    if verb in _NO_CONJ or verb in _PAST or verb.endswith("ed"):
        return verb
    if verb in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def paraphrase(clause: str) -> str:
    """A first-person clause as a self-contained third-person sentence."""
    out = clause.strip().rstrip(".!?,;: ")
    for pat, repl in PERSON:
        out = re.sub(pat, repl, out, flags=re.IGNORECASE)
    out = _SUBJECT_VERB.sub(
        lambda m: f"{m.group(1)}{m.group(2)} "
        f"{m.group(3) if m.group(1).endswith('team') else _third_person_verb(m.group(3))}",
        out,
    )
    out = " ".join(out.split())
    return (out[:1].upper() + out[1:] + ".") if out else out


def clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSES.split(text) if c and c.strip()]


_COMPILED = tuple((r, r.compiled()) for r in RULES)
_SKIPS = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in SKIPS)
_HEDGES = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in HEDGES)


class HeuristicExtractor:
    """Seed 003's decision table without a language model (see the module docstring)."""

    name = NAME
    model: str | None = None

    def extract(self, turn: Turn) -> Extraction:
        notes: list[str] = []
        units: list[Unit] = []
        for clause in clauses(turn.text):
            unit = self._clause(clause, notes)
            if unit is not None and unit not in units:
                units.append(unit)
        return Extraction(top_units(units, notes), NAME, None, notes)

    def _clause(self, raw: str, notes: list[str]) -> Unit | None:
        for reason, pat in _SKIPS:
            if pat.search(raw):
                notes.append(f"skipped {raw[:40]!r}: {reason}")
                return None
        clause = PLEASANTRIES.sub("", raw).strip()
        if not clause.strip(" .,!?;:-~"):
            notes.append(f"skipped {raw[:40]!r}: pleasantry or acknowledgement")
            return None
        hedge = next((reason for reason, pat in _HEDGES if pat.search(clause)), None)
        if hedge is None and clause.rstrip().endswith("?"):
            notes.append(f"skipped {raw[:40]!r}: a question asserts nothing")
            return None
        correction = False
        if hedge is None and (m := CORRECTION.match(clause)) and m.end() < len(clause):
            correction, clause = True, clause[m.end():]
        if hedge is not None:
            for pat, repl in SUBJUNCTIVE:
                clause = re.sub(pat, repl, clause, flags=re.IGNORECASE)
        for rule, pat in _COMPILED:
            m = pat.search(clause)
            if m is not None:
                return self._unit(rule, m, clause, hedge, correction)
        notes.append(f"nothing recognised in {raw[:40]!r}" + (f" ({hedge})" if hedge else ""))
        return None

    @staticmethod
    def _unit(rule: Rule, m: re.Match[str], clause: str, hedge: str | None,
              correction: bool) -> Unit:
        groups = m.groupdict()
        value = (groups.get("v") or "").strip() or None
        if "rest" in groups:
            body = groups["rest"].strip().rstrip(".!?")
            text = rule.prefix + (body[:1].lower() + body[1:]) + "."
        else:
            # A hedged clause loses its framing words ("what if", "imagine"): the prefix
            # below says it was not asserted.
            text = paraphrase(clause[m.start():m.end()] if hedge
                              else clause[m.start():] if rule.type == "procedure" else clause)
        importance, confidence, typ = rule.importance, rule.confidence, rule.type
        if EMPHASIS.search(clause):
            importance = min(1.0, importance + EMPHASIS_BOOST)
        if UNCERTAIN.search(clause):
            confidence = min(confidence, UNCERTAIN_CONFIDENCE)
        if correction:
            typ, importance, confidence = "correction", max(importance, 0.9), 0.9
            text = "Correction: " + text[:1].lower() + text[1:]
        if hedge is not None:
            confidence = min(confidence, HEDGED_CONFIDENCE)
            importance = min(importance, HEDGED_IMPORTANCE)
            text = f"Not asserted ({hedge}): " + text[:1].lower() + text[1:]
        triple = ("user", rule.attribute, value) if rule.attribute and value else (None,) * 3
        return Unit(text, typ, round(importance, 3), round(confidence, 3), *triple)
