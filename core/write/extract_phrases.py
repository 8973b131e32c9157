"""More ways of saying the same predicates, and lists of values.

:mod:`extract_predicates` reads one phrasing per attribute well ("I'm allergic to X",
"I love X").  Blind test sets showed users reach the same attributes through many verbs
and complements ("I'm really into X", "I grew up in X", "I turned 52", "I'm fluent in
X", "I'm intolerant to X", "I gave up on Windows and went to Fedora") and through lists
("I like Python, Go and Rust").  The rows here are verb and complement lexicons per
attribute, read before the older table; :func:`parse_predicate` then reads every further
item of a list for the attributes a person holds several values of.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memdesk.core.write import extract_lexicon as lx
from memdesk.core.write import extract_predicates as ep
from memdesk.core.write.extract_predicates import ADVS, BE, Said, V, W, value_of

Parser = Callable[[re.Match[str]], list[Said]]

# Attributes whose lists are read item by item: "allergic to dogs, cats and horses".
LISTED = frozenset(("likes", "dislikes", "allergic_to", "intolerant_to", "speaks", "plays"))
_NOT_ITEM = re.compile(
    r"^(?:(?i:I|he|she|it|we|they|you|then|also|so|but|which|who|that|where|when|because"
    r"|since|though|although|especially|mostly|mainly|except|not|even|too|like|plus|really"
    r"|very|just|always|never|sometimes|usually|a lot|lots|much|more|less|all|both"
    r"|everything|anything|nothing|stuff|things|etc|e\.g|i\.e)"
    # verbs in lower case only: "Go" in "Python, Go and Rust" is a name
    r"|[a-z]+ly|[a-z]+ed|is|are|am|was|were|have|has|had|do|does|did|can|will|would"
    r"|should|use|uses|work|works|live|lives|go|goes|make|makes|get|gets|drink|drinks|eat"
    r"|eats|play|plays|read|reads|watch|watches|listen|listens|cook|cooks|want|wants|need"
    r"|needs|think|know|see|try|own|run|runs|write|writes|prefer|like|love|enjoy|hate|keep"
    r"|take|find|wear|buy|visit)\b"
    # an object pronoun: "… and drink it daily" is a predicate of its own
    r"|.*\b(?i:it|them|him|her|me|us|this|that|these|those)\b")
_ITEM = re.compile(r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)"
                   r"(?P<i>[\w'’+#&.-]+(?:\s+(?!and\b|or\b)[\w'’+#&.-]+){0,2}?)"
                   rf"(?={ep.STOP})")
_CATEGORY_WORDS = {c.replace("_", " "): c for c in lx.CATEGORIES} | {
    "ide": "editor", "text editor": "editor", "programming language": "language",
    "db": "database", "operating system": "os", "distro": "os", "terminal shell": "shell",
    "test runner": "test_framework", "testing framework": "test_framework",
    "code formatter": "formatter", "chat app": "chat_tool", "framework": "web_framework"}


def list_items(rest: str) -> list[str]:
    """The further items of a list that starts just before ``rest``."""
    items: list[tuple[str, bool]] = []  # (item, joined by "and"/"or")
    pos = 0
    while (m := _ITEM.match(rest, pos)) is not None:
        item = m.group("i").strip(" .")
        if _NOT_ITEM.match(item) or not item:
            break
        items.append((item, re.search(r"\b(?:and|or)\b|&", m.group(0)[:m.start("i") - m.start()])
                      is not None))
        pos = m.end()
    # "A, B and C" is a list; "allergic to X, found out last winter" is not: items after
    # a bare comma count only when an "and"/"or" item closes the list.
    while items and not items[-1][1]:
        items.pop()
    return [i for i, _ in items]


def tool_kind(kind: str) -> bool:
    """ "browser", "text editor", "drink": a kind of thing the user picks one of."""
    return " ".join(kind.lower().split()) in _CATEGORY_WORDS


def _kind_attribute(kind: str, value: str) -> str:
    """ "my go-to editor is Sublime": the kind said names the category."""
    k = " ".join(kind.lower().split())
    if k in _CATEGORY_WORDS:
        return f"prefers_{_CATEGORY_WORDS[k]}"
    return lx.preference_attribute(value) if lx.category(value) else f"prefers_{lx.slug(k)}"


def favourite(kind: str, value: str) -> Said:
    v = lx.bare_name(value)
    return Said(_kind_attribute(kind, v), v, f"prefers {v} ({kind.lower()})", type="preference")


def _likes(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or lx.deictic(v) or re.match(r"^(?:it|this|that|them)$", v, re.I):
        return []
    return [Said("likes", v, f"is into {v}")]


def _dislikes(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or lx.deictic(v) or re.match(r"^(?:it|this|that|them)$", v, re.I):
        return []
    return [Said("dislikes", v, f"dislikes {v}")]


def _speaks(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or v.lower() not in lx.LANGUAGES_SPOKEN:
        return []
    return [Said("speaks", v.title(), f"speaks {v.title()}")]


def _tool(correction: bool) -> Parser:
    """A known kind of tool used ("I drink green tea", "I'm back on Vim"); an unknown
    value says nothing (we do not know what it would be preferred as)."""
    def parse(m: re.Match[str]) -> list[Said]:
        v = value_of(m)
        if v is None or lx.category(lx.bare_name(v)) is None:
            return []
        v = lx.bare_name(v)
        return [Said(lx.preference_attribute(v), v, f"{lx.use_verb(v)} {v}", correction,
                     "preference")]
    return parse


def _dropped(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or lx.category(lx.bare_name(v)) is None:
        return []
    v = lx.bare_name(v)
    return [Said(lx.preference_attribute(v), None, f"no longer uses {v}", True)]


def _switched_kind(m: re.Match[str]) -> list[Said]:
    """ "I switched my formatter from Black to Ruff": the kind or either value names it."""
    v, w, kind = value_of(m), value_of(m, "w"), m.group("k")
    if v is None:
        return []
    v = lx.bare_name(v)
    attr = (lx.preference_attribute(v, w) if lx.category(v) or (w and lx.category(w))
            else _kind_attribute(kind, v) if kind.lower() in _CATEGORY_WORDS else None)
    if attr is None:
        return [Said(None, None, f"switched their {kind} to {v}", True)]
    return [Said(attr, v, f"uses {v} (switched from {w})", True, "preference")]


# "My daughter just started at Lincoln High": a school is joined as a pupil, not hired by
# (the parser reads it as an event instead: extract_events).
_SCHOOL = re.compile(r"\b(?:high|school|academy|college|university|uni|elementary|middle"
                     r"|kindergarten|preschool|pre-school|daycare|nursery|montessori|prep"
                     r"|primary|secondary|institute|polytechnic|conservatory)\b",
                     re.IGNORECASE)


def _joined(m: re.Match[str]) -> list[Said]:
    org = value_of(m)
    if org is None or not org[:1].isupper():
        return []  # "I joined a gym": not an employer we can name
    if _SCHOOL.search(org):
        return []
    return [Said("works_at", org, f"works at {org}")]


def _person(m: re.Match[str]) -> list[Said]:
    """ "I'm a tabs person": a preference when tabs is a known kind; else what they are."""
    v = m.group("v").strip()
    if lx.category(v) is not None:
        return [Said(lx.preference_attribute(v), v, f"prefers {v}", type="preference")]
    if v.lower() in lx.NOT_IDENTITY or len(v.split()) > 2:
        return []
    return [Said("is_a", f"{v} person", f"is {lx.article(v)} {v} person")]


def _more_of(m: re.Match[str]) -> list[Said]:
    v = value_of(m)
    if v is None or v.lower() in lx.NOT_IDENTITY or len(v.split()) > 3:
        return []
    return [Said("is_a", v, f"is {lx.article(v)} {v}")]


def _simple(attribute: str, template: str) -> Parser:
    def parse(m: re.Match[str]) -> list[Said]:
        v = value_of(m)
        return [Said(attribute, v, template.format(v=v))] if v else []
    return parse


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_INTO = (r"(?:into|obsessed with|crazy about|passionate about|keen on|hooked on|fond of|partial to"
         r"|mad about|nuts about|big on|a sucker for|addicted to|in love with)")
_TOOL_VERBS = (r"(?:drink|drinks|mostly drink|work with|works with|develop in|develops in"
               r"|build with|builds with|rely on|relies on|stick (?:with|to)|sticks (?:with|to)"
               r"|{BE} sticking (?:with|to)|swear by|swears by|live in|lives in|daily-drive"
               r"|main|mains)").replace("{BE}", BE)
EARLY: tuple[tuple[re.Pattern[str], Parser], ...] = (
    (_rx(rf"^{BE} {ADVS}not (?:really |very |at all )?{_INTO} {V}"), _dislikes),
    (_rx(rf"^{BE} {ADVS}(?:really |totally |super |so |very )?{_INTO} {V}"), _likes),
    (_rx(rf"^{ADVS}(?:loathe|loathes|despise|despises|can't bear|cannot bear|can't stand"
         rf"|cannot stand|really dislike|dislike|dislikes|am not fond of) {V}"), _dislikes),
    (_rx(rf"^(?:have |has )?(?:gone|went|turned|become|became) (?:fully |completely |strictly )?"
         rf"(?P<v>{ep._DIET})\b"),
     lambda m: [Said("diet", m.group("v").lower(), f"is {m.group('v').lower()}", True)]),
    (_rx(rf"^(?:{BE}|was|were|got) (?:recently |just |finally )?diagnosed with {V}"),
     _simple("condition", "has {v}")),
    (_rx(r"^{BE} in (?P<v>[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?)(?=\s+since\b)".replace("{BE}", BE)),
     _simple("lives_in", "lives in {v}")),
    (_rx(r"^(?:speak|speaks) (?:a little|a bit of|some|basic|decent|good|conversational"
         r"|broken|fluent|passable|rusty) (?P<v>[A-Za-z]+)\b"), _speaks),
    (_rx(rf"^(?:find|finds) (?P<v>[\w.+#-]+(?: [\w.+#-]+)?) (?:much |way |a lot |far )?"
         rf"(?:nicer|better|easier|more "
         rf"(?:pleasant|readable|comfortable)) than {W}"), ep._prefers),
    (_rx(rf"^would (?:take|pick|choose|go for) {V}\s+over\s+{W}"), ep._prefers),
    (_rx(rf"^{BE} {ADVS}(?:way |much |far |a lot )?(?:more productive|happier|faster|better off"
         rf"|more comfortable) (?:with|in|on|using) {V}"), _tool(False)),
    (_rx(rf"^(?:have |has )?(?:swapped|traded|replaced|exchanged) {W} (?:for|with) {V}"),
     _tool(True)),
    (_rx(rf"^{BE} {ADVS}(?:an? )?(?P<v>[\w.+#-]+(?: [\w.+#-]+)?) user\b"), _tool(False)),
    (_rx(rf"^(?:{BE} )?(?:studying|studies|study|doing a degree|doing a phd)(?: [\w ]+?)? at "
         rf"{ep.ORG}(?={ep.STOP})"),
     lambda m: [Said("studies_at", o, f"studies at {o}")] if (o := ep._clean(m.group("o")))
     else []),
    (_rx(rf"^(?:have |has )?(?:just )?moved back (?:home )?to {V}"),
     lambda m: [Said("lives_in", v, f"lives in {v}", True)]
     if (v := value_of(m)) and v[:1].isupper() else []),
    (_rx(rf"^{BE} {ADVS}intolerant (?:to|of) {V}"),
     _simple("intolerant_to", "is intolerant to {v}")),
    (_rx(r"^(?:have|has) (?:an? )?(?:\w+ )?(?P<v>lactose|gluten|fructose|histamine|caffeine"
         r"|dairy|wheat) intolerance\b"), _simple("intolerant_to", "is {v} intolerant")),
    (_rx(r"^(?:just |recently )?(?:turned|have turned|has turned) (?P<v>\d{1,3})\b"),
     _simple("age", "is {v} years old")),
    (_rx(rf"^(?:grew up|was raised|were raised|was brought up|come|comes|originally come)"
         rf" (?:originally )?(?:in|from) {V}"), _simple("from", "is from {v}")),
    (_rx(rf"^{BE} {ADVS}(?:fluent|native|conversational|proficient|bilingual) in {V}"),
     _speaks),
    (_rx(rf"^(?:can|could) (?:get by|manage|speak|hold a conversation|communicate)"
         rf" (?:a bit |a little |some )?in {V}"), _speaks),
    (_rx(r"^{BE} {ADVS}an? (?:native )?(?P<v>[A-Z][a-z]+) speaker\b".replace("{BE}", BE)),
     _speaks),
    (_rx(rf"^{BE} {ADVS}(?:an? )?(?:total |big |huge |real |true )?(?P<v>[\w-]+(?: [\w-]+)?)"
         r" (?:person|guy|girl|kind of person)\b"), _person),
    (_rx(rf"^{BE} {ADVS}(?:more of|a bit of|something of|kind of|sort of) (?:an? ){V}"),
     _more_of),
    (_rx(rf"^{BE} (?:now )?back (?:on|to|with) {V}"), _tool(True)),
    (_rx(rf"^(?:went|have gone|has gone|go|jumped|went back|moved back) (?:back |over )?"
         rf"to {V}"), _tool(True)),
    (_rx(rf"^{_TOOL_VERBS} {ADVS}{V}"), _tool(False)),
    (_rx(rf"^(?:have |has )?(?:gave up|given up|ditched|dropped|abandoned|got rid of"
         rf"|moved (?:off|away from)|uninstalled|stopped using|quit using|quit)"
         rf" (?:on )?{V}"), _dropped),
    (_rx(rf"^(?:have |has )?(?:just |recently |finally )?(?:switched|changed|moved|migrated)"
         rf" (?:my |our )(?P<k>[\w ]+?) (?:over )?from {W} to {V}"), _switched_kind),
    (_rx(rf"^(?:have |has )?(?:just |recently )?(?:joined|started at|started working at"
         rf"|got a job at|landed a job at|am now working at) {V}"), _joined),
    (_rx(rf"^{BE} not (?:an? )?{ep.V.replace('?P<v>', '?P<w>')}\s+any ?(?:more|longer),?\s+"
         rf"(?:just|only|but|now|I'?m|I am)?\s*(?:an? )?(?P<v>{ep._DIET})\b"),
     lambda m: [Said("diet", m.group("v").lower(), f"is {m.group('v').lower()}", True)]),
    (_rx(rf"^{BE} not (?:at|with|working at|working for) {V}(?=\s+any ?(?:more|longer))"),
     lambda m: [Said("works_at", None, f"no longer works at {value_of(m)}", True)]
     if value_of(m) else []),
    (_rx(rf"^would rather not (?:talk about|discuss|get into|go into|share|bring up|dwell on"
         rf"|mention|say) {V}"),
     lambda m: [Said("avoids_topic", v, f"prefers not to discuss {v}")]
     if (v := value_of(m)) else []),
)
# "I'm paramedic based in Glasgow": where a role's clause says the user lives.
BASED_IN = re.compile(rf"\b(?:based|living|located) in {V}", re.IGNORECASE)
_AND_VERB = re.compile(
    rf"\s*,?\s+(?:and|but)\s+(?:(?:he|she|they)\s+)?(?:(?:now|also|currently|still)\s+)?"
    rf"(?={ep.VERB_AHEAD}\b|(?:went|switched"
    r"|moved|joined|turned|started|grew|can|is|was|studying|studies|study)\b)", re.IGNORECASE)


def parse_predicate(predicate: str) -> list[Said]:
    """Everything the predicate says, part by part ("is 7 and loves dinosaurs"), each
    list read item by item."""
    out: list[Said] = []
    for part in _AND_VERB.split(predicate.strip()):
        part = re.sub(rf"^{ADVS}", "", part.strip(), flags=re.IGNORECASE)
        part = re.sub(r"^(?:(?:have|has) been (?!to\b|living\b)|(?:might|may|could|must"
                      r"|probably) be )", "am ", part, flags=re.I)
        for pat, parse in (*EARLY, *ep.PARSERS):
            m = pat.search(part)
            if m is None:
                continue
            said = parse(m)
            if not said:
                continue
            last = said[-1]
            if last.attribute in LISTED and last.value is not None and "v" in m.groupdict():
                seen = {s.value.casefold() for s in said if s.value}
                for item in list_items(part[m.end("v"):]):
                    more = _item(last, item)
                    if more is not None and more.value and more.value.casefold() not in seen:
                        seen.add(more.value.casefold())
                        said.append(more)
            if said[0].attribute in ("occupation", "is_a") and (b := BASED_IN.search(
                    part[m.end():])) and (where := value_of(b)):
                said.append(Said("lives_in", where, f"lives in {where}"))
            out += said
            break
    return out


def _item(first: Said, item: str) -> Said | None:
    v = ep._clean(item)
    if v is None:
        return None
    if first.attribute == "speaks":
        return Said("speaks", v.title(), f"speaks {v.title()}") \
            if v.lower() in lx.LANGUAGES_SPOKEN else None
    if first.attribute == "allergic_to" and lx.joke_object(v):
        return None
    verb = first.predicate.rsplit(first.value or "", 1)[0].strip() if first.value else ""
    return Said(first.attribute, v, f"{verb} {v}".strip(), first.correction, first.type)
