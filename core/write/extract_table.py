"""The offline extractor's decision table: what a clause's wording means, as patterns.

:mod:`extract_heuristic` reads a turn clause by clause through these tables, in this
order: ``SKIPS`` (no persistent, sincere signal: jokes, complaints, sarcasm, transient
states), ``HEDGES`` (said but not asserted: hypotheticals, role-play, rhetorical
framing), the correction markers (``CORRECTION``, "… now", "instead of"), and ``RULES``
(decisions, assistant rules, procedures: what has no triple).  The rest of a clause's
meaning (who and what) is :mod:`extract_subjects` and :mod:`extract_predicates`'s; what
happened is :mod:`extract_events`'s.  Kept apart from the flow so the tables read as the
table they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNCERTAIN_CONFIDENCE = 0.5


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
         r" ?(?:finally |just |probably |likely |most likely |definitely "
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
    # "Before each release I …": "each"/"every" makes it a routine, not one occasion
    Rule("sequence", r"^(?:when|whenever|before|after|once) (?:I .+?,\s*|\w+ing\b[^,]*?,?\s+"
         r"|(?:each|every) [\w-]+(?: [\w-]+)?,?\s+)"
         r"I (?:first |always |usually )?.+$", "procedure", 0.65, 0.8),
    Rule("then_then", r"^(?:(?:every|each|on) [\w ]{1,20}?,?\s+)?I .+?(?:\bfirst\b.+?"
         r"\bthen\b|\bthen\b.+?\bthen\b).+$", "procedure", 0.65, 0.8),
    Rule("first_then", r"\bfirst,? I .+?\b(?:then|and then|after that)\b.+$",
         "procedure", 0.65, 0.8),
)
# A habit with no object we read ("I never deploy on Fridays"): after the triples.
# A verb in the past ("I never got round to it", "I always hated maths") tells of then,
# not of a standing habit: regular "-ed" (not "need", "feed") and the common irregulars.
_PAST_VERB = (r"(?:\w*[^e\W]ed|got|went|did|had|was|were|made|took|came|saw|ran|ate|drank"
              r"|gave|left|found|told|said|thought|bought|brought|felt|knew|lost|met|paid"
              r"|sold|sent|spent|won|wrote|began|became|broke|chose|drove|flew|forgot|grew"
              r"|rode|sang|spoke|stole|swam|threw|woke|wore|taught|caught|fought|heard)\b")
HABIT = Rule("habit", rf"^I (?:always|never|usually|normally) (?!mind\b)(?!{_PAST_VERB})"
             r"\w+.*$", "preference", 0.75, 0.8)

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
    # "Oh sure, and I had tea with the King yesterday": a retort, not a statement
    ("sarcasm", r"^(?:oh|ah|yeah),?\s+(?:sure|right|totally|of course|yeah)\b[,.!]*\s+and\b"),
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

COMPILED_RULES = tuple((r, r.compiled()) for r in RULES)
HABIT_PATTERN = HABIT.compiled()
SKIP_PATTERNS = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in SKIPS)
HEDGE_PATTERNS = tuple((reason, re.compile(p, re.IGNORECASE)) for reason, p in HEDGES)


def changed(clause: str) -> bool:
    """The clause says something changed ("… now", "instead of")."""
    return bool((NOW.search(clause) and not DURATION_NOW.search(clause))
                or INSTEAD.search(clause))
