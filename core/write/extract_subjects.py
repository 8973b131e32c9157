"""Who a clause is about: the user ("I …", "My wife and I …", "we use …" for tools), a
person or pet of theirs ("My daughter Emma …", "My wife …", "I have a cat named Luna",
"She …" after one was named in the same turn), or nothing we read; and the user's own
"My name is …" / "My favourite X is …"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memdesk.core.write import extract_lexicon as lx
from memdesk.core.write.extract_phrases import favourite, tool_kind
from memdesk.core.write.extract_predicates import NAME, VERB_AHEAD, Said, V, value_of


@dataclass
class Subject:
    entity: str  # "user", a name, or a relation ("wife")
    label: str  # how the text names it: "The user", "Emma", "The user's wife"
    predicate: str
    extra: list[Said] = field(default_factory=list)  # e.g. "Emma is the user's daughter"
    tools_only: bool = False
    # "My partner and I are vegetarian, but she …": the partner holds the predicate too,
    # and what follows the pronoun is said of the partner alone.
    also: tuple[str, str] | None = None
    also_predicate: str = ""

    @property
    def is_user(self) -> bool:
        return self.entity == "user"


# -- subjects ---------------------------------------------------------------------------
_REL = lx.KIN_AFFIX.format(rel="|".join(sorted((re.escape(r) for r in lx.RELATIONS),
                                              key=len, reverse=True)))
_MY_REL = re.compile(rf"^(?:my|our) (?:(?:little|older|younger|big|eldest|youngest|oldest|best|"
                     rf"new|baby|late|ex-|twin|elder|middle|adopted|other|dear)\s*){{0,2}}"
                     rf"(?P<r>{_REL})\b(?:'s name is|,? (?:named|called)"
                     rf"|,)?\s*", re.IGNORECASE)
_VERB_START = re.compile(rf"^(?:{VERB_AHEAD}|can't|cannot|doesn't|does not|just|really"
                         r"|also|still|always|never|used|recently|currently)\b", re.I)
_MY_ATTR = re.compile(rf"^(?:my (?P<a>name|birthday|favou?rite (?P<k>[\w ]+?)|(?P<pick>go-to"
                      rf"|preferred|default|usual|main|everyday) (?P<pk>[\w ]+?)"
                      rf"|(?P<new>new |current )?(?P<job>job|workplace|employer|company))"
                      rf"(?: is|'s)(?: (?:at|with|for))?"
                      rf"|(?P<call>call me|I go by)) {V}", re.IGNORECASE)
# "SQLite is my default for anything small", "Firefox is my go-to browser", "Arc is my
# browser on both laptops", "Espresso is my drink of choice".
_IS_MY_PICK = re.compile(r"^(?:for [\w ]{1,30},\s*)?(?P<v>[\w.+#-]+(?: [\w.+#-]+)?)"
                         r" (?:is|are) (?:still |now )?my (?:(?P<adj>go-to|default|preferred"
                         r"|usual|main|favou?rite|daily driver)\b ?)?(?P<k>[\w ]+?)?"
                         r"(?P<choice> of choice)?"
                         r"(?=\s+(?:for|on|in|at|now|these days)\b|[.,!;]|$)", re.IGNORECASE)
# "My browser of choice is Vivaldi" reads as "my preferred browser is Vivaldi".
_OF_CHOICE = re.compile(r"^my ([\w ]+?) of choice\b", re.IGNORECASE)


@dataclass
class Context:
    """Third parties named earlier in the same turn, for "She …"."""

    last: tuple[str, str] | None = None
    names: dict[str, str] = field(default_factory=dict)


def my_attribute(clause: str) -> list[tuple[str, Said]]:
    """ "My name is Ada", "My favourite colour is green": (entity, Said)."""
    if h := re.match(rf"^home(?: for me| these days)? is (?:now )?{V}", clause, re.I):
        return [("user", Said("lives_in", value_of(h), f"lives in {value_of(h)}"))] \
            if (value_of(h) or "")[:1].isupper() else []
    if (p := _IS_MY_PICK.match(clause)) is not None:
        kind = p.group("k")
        # Said as a pick ("my go-to", "of choice"), a known tool or a kind of tool will do;
        # bare "X is my Y" only for a kind of tool ("Sam is my brother" is no pick).
        if (kind and tool_kind(kind)) or ((p.group("adj") or p.group("choice"))
                                          and lx.category(p.group("v"))):
            return [("user", favourite(kind or lx.category(p.group("v")) or "thing",
                                       p.group("v")))]
    m = _MY_ATTR.match(_OF_CHOICE.sub(r"my preferred \1", clause))
    if m is None or (v := value_of(m)) is None:
        return []
    if m.group("pick"):
        return [("user", favourite(m.group("pk"), v))]
    if m.group("job"):
        if not v[:1].isupper():
            return []
        return [("user", Said("works_at", v, f"works at {v}", bool(m.group("new"))))]
    a = "name" if m.group("call") else m.group("a").lower()
    if a == "name":
        return [("user", Said("name", v, f"'s name is {v}"))]
    if a == "birthday":
        v = re.sub(r"^(?:in|on)\s+", "", v, flags=re.I)
        return [("user", Said("birthday", v, f"has their birthday in {v}"
                              if not re.search(r"\d", v) else f"has their birthday on {v}"))]
    kind = m.group("k").strip().lower()
    return [("user", Said(f"favorite_{lx.slug(kind)}", v, f"has {v} as their favourite {kind}",
                          type="preference"))]


def subject(clause: str, ctx: Context) -> Subject | None:
    """The subject of a clause (see the module docstring), or None."""
    c = clause.strip()
    if m := re.match(rf"^(?:I|we) (?:have|have got|got|adopted|own) (?:an? )(?P<r>{_REL})"
                     rf" (?:named|called) {NAME}"
                     r"[,.]?\s*(?P<p>.*)$", c, re.I | re.S):
        name, rel = m.group("n"), m.group("r").lower()
        ctx.last, ctx.names[name.lower()] = (name, name), name
        return Subject(name, name, re.sub(r"^(?:who|which|that)\s+", "", m.group("p")),
                       [Said("relation", rel, f"is the user's {rel}")])
    if m := re.match(r"^I\s+(?P<p>.+)$", c, re.S):
        return Subject("user", "The user", m.group("p"))
    if m := re.match(rf"^(?:my|our) (?P<r>{_REL}) and I\s+(?P<p>.+)$", c, re.I | re.S):
        rel = m.group("r").lower()  # "My wife and I live in …": both of them do
        pred = re.sub(r"^(?:are|both are)\s+(?:both\s+)?", "are ", m.group("p"), flags=re.I)
        pred = re.sub(r"^both\s+", "", pred, flags=re.I)
        own, other = pred, ""
        if cut := re.search(r",?\s*(?:and|but|though|while)\s+(?:she|he)\s+", pred, re.I):
            own, other = pred[:cut.start()], pred[cut.end():]
        ctx.last = (rel, f"The user's {rel}")
        return Subject("user", "The user", own, also=(rel, f"The user's {rel}"),
                       also_predicate=other)
    if m := _MY_REL.match(c):
        rel = m.group("r").lower()
        rest = c[m.end():]
        named_is = re.search(r"name is|named|called", m.group(0), re.I) is not None
        # Not ``name``: that one is always a str (the first branch above).
        named: str | None = None
        pred = rest
        n = re.match(NAME, rest)
        if n and not _VERB_START.match(n.group("n")) and (
                named_is or re.match(r",?\s+\S", rest[n.end():])):
            named, pred = n.group("n"), rest[n.end():].lstrip(", ")
        if named:
            ctx.last, ctx.names[named.lower()] = (named, named), named
            rel_said = Said("relation", rel, f"is the user's {rel}")
            return Subject(named, named, pred, [rel_said])
        ctx.last = (rel, f"The user's {rel}")
        return Subject(rel, f"The user's {rel}", pred)
    if m := re.match(r"^we\s+(?P<p>(?:use|are using|now use)\b.+)$", c, re.I | re.S):
        # "we use Teams now": the user's tool too, when we know what kind of tool it is
        # (a team's other habits are decisions, read elsewhere).
        return Subject("user", "The user", m.group("p"), tools_only=True)
    if (m := re.match(r"^(?:she|he)\s+(?P<p>.+)$", c, re.I | re.S)) and ctx.last:
        return Subject(ctx.last[0], ctx.last[1], m.group("p"))
    if (m := re.match(rf"^{NAME}\s+(?P<p>.+)$", c, re.S)) and m.group("n").lower() in ctx.names:
        name = ctx.names[m.group("n").lower()]
        return Subject(name, name, m.group("p"))
    return None


def expand(text: str) -> str:
    """Contractions the parsers read in full ("I'm" → "I am", "she's" → "she is")."""
    text = text.replace("’", "'")
    text = re.sub(rf"\b((?:my|our) (?:{_REL}))'s (?=(?:allergic|intolerant|an?|vegan|vegetarian"
                  r"|pescatarian|gluten-free|from|into|\d+|also|always|never|really|very|so|not"
                  r"|retired|married|pregnant|based|originally|severely|lactose|obsessed|crazy"
                  r"|a big|the)\b)", r"\1 is ", text, flags=re.IGNORECASE)
    for pat, repl in ((r"\bI'm\b", "I am"), (r"\bI've\b", "I have"), (r"\bIm\b", "I am"),
                      (r"\bI'd\b", "I would"), (r"\b(she|he|it)'s\b", r"\1 is"),
                      (r"\bwe're\b", "we are"), (r"\bdon't\b", "don't")):
        text = re.sub(pat, repl, text, flags=re.IGNORECASE)
    return text
