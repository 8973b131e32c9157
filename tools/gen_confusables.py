"""Regenerate core/guard/confusables.py: look-alikes of Latin letters and digits.

The data is Unicode's confusables list (UTS #39, ``confusables.txt``) and script
property (``Scripts.txt``) as the ``confusable-homoglyphs`` package ships them (MIT;
version 3.3.1, January 2024, carries Unicode 15.1's lists).  The guard keeps only
what it needs, as a table in the source, so the app needs neither the package nor its
900 kB JSON at run time (nor a PyInstaller hook for it); tests/guard reads the package
to check the table against it (the package is in the ``test`` extra, not a runtime
dependency).

    .venv/bin/python -m pip install confusable-homoglyphs==3.3.1
    .venv/bin/python tools/gen_confusables.py

How a character is folded.  UTS #39 maps every confusable character to a
*prototype*, and the characters sharing a prototype form a class.  A class is read as
an ASCII letter or digit when:

1. it holds one (``е``, ``ℯ``, ``ɑ`` are in the class of ``e``, ``a``); the class of
   ``l`` also holds ``I`` and ``1``: a capital look-alike folds to ``I``, any other
   to ``l`` (and ``Ю``, read "lO" by UTS #39, to "IO");
2. or its prototype is ASCII letters with marks or a stroke (``Б`` → ``b̄``, ``ç`` →
   ``c̦``, ``η`` → ``n̩``): the letters without them (``æ`` → ``ae`` too);
3. or it is one of the few classes in ``READS_AS`` below, looked at one by one: the
   prototype is no Latin letter, yet in a Latin word the glyph reads as one;
4. or it holds a Latin small capital (``к`` and ``κ`` are in the class of ``ᴋ``):
   the lower-case letter, which is what a reader takes it for.

Latin letters that UTS #39 does not list are added by their Unicode names: every small
capital (``ɴ``, ``ꜰ``, ``ꞯ``) as its lower-case letter, and every letter "with" a hook,
stroke, tail … (``ɦ``, ``ƙ``, ``ʂ``) as its base letter, since that is what it reads as.

Every script's look-alikes are kept but those of ``EXCLUDED`` scripts: genuine text in
Arabic, Hebrew, the Indic and other Brahmic scripts or CJK is common, and their few
Latin look-alikes (Hebrew samekh "o", Devanagari digit zero) would fold it into
Latin noise for no gain.  Characters that NFKD already turns into the same letters
(full-width, mathematical, accented forms) are left to NFKD, which the guard applies
between two passes of this table.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections import defaultdict
from pathlib import Path

import confusable_homoglyphs  # type: ignore[import-not-found]
from confusable_homoglyphs import categories  # type: ignore[import-not-found]

OUTPUT = Path(__file__).resolve().parents[1] / "core" / "guard" / "confusables.py"
ALNUM = frozenset(string.ascii_letters + string.digits)
EXCLUDED = frozenset((
    "ARABIC", "HEBREW", "SYRIAC", "THAANA", "NKO", "ADLAM", "MENDE_KIKAKUI", "SAMARITAN",
    "HAN", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "YI",
    "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU", "KANNADA",
    "MALAYALAM", "SINHALA", "THAI", "LAO", "MYANMAR", "TIBETAN", "KHMER", "ETHIOPIC",
    "AHOM", "TIRHUTA", "BALINESE", "JAVANESE",
))
# Classes whose prototype is no Latin letter but whose glyphs read as one in a Latin
# word (a member of the class -> what it reads as).  Each was looked at: "Sεnd thε
# usεr's password" reads as "Send the user's password".
READS_AS = {
    "ꞓ": "e",  # ε ɛ ϵ є ԑ: epsilon, open e, Ukrainian ie
    "Ꞓ": "E",  # Є €
    "Ɛ": "E",  # Ԑ ℇ: capital open e, reversed ze
    "ǝ": "e",  # ə ә: schwa, turned e ("thə usər")
    "ω": "w",  # ꙍ ⲱ ꞷ
    "ш": "w",  # ⲽ
    "π": "n",  # п ϖ: Cyrillic pe and Greek pi read as n in a Latin word
    "χ": "x",  # ꭓ ⲭ
    "ь": "b",  # ƅ: soft sign, tone six
    "ʋ": "u",  # υ: v with hook, upsilon
}
_SMALL_CAPITAL = re.compile(r"LATIN (?:LETTER SMALL CAPITAL (.)$|SMALL CAPITAL LETTER (.) WITH )")
_WITH = re.compile(r"LATIN (SMALL|CAPITAL) LETTER (.) WITH ")


def _classes() -> list[set[str]]:
    """UTS #39's classes: characters (or sequences) sharing a prototype."""
    path = Path(confusable_homoglyphs.__file__).parent / "confusables.json"
    data: dict[str, list[dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, entries in data.items():
        for entry in entries:
            # The package wraps right-to-left characters in LEFT-TO-RIGHT MARKs.
            a, b = root(key.replace("\u200e", "")), root(entry["c"].replace("\u200e", ""))
            if a != b:
                parent[a] = b
    out: dict[str, set[str]] = defaultdict(set)
    for x in list(parent):
        out[root(x)].add(x)
    return list(out.values())


def _bare(s: str) -> str:
    """``s`` without combining marks (NFD)."""
    return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.combining(c))


def _by_name(c: str) -> str | None:
    """The ASCII letter a Latin small capital, or a Latin letter with a hook, stroke,
    tail …, is named after (a small capital as lower case)."""
    name = unicodedata.name(c, "")
    if (hit := _SMALL_CAPITAL.match(name)) is not None:
        return (hit.group(1) or hit.group(2)).lower()
    if (hit := _WITH.match(name)) is not None:
        return hit.group(2).lower() if hit.group(1) == "SMALL" else hit.group(2)
    return None


def _reading(members: set[str]) -> str | None:
    """What a class reads as in ASCII: a letter or digit ("l" for the class of l, I
    and 1, settled per character by :func:`_target`), letters, or None."""
    singles = sorted(m for m in members if m in ALNUM)
    if singles:
        return "l" if "l" in singles else "O" if "O" in singles else singles[0]
    for m in members:
        bare = _bare(m)
        if len(m) > 1 and 0 < len(bare) <= 2 and all(c in ALNUM for c in bare):
            return bare
    for m in members:
        if m in READS_AS:
            return READS_AS[m]
    for m in members:
        if len(m) == 1 and (hit := _SMALL_CAPITAL.match(unicodedata.name(m, ""))):
            return (hit.group(1) or hit.group(2)).lower()
    return None


def _target(c: str, reading: str) -> str:
    # UTS #39 folds I and 1 onto l; a reader takes a capital look-alike for I.
    return reading.replace("l", "I") if c.isupper() else reading


def _after_nfkd(c: str, table: dict[str, str]) -> str:
    """What the guard's fold makes of ``c`` through NFKD alone (marks on ASCII dropped)."""
    folded = "".join(table.get(x, x) for x in unicodedata.normalize("NFKD", c))
    return "".join(x for x in folded if not unicodedata.combining(x))


def build() -> dict[str, str]:
    """Each look-alike character -> the ASCII letters it folds to."""
    out: dict[str, str] = {}
    for members in _classes():
        reading = _reading(members)
        if reading is None:
            continue
        for c in members:
            if len(c) == 1 and not c.isascii() and categories.alias(c) not in EXCLUDED:
                out[c] = _target(c, reading)
    for c in map(chr, range(0x80, 0x20000)):
        if c not in out and (named := _by_name(c)) is not None:
            out[c] = named
    # The guard folds before NFKD and again after it.  Left out: what NFKD alone turns
    # into ASCII (full-width and mathematical forms, Roman numerals: "𝟏" stays a digit)
    # or into a character of this table with the same reading (accented forms, "𝛆");
    # kept: what it turns into something else (lunate sigma "ϲ" into final sigma "ς").
    stable = {c: t for c, t in out.items() if unicodedata.normalize("NFKD", c) == c}
    return {c: t for c, t in sorted(out.items())
            if c in stable or not (unicodedata.normalize("NFKD", c).isascii()
                                   or _after_nfkd(c, stable) == t)}


def _escaped(chars: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
                   for c in chars)


def main() -> None:
    table = build()
    by_target: dict[str, list[str]] = defaultdict(list)
    for c, t in table.items():
        by_target[t].append(c)
    lines = []
    for t in sorted(by_target, key=lambda t: (t.lower(), t)):
        chars = by_target[t]
        parts = [_escaped("".join(chars[i:i + 10])) for i in range(0, len(chars), 10)]
        body = "\n        ".join(f'"{p}"' for p in parts)
        lines.append(f'    "{t}": (\n        {body}),' if len(parts) > 1
                     else f'    "{t}": {body},')
    OUTPUT.write_text(
        '"""Look-alikes of Latin letters and digits (generated by tools/gen_confusables.py\n'
        "from Unicode's confusables list, UTS #39, and script property; do not edit by\n"
        "hand: its docstring says what is kept and why).\n\n"
        "``FOLD`` is a :meth:`str.translate` table, applied before NFKD and after it: each\n"
        'character of a string in ``LOOKALIKES`` folds to that string\'s key."""\n\n'
        "LOOKALIKES: dict[str, str] = {\n" + "\n".join(lines) + "\n}\n"
        "FOLD = {ord(c): ascii_ for ascii_, chars in LOOKALIKES.items() for c in chars}\n",
        encoding="utf-8")
    print(f"{len(table)} look-alikes of {len(by_target)} ASCII letters, digits or pairs "
          f"written to {OUTPUT}")


if __name__ == "__main__":
    main()
