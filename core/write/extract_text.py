"""Text handling for the offline extractor: sentences (abbreviations do not end one),
clauses, whether a sentence is English, quoted speech, and the third-person paraphrase.

A period inside an abbreviation ("St. Mary's", "Dr. Lee", "e.g.", "U.S.") is replaced by
``ABBR_DOT`` while the turn is split and parsed, so neither the sentence splitter nor a
value pattern stops there; :func:`restore` puts the period back in what is stored.
"""

from __future__ import annotations

import re

ABBR_DOT = "\u2024"  # ONE DOT LEADER: looks like a period, is not one to the patterns
# Titles come before a name: their period never ends a sentence.
TITLES = ("St", "Dr", "Mr", "Mrs", "Ms", "Prof", "Mt", "Rev", "Hon", "Gen", "Lt", "Sgt",
          # places named after a fort, a port, a saint (feminine); titles of office
          "Ft", "Pt", "Ste", "Fr", "Sen", "Rep", "Gov", "Adm", "Maj", "Cpl", "Pvt", "Supt",
          "Capt", "Mme", "Mlle", "Ave", "Rd", "No", "vs", "approx", "Dept", "Univ", "Jan",
          "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
          "sr", "jr", "snr", "Snr", "assoc", "asst")
# Suffixes end a name, often a sentence too: "I work at Acme Corp. I'm allergic …".
SUFFIXES = ("Inc", "Ltd", "Co", "Corp", "Jr", "Sr", "etc")
ABBREVIATIONS = TITLES + SUFFIXES
_ABBR = re.compile(r"\b(" + "|".join(TITLES) + r")\.(?=\s+\S)"
                   r"|\b(" + "|".join(SUFFIXES) + r")\.(?=\s+[a-z0-9(])")
# Dotted initialisms: e.g. i.e. U.S. U.K. a.m. p.m. Ph.D.
_DOTTED = re.compile(r"\b(?:[A-Za-z]{1,2}\.){2,}(?=[\s,;:)]|$)")
# A spaced dash ends a statement too: "Not Lisbon — Madrid", "Zoe is 6 — what games …?".
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[—–]\s*|\s+-{1,2}\s+")
# Chat style writes the pronoun in lower case: "i prefer pnpm", "i'm vegan btw".
_LOWER_I = re.compile(r"(?<![\w'’.-])i(?=(?:['’](?:m|ve|d|ll)\b)|\s)")
_SEQUENCE = re.compile(r"^(?:when|whenever|before|after|if|first|once)\b", re.IGNORECASE)
# "According to my flatmate, I sleepwalked": what someone else says of the user.
_ATTRIBUTED = re.compile(r"^according to\b|,\s*according to\b", re.IGNORECASE)
# "…, and in my spare time I play": a short adverbial may stand before the new subject.
_JOINED = re.compile(r",?\s+(?:and|but|though|although|whereas)\s+(?=(?:I|we|my)\b"
                     r"|(?:in|on|at|for|during|outside) [\w' ]{1,25}?,?\s+I\b)"
                     r"|,\s+(?=(?:I\b(?!'d like)|we\b))", re.IGNORECASE)


# "So my partner and I …", "In March 2024 my wife and I …": a bare "my partner" before
# "and I", after at most a word or a time or place said first, is part of the subject.
_POSSESSED = re.compile(r"^(?:\w+,? |(?:in|on|at|during|over|after|before|since|back in|last"
                        r"|this|next|earlier|later) [\w' ]{1,25}?,? )?(?:my|our) [\w-]+$",
                        re.IGNORECASE)


def protect(text: str) -> str:
    """``text`` with abbreviation periods replaced by ABBR_DOT (and a lower-case "i"
    pronoun written "I", so every rule reads chat style as it reads prose)."""
    text = _LOWER_I.sub("I", text)
    text = _DOTTED.sub(lambda m: m.group(0).replace(".", ABBR_DOT), text)
    # A dotted initialism at a sentence's end still ends it: "…in the U.S. It was…"
    text = re.sub(r"(?<=[A-Z])" + ABBR_DOT + r"(?=\s+(?:I|It|We|My|The|This|He|She|They)\b)",
                  ABBR_DOT + ".", text)
    return _ABBR.sub(lambda m: (m.group(1) or m.group(2)) + ABBR_DOT, text)


def restore(text: str) -> str:
    return text.replace(ABBR_DOT + ".", ".").replace(ABBR_DOT, ".")


def sentences(text: str) -> list[str]:
    """Sentences of an already protected text."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def protected_clauses(text: str) -> list[str]:
    """The clauses of a turn, abbreviation periods still protected (see ``protect``)."""
    out: list[str] = []
    for s in sentences(protect(text)):
        # "When I deploy, I first run the tests": one procedure, not two clauses;
        # "According to my brother, I snored": one report, not a statement after it.
        if _SEQUENCE.match(s) or _ATTRIBUTED.match(s):
            out.append(s)
            continue
        merged: list[tuple[int, str]] = []  # (start in s, text)
        start = 0
        for m in [*_JOINED.finditer(s), None]:
            part = s[start:m.start() if m else len(s)].strip()
            # "Actually, I …", "My wife and I …": a part of one or two words stays with
            # the clause after it, joined as it was said.
            if merged and (len(merged[-1][1].split()) < 3 or _POSSESSED.match(
                    merged[-1][1])) and not merged[-1][1].endswith(
                    (".", "!", "?", ";")) and not re.match(r"I\b", merged[-1][1]):
                begin = merged.pop()[0]
                part = s[begin:m.start() if m else len(s)].strip()
                merged.append((begin, part))
            elif part:
                merged.append((start, part))
            if m:
                start = m.end()
        out += [p for _, p in merged if p]
    return out


def clauses(text: str) -> list[str]:
    """The clauses of a turn: sentences, then first-person parts joined by "and"/"but"
    or a comma ("I no longer use vim, I use Helix now")."""
    return [restore(c) for c in protected_clauses(text)]


# -- English or not ----------------------------------------------------------------------
_ENGLISH = frozenset(re.findall(r"\S+", """
i i'm im me my we our you your the a an is am are was be to of and in on at for with it
this that not no do don't have has like love prefer use work live from but so just really
always never he she they his her their what how why can will would should about because
"""))
_FOREIGN = frozenset(re.findall(r"\S+", """
ich bin und nicht ist mein meine meiner wir sie der die das den dem ein eine einen auch
arbeite wohne mag habe hat sehr gerne kein keine vegetarier tochter frau mann
je suis et pas est mon ma mes nous vous le la les un une des du j'aime j'habite travaille
avec pour dans végétarien végétarienne fille femme c'est je
yo soy estoy y no es mi mis nosotros el los las una del con por para trabajo vivo tengo
me gusta hija esposa también muy
io sono sto mio mia lavoro abito ho molto anche
ik ben niet mijn het een werk woon heb
eu sou não meu minha trabalho moro tenho
"""))
_NON_LATIN = re.compile(r"[\u0400-\u04FF\u0370-\u03FF\u0590-\u06FF\u0900-\u097F"
                        r"\u3040-\u30FF\u4E00-\u9FFF\uAC00-\uD7AF\u0E00-\u0E7F]")


_OTHER_LATIN = re.compile(r"[ąćęłńśźżőűřčšžěůňťďñßãõçàèìòùäöüâêîôûåøæœ]", re.IGNORECASE)


def is_english(sentence: str) -> bool:
    """False for a sentence in another language (function words, or another script)."""
    letters = [c for c in sentence if c.isalpha()]
    if letters and sum(1 for c in letters if _NON_LATIN.match(c)) > len(letters) / 3:
        return False
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", sentence.lower())
    foreign = sum(1 for w in words if w in _FOREIGN and w not in _ENGLISH)
    english = sum(1 for w in words if w in _ENGLISH)
    if foreign >= 2 and foreign > english:
        return False
    # "Mi hijo tiene diez años", "Jestem programistą i mieszkam w Gdańsku": one foreign
    # signal (a function word or a letter English does not use) and no English word
    # longer than "a"/"i".
    signal = foreign or _OTHER_LATIN.search(sentence) is not None
    return not (signal and len(words) >= 3
                and not any(w in _ENGLISH and len(w) > 1 for w in words))


# -- quoted and reported speech --------------------------------------------------------
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»")
REPORTED = re.compile(
    r"\b(?:said|says|say|told|tells|tell me|claimed|claims|claim|wrote|writes|texted"
    r"|joked|jokes|asked|asks|mentioned|insists|insisted|thinks|thought|reckons|swears)\b"
    r"(?: (?:me|us|that))?", re.IGNORECASE)
_REPORTER = re.compile(r"^(?:(?:my|our|a|the|his|her|their) [\w-]+(?: [A-Z]\w+)?|he|she"
                       r"|they|someone|somebody|everyone|[A-Z]\w+)\s+(?:\w+ly\s+)?"
                       r"(?:said|says|told|tells|claimed|claims|wrote|texted|joked|asked"
                       r"|mentioned|insists|insisted|thinks|thought|reckons|swears)\b",
                       re.IGNORECASE)


# Single quotes around words in the first person ("the song goes 'I left my home…'"):
# someone's line, not the user's statement.  An apostrophe is no quote: the opening one
# follows a space or the start, the closing one is followed by a space, punctuation or
# the end.
_SINGLE_QUOTED = re.compile(r"(?:^|(?<=\s))['‘](?P<q>[^'‘’\n]{3,}?)['’](?=[\s,.;:!?)]|$)")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|we|our|us)\b")


def reported_speech(sentence: str) -> bool:
    """True when the sentence reports what someone else said (or quotes anyone)."""
    s = sentence.strip()
    return bool(QUOTED.search(s)) or bool(_REPORTER.search(s)) or bool(
        _ATTRIBUTED.search(s)) or any(_FIRST_PERSON.search(m.group("q"))
                                      for m in _SINGLE_QUOTED.finditer(s))


# -- third person --------------------------------------------------------------------------
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


def third_person_verb(verb: str) -> str:
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
    out = restore(clause).strip().rstrip(".!?,;: ")
    for pat, repl in PERSON:
        out = re.sub(pat, repl, out, flags=re.IGNORECASE)
    out = _SUBJECT_VERB.sub(
        lambda m: f"{m.group(1)}{m.group(2)} "
        f"{m.group(3) if m.group(1).endswith('team') else third_person_verb(m.group(3))}",
        out,
    )
    out = " ".join(out.split())
    return (out[:1].upper() + out[1:] + ".") if out else out


def third_person_value(value: str) -> str:
    """A value as stored: first-person words in it read in the third person."""
    out = restore(value)
    for pat, repl in ((r"\bmy\b", "their"), (r"\bme\b", "them"), (r"\bI\b", "they")):
        out = re.sub(pat, repl, out, flags=re.IGNORECASE)
    return out.strip()
