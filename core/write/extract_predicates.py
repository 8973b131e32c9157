"""What a clause's predicate says about its subject, as (attribute, value) pairs.

The subject is found by :mod:`extract_subjects`.  The predicate is split at "and" before
a verb ("is 7 and loves dinosaurs") and each part goes through :data:`PARSERS`, which
trim the value to its object ("allergic to cashews after a scary dinner" → "cashews";
"works at Siemens as a firmware engineer" → Siemens and the role).  The unit's text is
written from the triple, never copied from the turn, so it says exactly what is stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from memdesk.core.write import extract_lexicon as lx
from memdesk.core.write.extract_text import ABBR_DOT, third_person_value

# attribute -> (type when it is about the user, importance, confidence)
SCORES: dict[str, tuple[str, float, float]] = {
    "allergic_to": ("fact", 0.9, 0.9), "intolerant_to": ("fact", 0.85, 0.9),
    "diet": ("fact", 0.8, 0.9), "age": ("fact", 0.5, 0.85),
    "occupation": ("fact", 0.7, 0.85), "is_a": ("fact", 0.6, 0.8),
    "works_at": ("fact", 0.7, 0.85), "work_schedule": ("fact", 0.6, 0.85),
    "lives_in": ("fact", 0.6, 0.85), "from": ("fact", 0.5, 0.85),
    "speaks": ("fact", 0.5, 0.85), "name": ("fact", 0.7, 0.9),
    "birthday": ("fact", 0.6, 0.9), "relation": ("fact", 0.6, 0.85),
    "number_of_children": ("fact", 0.6, 0.85), "avoids_topic": ("preference", 0.8, 0.85),
    "likes": ("preference", 0.6, 0.8), "dislikes": ("preference", 0.6, 0.8),
    "prefers": ("preference", 0.8, 0.85), "uses": ("fact", 0.6, 0.85),
    "favorite": ("preference", 0.6, 0.85), "plays": ("fact", 0.5, 0.85),
    "condition": ("fact", 0.85, 0.9), "studies_at": ("fact", 0.6, 0.85),
}


def scores(attribute: str) -> tuple[str, float, float]:
    if attribute in SCORES:
        return SCORES[attribute]
    return SCORES[attribute.split("_", 1)[0]] if "_" in attribute else SCORES["uses"]


@dataclass
class Said:
    """One thing a predicate says: an attribute and value, or only a text (no triple)."""

    attribute: str | None
    value: str | None
    predicate: str  # third person, after the subject: "is allergic to cashews"
    correction: bool = False
    type: str | None = None  # overrides SCORES (e.g. a known tool used: a preference)


_W = r"[\w'’+#&" + ABBR_DOT + r"-]"
# Where a captured value stops: punctuation, end, or a joining word.
STOP = (r"\s*(?:[,;:!?()]|\.(?!\S)|$)|\s+(?:and|but|because|so|since|which|though|although"
        r"|not|instead|rather|over|when|if|for|with|in|on|at|during|every|from|to|these days"
        r"|now|nowadays|anymore|any more|after|before|until|as|who|that|while|working|too"
        r"|lately|recently|already|again|haha|lol|last|this|next|ago|right|by|or|whenever"
        r"|like|than|mostly|mainly|most|all|every|each|because|except|unless|though"
        r"|originally|full-time|part-time|yet|then|here|there|near|outside|around|close to|next to"
        r"|everywhere|anywhere|daily"
        r"|which|where|based|located|living|btw|tbh|fyi|imo|imho|fwiw|ngl|honestly)\b")
V = rf"(?P<v>(?:[^,;!?.()]|\.(?=\S))+?)(?={STOP})"
W = V.replace("?P<v>", "?P<w>")
NAME = r"(?P<n>(?-i:[A-Z][a-zà-ÿ'’]+(?:\s[A-Z][a-zà-ÿ'’]+)?))"
ORG = rf"(?P<o>[A-Z0-9]{_W}*(?:\s+(?:[A-Z0-9&]{_W}*|of|de|and|the|für))*?)"
BE = r"(?:am|is|are)"
ADVS = (r"(?:(?:really|strongly|generally|usually|mostly|mainly|normally|always|also|still"
        r"|definitely|currently|actually|now|honestly|totally|absolutely|just|only|personally"
        r"|much|very|severely|deathly|highly|quite|extremely|mildly|slightly|pretty|so"
        r"|originally|strictly|fully|officially|kind of|sort of|truly|genuinely|even)\s+)*")
_PRONOUN_VALUE = re.compile(r"^(?:it|this|that|them|these|those|one|something|anything"
                            r"|everything|nothing|you|him|her|myself|stuff|things|neither"
                            r"|either|none|both|all)$", re.I)
VERB_AHEAD = (r"(?:is|are|am|was|loves?|likes?|enjoys?|adores?|hates?|works?|lives?"
               r"|speaks?|prefers?|uses?|has|have|eats?|plays?|goes|attends?|studies)")
_AND_VERB = re.compile(rf"\s*,?\s+(?:and|but)\s+(?={VERB_AHEAD}\b)", re.IGNORECASE)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    v = third_person_value(value).strip(" '\"’“”")
    # "a small design studio called Pixelhaus": the name is the value.
    v = re.sub(r"^(?:(?:an?|the|their)\s+)?[\w\s-]*?\b(?:called|named)\s+(?=[A-Z0-9])", "", v)
    v = re.sub(r"^(?:their|the user's)\s+", "", v) if v.lower().startswith(
        ("their health", "their family", "their past", "their ")) else v
    # Never store a value that runs into the rest of the sentence: "Montreal my whole
    # life" ends at the pronoun, "Mac user through and through" before a dangling word.
    cut = re.sub(r"\s+(?:their|them|they)\b.*$", "", v)
    if cut != v and not re.search(rf"\s(?:{_DANGLING})$", cut, re.I):
        v = cut
    v = re.sub(rf"\s+(?:{_DANGLING})$", "", v, flags=re.I)
    return v or None


_DANGLING = (r"through|with|for|of|to|at|in|on|and|or|the|a|an|by|from|about|into|than"
             r"|as|so|but")


class MatchLike(Protocol):
    """What a parser reads of its match: an ``re.Match`` or a :class:`_Fake` (a match
    whose ``verb`` group is fixed).  ``group`` gives ``str`` as re.Match's own stub
    does: the groups the parsers read by name always take part in their patterns."""

    @property
    def string(self) -> str: ...
    def group(self, key: str, /) -> str: ...
    def groupdict(self) -> Mapping[str, str | None]: ...
    def start(self, group: int | str = 0, /) -> int: ...
    def end(self, group: int | str = 0, /) -> int: ...


def value_of(m: MatchLike, key: str = "v") -> str | None:
    raw = m.groupdict().get(key)
    return _clean(raw) if raw else None


def _verb3(verb: str) -> str:
    v = verb.lower()
    if v.endswith("s") or " " in v or "'" in v:
        return {"can't stand": "can't stand", "cannot stand": "cannot stand",
                "don't like": "doesn't like", "do not like": "does not like"}.get(v, v)
    return v + "s"


# -- the parsers -------------------------------------------------------------------------
def _diets(m: re.Match[str]) -> list[Said]:
    """ "vegan and gluten-free": each diet its own unit."""
    out = [m.group("v").lower()]
    more = re.match(rf"\s+and\s+(?P<d>{_DIET})\b", m.string[m.end():], re.IGNORECASE)
    if more:
        out.append(more.group("d").lower())
    return [Said("diet", d, f"is {d}") for d in out]


def _allergy(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None:
        return []
    values = [re.sub(r"^(?:both|either)\s+", "", v, flags=re.I)]
    # "allergic to pollen and dust": each is an allergy of its own.
    if more := re.match(r"\s+(?:and|or)\s+([\w-]+(?: [\w-]+)?)(?=[.,;!?]|$)",
                        m.string[m.end():]):
        values.append(more.group(1))
    if any(lx.joke_object(x) or _PRONOUN_VALUE.match(x) for x in values):
        return []
    return [Said("allergic_to", x, f"is allergic to {x}") for x in values]


def _role(m: re.Match[str]) -> list[Said]:
    role = value_of(m)
    if role is None:
        return []
    role = lx.strip_article(role)
    age = re.match(r"(?P<a>\d{1,3})[- ]years?[- ]old\s+", role)
    # "a fundraiser two days a week": a count starts what the role is not
    role = re.sub(r"\s+(?:\d+|one|two|three|four|five|six|seven)\b.*$", "", role)
    role = role[age.end():] if age else role
    # "a startup founder pitching this": the participle describes, it is not the role.
    role = re.sub(r"(?<=\w)\s+\w+ing$", "", role) if " " in role else role
    rest = m.string[m.end():]
    org_after = re.match(rf"\s+(?:at|for|with)\s+{ORG}(?={STOP})", rest)
    out: list[Said] = []
    studies = False
    if lx.is_role(role) or (org_after is not None and len(role.split()) <= 2
                            and role.lower() not in lx.NOT_IDENTITY
                            and role.lower() not in lx.DIETS and role[:1].islower()):
        # "a postdoc at MIT": what someone is at an organisation is their job.
        out.append(Said("occupation", role, f"is {lx.article(role)} {role}"))
        studies = role.lower().endswith("student")
    elif lx.strip_article(role).lower() in lx.DIETS:
        d = lx.strip_article(role).lower()
        return [Said("diet", d, f"is {d}")]
    elif role.lower() in lx.NOT_IDENTITY:
        return []
    elif len(role.split()) <= 3 and not re.match(
            r"(?:bit|little|lot|fan|huge|big|total|kind|sort|couple|few|new user|fan)\b",
            role, re.I):
        out.append(Said("is_a", role, f"is {lx.article(role)} {role}"))
    else:
        return []
    if s := re.search(r"\b(?:working|on|mostly|usually|doing) (?P<s>(?:the )?(?:night|late"
                      r"|early|day|weekend|evening)"
                      r" shifts?|nights|weekends|part[- ]time|full[- ]time|remotely"
                      r"|from home)\b", rest, re.I):
        out.append(Said("work_schedule", s.group("s"), f"works {s.group('s')}"))
    if o := re.search(rf"(?:^|\s)(?:at|for|with)\s+{ORG}(?={STOP})", rest):
        org = _clean(o.group("o"))
        if out[0].attribute == "occupation" and studies:
            out.append(Said("studies_at", org, f"studies at {org}"))
        else:
            out.append(Said("works_at", org, f"works at {org}"))
    if out and age:
        out.append(Said("age", age.group("a"), f"is {age.group('a')} years old"))
    if out and (f := re.search(rf"(?:^|\s)from\s+{ORG}(?={STOP})", rest)):
        out.append(Said("from", _clean(f.group("o")), f"is from {_clean(f.group('o'))}"))
    return out


_NOT_A_PLACE_OF_WORK = re.compile(r"^(?:night|nights|home|weekends?|the weekend|the moment"
                                  r"|times|midnight|dawn|noon|the same time|once|least|most"
                                  r"|all|it|this|that|my desk|a desk)$", re.IGNORECASE)


def _work_at(m: re.Match[str]) -> list[Said]:
    org = value_of(m)
    if org is None or _NOT_A_PLACE_OF_WORK.match(org):
        return []
    out = [Said("works_at", org, f"works at {org}")]
    rest = m.string[m.end():]
    if r := re.match(rf"\s+as\s+(?:an?\s+)?{V}", rest, re.I):
        out += _role(r)
    # "at Ikea in logistics, mostly night shifts": the schedule said after the place.
    if s := re.search(r"(?:^|[,;]|\b(?:mostly|usually|working|on|doing|always))\s+(?P<s>"
                      r"(?:the )?(?:night|late|early|day|weekend|evening) shifts?|nights"
                      r"|weekends|part[- ]time|full[- ]time|remotely|from home)\b", rest, re.I):
        out.append(Said("work_schedule", s.group("s"), f"works {s.group('s')}"))
    return out


def _work_as(m: re.Match[str]) -> list[Said]:
    out = _role(m)
    if out and out[0].attribute == "is_a":
        out[0] = Said("occupation", out[0].value, out[0].predicate)
    return out if out and out[0].attribute == "occupation" else []


def _prefers(m: re.Match[str]) -> list[Said]:
    v, w = value_of(m), value_of(m, "w")
    if v is None or _PRONOUN_VALUE.match(v) or lx.deictic(v):
        return []
    if re.match(r"^\w+ing$", v) and lx.category(v) is None:
        # "I prefer working in the early morning": a way of doing things, no object.
        rest = third_person_value(m.string[m.start("v"):]).rstrip(" .!")
        return [Said(None, None, f"prefers {rest}", type="preference")]
    v = lx.bare_name(v)
    attr = lx.preference_attribute(v, w)
    return [Said(attr, v, f"prefers {v}" + (f" over {w}" if w else ""), type="preference")]


def _uses(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or _PRONOUN_VALUE.match(v) or lx.deictic(v):
        return []
    v = lx.bare_name(v)
    if lx.category(v) is not None:
        return [Said(lx.preference_attribute(v), v, f"{lx.use_verb(v)} {v}",
                     type="preference")]
    if re.match(r"^(?:the|a|an)\s+[a-z]", v):
        return []  # "I'm using the free tier": this conversation's setting, not a tool
    return [Said(lx.preference_attribute(v, verb="uses"), v, f"uses {v}")]


def _qualified(m: MatchLike, v: str) -> str:
    """A lower-case value with the clause that narrows it: "languages with strong types",
    "meetings that run late" (the bare noun would say more than was said)."""
    if v[:1].isupper() or " " in v.strip():
        return v
    q = re.match(r"\s+((?:with|without|that|which|who)\s+[^,;.!?]+)", m.string[m.end("v"):])
    return f"{v} {third_person_value(q.group(1))}" if q else v


def _likes(m: MatchLike) -> list[Said]:
    v = value_of(m)
    if v is None or _PRONOUN_VALUE.match(v) or lx.deictic(v):
        return []
    v = _qualified(m, v)
    verb = m.groupdict().get("verb") or "likes"
    pred = f"is a fan of {v}" if "fan" in verb.lower() else f"{_verb3(verb)} {v}"
    return [Said("likes", v, pred)]


def _dislikes(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or _PRONOUN_VALUE.match(v):
        return []
    v = _qualified(m, v)
    return [Said("dislikes", v, f"{_verb3(m.group('verb'))} {v}")]


def _switch(m: re.Match[str]) -> list[Said]:
    v, w = value_of(m), value_of(m, "w")
    if v is None:
        return []
    v = lx.bare_name(v)
    was = f" (switched from {w})" if w else ""
    if lx.category(v) or (w and lx.category(w)):
        return [Said(lx.preference_attribute(v, w), v, f"uses {v}{was}", True, "preference")]
    if m.group("verb").lower() == "moved":
        if not lx.strip_article(v)[:1].isupper():
            return []  # "I moved to the new office": not a place to live
        return [Said("lives_in", v, f"lives in {v}" + (f" (moved from {w})" if w else ""),
                     True)]
    # An unknown kind of thing: a correction without a triple (linked by its text).
    return [Said(None, None, f"switched {'from ' + w + ' ' if w else ''}to {v}", True)]


def _no_longer(m: MatchLike) -> list[Said]:
    v = value_of(m)
    if v is None:
        return []
    verb = m.group("verb").lower()
    if verb.startswith("live"):
        return [Said("lives_in", None, f"no longer lives in {v}", True)]
    if verb.startswith("work"):
        return [Said("works_at", None, f"no longer works at {v}", True)]
    if verb in ("am", "is", "are"):
        bare = lx.strip_article(v)
        if bare.lower() in lx.DIETS:
            return [Said("diet", None, f"is no longer {bare}", True)]
        if lx.is_role(bare):
            return [Said("occupation", None, f"is no longer {lx.article(bare)} {bare}", True)]
        return []
    return [Said(lx.preference_attribute(v), None, f"no longer uses {v}", True)]


def _speaks(m: re.Match[str]) -> list[Said]:
    langs = [x.strip() for x in re.split(r",|\band\b", m.group("v")) if x.strip()]
    if not langs or any(x.lower() not in lx.LANGUAGES_SPOKEN for x in langs):
        return []
    return [Said("speaks", x.title(), f"speaks {x.title()}") for x in langs]


def _simple(attribute: str, template: str) -> Callable[[re.Match[str]], list[Said]]:
    def parse(m: re.Match[str]) -> list[Said]:
        v = value_of(m)
        return [Said(attribute, v, template.format(v=v))] if v else []
    return parse


def _text_only(kind: str) -> Callable[[re.Match[str]], list[Said]]:
    def parse(m: re.Match[str]) -> list[Said]:
        said = third_person_value(m.string).rstrip(".!")
        # The text follows "The user": "prefer it when …" reads "prefers it when …".
        said = re.sub(r"^prefer\b", "prefers", said)
        return [Said(None, None, said, type=kind)]
    return parse


_DIET = "|".join(re.escape(d) for d in lx.DIETS)
_LIKE = r"(?P<verb>love|loves|like|likes|enjoy|enjoys|adore|adores|really like|really love)"
_NOT_OBJ = r"(?!to\b|it\b|that\b|this\b|when\b|how\b|the idea\b|being\b|about\b)"
PARSERS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], list[Said]]], ...] = (
    (_rx(rf"^{BE} {ADVS}allergic to {V}"), _allergy),
    (_rx(r"^(?:have|has)(?: got)? (?:an? )?(?:severe |mild |bad |serious |bad )?"
         r"(?P<v>[\w -]+?) allerg(?:y|ies)\b"), _allergy),
    (_rx(rf"^{BE} {ADVS}(?P<v>lactose|gluten|fructose|histamine|caffeine) intolerant"),
     _simple("intolerant_to", "is {v} intolerant")),
    (_rx(rf"^{BE} {ADVS}(?:an? )?(?P<v>{_DIET})\b(?! (?:restaurant|food|option|recipe|meal))"),
     lambda m: _diets(m)),
    (_rx(rf"^(?:eat|eats|follow|follows|keep|keeps|am on|is on) {ADVS}(?:an? )?"
         rf"(?P<v>{_DIET})(?: diet)?\b"),
     lambda m: [Said("diet", m.group("v").lower(), f"is {m.group('v').lower()}")]),
    (_rx(rf"^{BE} (?P<v>\d{{1,3}})(?: years? old| yo| yrs old)?(?={STOP})"),
     _simple("age", "is {v} years old")),
    (_rx(rf"^{BE} no longer {V}"), lambda m: _no_longer(_Fake(m, "am"))),
    (_rx(rf"^{BE} {ADVS}(?P<v>diabetic|coeliac|celiac|asthmatic|epileptic|colou?rblind|deaf"
         r"|hard of hearing|left-handed|pregnant|autistic|dyslexic)\b"),
     _simple("condition", "is {v}")),
    (_rx(r"^(?:have|has) (?P<v>ADHD|asthma|diabetes|type [12] diabetes|celiac disease"
         r"|coeliac disease|epilepsy|dyslexia|autism|migraines|high blood pressure"
         r"|tinnitus)\b"), _simple("condition", "has {v}")),
    (_rx(rf"^{BE} {ADVS}(?:an? )(?:big |huge |massive |die-hard )?(?P<v>(?-i:[A-Z][\w.&-]*"
         r"(?: [A-Z][\w.&-]*)?)) fan\b"), lambda m: _likes(_Fake(m, "fan"))),
    (_rx(rf"^{BE} not (?:really )?(?:an? )?(?:big |huge )?fan of {V}"),
     lambda m: [Said("dislikes", v, f"is not a fan of {v}")] if (v := value_of(m)) else []),
    (_rx(rf"^{BE} {ADVS}(?:a |an )?(?:big |huge |massive )?fan of {V}"),
     lambda m: _likes(_Fake(m, "fan"))),
    (_rx(rf"^{BE} {ADVS}(?:an? ){V}"), _role),
    (_rx(rf"^{BE} {ADVS}(?:employed|working) (?:at|by|for) {V}"), _work_at),
    (_rx(rf"^(?:work|works) {ADVS}(?:at|for) {V}"), _work_at),
    (_rx(rf"^(?:work|works) {ADVS}as (?:an? )?{V}"), _work_as),
    (_rx(rf"^(?:work|works) {ADVS}(?P<v>(?:the )?(?:night|late|early|weekend) shifts?|nights"
         r"|weekends|part[- ]time|full[- ]time|remotely|from home)\b"),
     _simple("work_schedule", "works {v}")),
    (_rx(rf"^(?:live|lives) on [A-Z][^,;!?]*? in {V}"), _simple("lives_in", "lives in {v}")),
    (_rx(rf"^(?:live|lives|{BE} living|{BE} based|reside|resides) {ADVS}in {V}"),
     _simple("lives_in", "lives in {v}")),
    (_rx(rf"^(?:have |has )?(?:just |recently |finally )?(?P<verb>moved|switched|changed"
         rf"|migrated|converted) (?:over )?(?:from {W} )?to {V}"), _switch),
    (_rx(rf"^{BE} {ADVS}from {V}"), _simple("from", "is from {v}")),
    (_rx(rf"^(?:was|were) born (?:and raised )?in {V}"), _simple("from", "is from {v}")),
    (_rx(rf"^(?:have|has) (?:been living|lived) in {V}"), _simple("lives_in", "lives in {v}")),
    (_rx(rf"^would rather (?:use |have |go with |work with )?{V}(?:\s+(?:than|over|to)\s+{W})?"),
     _prefers),
    (_rx(rf"^(?:have |has )?(?:stopped|quit) (?P<verb>using) {V}"), _no_longer),
    (_rx(r"^(?:speak|speaks) (?:fluent )?(?P<v>[A-Za-z]+(?:(?:,\s*|\s+and\s+)[A-Za-z]+)*)"),
     _speaks),
    (_rx(rf"^(?:would |'d )?prefers? {ADVS}not to (?:talk about|discuss|talk|get into|go into"
         rf"|share|bring up|dwell on) {V}"),
     lambda m: [Said("avoids_topic", value_of(m),
                     f"prefers not to discuss {third_person_value(m.group('v'))}")] if value_of(m)
     else []),
    (_rx(r"^(?:would |'d )?prefers? (?:not to|to|it when|when|that|if)\b.+"),
     _text_only("preference")),
    (_rx(rf"^(?:would |'d )?prefers? {ADVS}{V}(?:\s+(?:over|to|rather than|instead of|than)"
         rf"\s+{W})?"), _prefers),
    (_rx(rf"^(?:no longer|don't|do not|doesn't|does not) (?P<verb>use|live in|work at"
         rf"|work for) {V}(?=\s+any ?(?:more|longer))"), _no_longer),
    (_rx(rf"^no longer (?P<verb>uses?|lives? in|works? at|works? for) {V}"), _no_longer),
    (_rx(rf"^(?:use|uses|{BE} using|code in|codes in|program in|write in) {ADVS}{V}"),
     _uses),
    (_rx(rf"^(?:{BE} on|{BE} running|run|runs) {ADVS}{V}"),
     lambda m: _uses(m) if value_of(m) and lx.category(value_of(m) or "") else []),
    (_rx(rf"^(?:go|goes|opt|opts) (?:for|with) {ADVS}{V}"),
     lambda m: _prefers(m) if value_of(m) and lx.category(lx.bare_name(value_of(m) or "")) else []),
    (_rx(rf"^(?:{BE} )?{ADVS}{_LIKE} {ADVS}{_NOT_OBJ}{V}"), _likes),
    (_rx(rf"^{ADVS}(?P<verb>hate|hates|dislike|dislikes|can't stand|cannot stand|don't like"
         rf"|do not like|doesn't like|detest|detests) {_NOT_OBJ}{V}"), _dislikes),
    (_rx(rf"^(?:play|plays) {ADVS}{V}"), _simple("plays", "plays {v}")),
    (_rx(r"^(?:have|has) (?P<v>two|three|four|five|one|\d) (?:kids|children)\b"),
     _simple("number_of_children", "has {v} children")),
)


class _Fake:
    """A match whose ``verb`` group is fixed (rows that share a parser)."""

    def __init__(self, m: re.Match[str], verb: str) -> None:
        self._m, self._verb, self.string = m, verb, m.string

    def group(self, key: str) -> str:
        return self._verb if key == "verb" else self._m.group(key)

    def groupdict(self) -> dict[str, str | None]:
        return {**self._m.groupdict(), "verb": self._verb}

    def end(self, group: int | str = 0) -> int:
        return self._m.end(group)

    def start(self, group: int | str = 0) -> int:
        return self._m.start(group)


def parse_predicate(predicate: str) -> list[Said]:
    """Everything the predicate says, part by part ("is 7 and loves dinosaurs")."""
    out: list[Said] = []
    for part in _AND_VERB.split(predicate.strip()):
        part = re.sub(rf"^{ADVS}", "", part.strip(), flags=re.IGNORECASE)
        # "I've been vegan for ten years": a state that still holds; "might be" is
        # read as "is" (the clause's hedge lowers the confidence).
        part = re.sub(r"^(?:(?:have|has) been (?!to\b|living\b)|(?:might|may|could|must"
                      r"|probably) be )", "am ", part, flags=re.I)
        for pat, parse in PARSERS:
            m = pat.search(part)
            if m is not None:
                said = parse(m)
                if said:
                    out += said
                    break
    return out
