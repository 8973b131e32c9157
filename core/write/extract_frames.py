"""How a clause is framed, read before its content: a question that still states
something about the user, a clause that only announces a correction, a request to
remember.

Why: a question asserts nothing by itself, but users put facts inside them ("Since I'm
lactose intolerant, what can I use instead of milk?", "As a nurse working nights, how
should I sleep?", "Could you remember that I use Firefox?").  Skipping every "?" lost
those; reading every "?" would store the question's own guesses.  Only the framed part
that is a first-person statement is read, and an interrogative clause is still skipped.
"""

from __future__ import annotations

import re

from memdesk.core.write.extract_lexicon import category

# Interrogative syntax: a wh-word or an inverted auxiliary at the start.
_INTERROGATIVE = re.compile(
    r"^(?:what|what's|whats|how|why|when|where|which|who|whom|whose|is|are|am|was|were|do"
    r"|does|did|can|could|would|should|will|shall|may|might|have|has|had|isn't|aren't"
    r"|don't|doesn't|didn't|can't|won't|wouldn't|shouldn't|any|anything|any idea)\b",
    re.IGNORECASE)
# "Since I'm X, what …?": the reason clause is a statement.
_REASON = re.compile(r"^(?:since|as|because|given that|seeing (?:as|that)|now that)\s+"
                     r"(?P<s>I\b[^,;]+?)\s*,\s*(?=\S)", re.IGNORECASE)
# "As a nurse working nights, how …?": the user's role.
_AS_ROLE = re.compile(r"^as (?P<s>(?:an?|the) [^,;]+?)\s*,\s*(?=\S)", re.IGNORECASE)
# "Could you remember that I use Firefox?", "Please note that …".
_REMEMBER = re.compile(r"^(?:(?:could|can|would|will) you (?:please )?|please )?(?:remember"
                       r"|note|keep in mind|bear in mind|make a note|take note)(?: of)?"
                       r"(?: that)?\s+(?P<s>(?:I|my|we|our)\b.+?)[\s?.!]*$", re.IGNORECASE)
# A statement said with a question mark: "Maybe I'm gluten intolerant?".
_DECLARATIVE = re.compile(r"^(?:maybe|perhaps|probably|possibly|I think|I guess)?[\s,]*"
                          r"(?:I|I'm|I've|my)\b", re.IGNORECASE)


def statement_in_question(clause: str) -> tuple[str, bool] | None:
    """The first-person statement a question holds, and whether it is only a guess;
    None when it holds none (then nothing is read)."""
    c = clause.strip()
    if m := _REMEMBER.match(c):
        return m.group("s"), False
    if m := _REASON.match(c):
        return m.group("s"), False
    if m := _AS_ROLE.match(c):
        return "I am " + m.group("s"), False
    body = c.rstrip(" ?!.")
    if not _INTERROGATIVE.match(body) and _DECLARATIVE.match(body) and "?" not in body:
        return body, True  # said with rising tone: kept, at a guess's confidence
    return None


def request_to_remember(clause: str) -> str | None:
    """ "Please remember that I'm vegan." -> "I'm vegan." (a request, no question)."""
    m = _REMEMBER.match(clause.strip())
    return m.group("s") if m else None


# A clause that only announces that what follows corrects something: "Scratch that",
# "Not Lisbon", "My mistake", "Correction:".
_MARKER = re.compile(
    r"^(?:(?:(?i:no|nope|sorry|oops|wait|correction|scratch that|my (?:bad|mistake)|I was wrong"
    r"|that's (?:wrong|not right)|not quite|to correct myself|let me correct (?:myself|that)"
    r"|(?:a )?(?:small|quick|minor) correction|I got (?:that|it|this) wrong"
    r"|forget what I said(?: about [\w.+#-]+)?|ignore what I said)"
    r"|(?i:not) (?:[A-Z][\w'’-]*|(?i:an?|the) \w+|\d+)(?: [A-Z][\w'’-]*)?)[\s,.!:;]*)+$")


def correction_marker(clause: str) -> bool:
    c = re.sub(r"^(?:oh|ah|ok|okay|hmm|just|um)[\s,]+", "", clause.strip(), flags=re.I)
    return bool(c) and _MARKER.match(c) is not None


# "Please don't bring up my weight", "never mention my ex": a topic to avoid.
_AVOID = re.compile(r"^(?:please,?\s+)?(?:don't|do not|never|please don't|try not to"
                    r"|let's not|let us not|can we not|I'?d rather (?:we|you) didn't"
                    r"|I would rather (?:we|you) didn't)\s+"
                    r"(?:bring up|mention|ask (?:me )?about|talk about|discuss|raise|remind me"
                    r" (?:of|about)|joke about)\s+(?:my |the )?(?P<v>[^,;.!?]+?)[\s,;.!?]*"
                    r"(?:,? please)?[\s.!]*$", re.IGNORECASE)


def avoided_topic(clause: str) -> str | None:
    m = _AVOID.match(clause.strip())
    return m.group("v").strip() if m and len(m.group("v").split()) <= 5 else None


# "dark mode please, always": a known kind of thing asked for by name.
_TOOL_PLEASE = re.compile(r"^(?P<v>[\w.+# -]{2,30}?),?\s+please\b[\s,]*(?:always|thanks|"
                          r"thank you|from now on|going forward)?[\s.!]*$", re.IGNORECASE)


def requested_tool(clause: str) -> str | None:
    m = _TOOL_PLEASE.match(clause.strip())
    return m.group("v").strip() if m and category(m.group("v")) else None
