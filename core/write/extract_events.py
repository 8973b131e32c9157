"""Events read from a dependency parse: what the user (or a person of theirs) did, when.

"I ran a charity race for mental health last Saturday" is no preference or fact the rules
know a phrasing for; it is something that happened.  The parse says who did what
whatever the wording: a clause's main verb, its subject and its tense.  A clause is an
event when

- its subject is the user ("I"), the user with others ("we", "my wife and I") or a
  person of theirs ("my daughter");
- its verb tells of something done: past ("went", "got married"), perfect ("we've
  adopted"), ongoing for a while ("I've been painting for 7 years"), or planned with a
  time ahead ("we're moving to Denver next month");
- nothing frames it as untrue or unsure of happening: no negation ("didn't go"), no
  modal ("could have gone", "would see"), not inside what someone said or thought ("my
  friend said she ran…", "I wish I had gone", "if I went…": only main clauses are read,
  and a main verb of saying, thinking or wishing is not an event);
- its verb is not a state the rules read as a fact or preference (be, have, like, live,
  work, use…), unless a time says it happened ("I was in Paris last week").

The unit is a ``note`` (the episodic layer: "what happened"), its text the clause in the
third person, with the resolved date added where the sentence has a time and the
session's time is known (:mod:`when`); its ``when`` carries the dates and the phrase.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memdesk.core.write.units import Unit
from memdesk.core.write.when import EventDate, resolve_event_date

EVENT_TYPE = "note"  # the closest stored type of the episodic layer (core/routing.py)
EVENT_IMPORTANCE = 0.5
EVENT_CONFIDENCE = 0.8

# Main verbs that do not tell of something done: saying, thinking, wishing (their
# clauses are someone's words or thoughts), perceiving and feeling (transient).
NOT_DONE = frozenset(re.findall(r"\S+", """
say tell ask answer reply claim mention think believe guess suppose imagine
wonder know realise realize understand mean hope wish want need dream pretend
doubt bet reckon assume expect feel seem look sound appear like love hate prefer
enjoy adore dislike mind care remember forget recall can could would should
might may must
"""))
# States the rules read as facts or preferences; an event only with a time.
STATES = frozenset(["be", "have", "live", "work", "use", "own", "keep", "stay"])
_MODALS = frozenset(re.findall(r"\S+", """
will would could can might may must should shall 'll 'd wo ca
"""))
_PERSON = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs",
           "our": "their", "us": "them", "ourselves": "themselves", "i": "they",
           "we": "they", "ours": "theirs"}
# "I almost went", "I never ran": it did not happen.
_NOT_QUITE = frozenset(("almost", "nearly", "never", "hardly", "barely", "scarcely"))
_PLAN_TIME = re.compile(r"\b(?:next|tomorrow|tonight|coming|upcoming|later|soon)\b", re.I)
_SUBJECT_DEPS = ("nsubj", "nsubjpass")


def read_events(doc: Any, said_at: datetime | None) -> list[Unit]:
    """The events of a parsed clause (a spaCy ``Doc``), in order."""
    out: list[Unit] = []
    for sent in doc.sents:
        for verb in _main_verbs(sent.root):
            unit = _event(verb, said_at)
            if unit is not None and unit not in out:
                out.append(unit)
    return out


def _main_verbs(root: Any) -> list[Any]:
    """The root and the verbs joined to it by "and" that have their own subject."""
    verbs = [root]
    # A clause run into the root ("I went to the store, then I cooked") is read on its
    # own, unless the root says, thinks or wishes it ("I think I lost my keys").
    joined = ("conj",) if root.lemma_.lower() in NOT_DONE else ("conj", "ccomp", "parataxis")
    verbs += [c for c in root.children if c.dep_ in joined and c.pos_ in ("VERB", "AUX")
              and _subject(c) is not None and _finite(c)]
    return sorted(verbs, key=lambda v: v.i)


def _subject(verb: Any) -> Any | None:
    return next((c for c in verb.children if c.dep_ in _SUBJECT_DEPS), None)


def _finite(verb: Any) -> bool:
    """A verb with a tense or an auxiliary of its own heads a clause; one without ("I got
    [my ears pierced]", "we had [the roof fixed]") is part of the verb before it."""
    return verb.tag_ in ("VBD", "VBZ", "VBP", "MD") or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ != "TO" for c in verb.children)


def _own_clause(child: Any) -> bool:
    """A dependent that is another clause, not this event's words: one with its own
    subject and tense ("…, and then I cooked"), or an adverbial clause ("after I
    graduated") other than a bare infinitive of purpose ("went [to see the play]")."""
    if child.dep_ in ("conj", "ccomp", "parataxis"):
        return _subject(child) is not None and _finite(child)
    if child.dep_ == "advcl":
        purpose = _subject(child) is None and any(c.tag_ == "TO" for c in child.children) \
            and not any(c.dep_ == "mark" for c in child.children)
        return not purpose
    return False


def _who(subject: Any) -> tuple[str, bool] | None:
    """Whose event: the label and whether it is plural; None when not the user's."""
    # "my husband and I" read as two subjects of the verb (the parse of a subject said
    # after a time: "In June 2023 my husband and I walked …") is one subject of two.
    others = [c for c in subject.head.children if c.dep_ in _SUBJECT_DEPS and c.i > subject.i]
    parts = [subject, *[c for c in subject.children if c.dep_ == "conj"], *others]
    labels: list[str] = []
    for p in parts:
        word = p.text.lower()
        if word == "i":
            labels.insert(0, "the user")
        elif word == "we":
            labels.insert(0, "the user and others")
        elif p.pos_ in ("NOUN", "PROPN") and any(c.dep_ == "poss" and c.text.lower() in (
                "my", "our") for c in p.children):
            mods = [t for t in p.subtree if t.i < p.i and t.dep_ in ("amod", "compound")]
            labels.append("the user's " + " ".join([*(t.text for t in mods), p.text]))
        else:
            return None
    if not labels:
        return None
    label = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    label = label.replace("and the user's", "and their")
    plural = len(labels) > 1 or subject.text.lower() == "we"
    return label[:1].upper() + label[1:], plural


def _event(verb: Any, said_at: datetime | None) -> Unit | None:
    subject = _subject(verb)
    if subject is None or verb.pos_ not in ("VERB", "AUX") or verb.dep_ not in (
            "ROOT", "conj", "ccomp", "parataxis"):
        return None
    who = _who(subject)
    if who is None:
        return None
    kids = list(verb.children)
    auxes = [c for c in kids if c.dep_ in ("aux", "auxpass")]
    if any(c.dep_ == "neg" or c.lower_ in _NOT_QUITE for c in kids) or any(
            a.lower_ in _MODALS or a.tag_ == "MD" for a in auxes):
        return None  # "didn't go", "almost went", "could have gone": it did not happen
    lemma = verb.lemma_.lower()
    if lemma in NOT_DONE or any(c.dep_ == "xcomp" and c.lemma_.lower() in NOT_DONE
                                for c in kids):
        return None
    if any(c.dep_ == "advcl" and any(m.dep_ == "mark" and m.lower_ in ("if", "unless")
                                     for m in c.children) for c in kids):
        return None  # "If it rains, we went…": a condition, not a fact
    tense = _tense(verb, auxes)
    if tense is None:
        return None
    text = _clause_text(verb, subject, who)
    if not text:
        return None
    when = resolve_event_date(text, said_at, prefer="future" if tense == "plan" else "past")
    if tense == "plan" and (when is None or not _ahead(when, said_at)):
        return None  # "I'm running": now, not an event; a plan needs a time ahead
    if lemma in STATES and (when is None or not any(c.dep_ in ("prep", "dobj", "xcomp")
                                                    for c in kids)):
        return None  # "I was tired", "I have a dog": states, not events
    if when is not None and when.resolved and when.label().lower() not in text.lower():
        text = f"{text} ({when.label()})"
    return Unit(text + ".", EVENT_TYPE, EVENT_IMPORTANCE, EVENT_CONFIDENCE, when=when)


def _tense(verb: Any, auxes: list[Any]) -> str | None:
    """ "past", "perfect", "ongoing" or "plan"; None for a present state or habit."""
    aux_lemmas = [a.lemma_.lower() for a in auxes]
    if verb.tag_ == "VBD" and not auxes:
        return "past"
    if "have" in aux_lemmas and verb.tag_ in ("VBN", "VBG", "VBD"):
        return "ongoing" if verb.tag_ == "VBG" else "perfect"
    if verb.tag_ == "VBN" and any(a.tag_ == "VBD" for a in auxes):
        return "past"  # "I was promoted", "I got married"
    if verb.tag_ == "VBD" and "do" in aux_lemmas:
        return "past"  # "I did go" (negation was ruled out before)
    if verb.tag_ == "VBG" and any(a.lemma_.lower() == "be" and a.tag_ in ("VBP", "VBZ")
                                  for a in auxes):
        return "plan"  # "we're moving … next month": kept only with a time ahead
    return None


def _ahead(when: EventDate, said_at: datetime | None) -> bool:
    if when.start is not None and said_at is not None:
        return when.start > said_at.date()
    return _PLAN_TIME.search(when.phrase) is not None


def _clause_text(verb: Any, subject: Any, who: tuple[str, bool]) -> str:
    """The clause in the third person: the label, then the verb's words in order,
    without the subject and without joined clauses that have their own subject."""
    label, plural = who
    drop = {t.i for c in verb.children if c.dep_ in _SUBJECT_DEPS for t in c.subtree}
    for c in verb.children:
        if c.dep_ in ("conj", "ccomp", "parataxis") and _own_clause(c):
            drop |= {t.i for t in c.subtree}
            drop |= {t.i for t in verb.children if t.dep_ == "cc" and t.i < c.i}
        elif c.dep_ in ("intj", "dep", "discourse") or _own_clause(c) or (
                c.dep_ == "punct" and c.i < verb.i):
            # Another clause ("after I graduated, …") or an aside: not this event's words.
            drop |= {t.i for t in c.subtree}
    # "Last week I visited …": a time before the subject goes after the verb's words;
    # anything else there ("Honestly, I …") is the speaker's aside, not the event.
    for c in verb.children:
        if c.i < subject.i and not any(t.ent_type_ in ("DATE", "TIME") or t.lower_ == "now"
                                       for t in c.subtree):
            drop |= {t.i for t in c.subtree}
    words = _trim([t for t in verb.subtree if t.i not in drop])
    fronted = [t for t in words if t.i < subject.i]
    if fronted and all(t.i < verb.i for t in fronted):
        words = _trim([t for t in words if t.i > subject.i]) + _trim(fronted)
    if not words:
        return ""
    out: list[str] = []
    for k, t in enumerate(words):
        word = _third_person(t, plural)
        if t.i < subject.i and t.i == min(w.i for w in words) and t.pos_ != "PROPN":
            word = word[:1].lower() + word[1:]  # "Last week" no longer starts the sentence
        gap = " " if k + 1 < len(words) and (words[k + 1].i != t.i + 1 or t.whitespace_) \
            and not words[k + 1].is_punct else ""
        out.append(word + (t.whitespace_ if words[k + 1:] and words[k + 1].i == t.i + 1
                           else gap))
    return f"{label} {''.join(out).strip()}"


def _trim(words: list[Any]) -> list[Any]:
    """Without punctuation or a dangling "and" at either end."""
    while words and (words[-1].is_punct or words[-1].dep_ == "cc"):
        words = words[:-1]
    while words and (words[0].is_punct or words[0].dep_ == "cc"):
        words = words[1:]
    return words


def _third_person(token: Any, plural: bool) -> str:
    word: str = token.text
    low = word.lower().replace("’", "'")
    if token.dep_ in ("aux", "auxpass") and (subject := _subject(token.head)) is not None \
            and subject.lower_ in ("i", "we"):
        if low in ("'ve", "have"):
            return "have" if plural else "has"
        if low in ("'m", "am", "'re", "are"):
            return "are" if plural else "is"
        if low == "was" and plural:
            return "were"
        if low == "were" and not plural:
            return "was"
    if low in _PERSON and token.tag_ in ("PRP", "PRP$"):
        return _PERSON[low]
    return word
