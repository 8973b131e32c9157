"""Revealing what a text hides, so the guard's rules judge what a model would read.

A model reads characters a person does not see and decodes what a person does not
bother to: Unicode tag characters (U+E0000–E007F) spell ASCII invisibly, zero-width and
bidirectional controls split words or reorder what is displayed, variation selectors
can smuggle bytes after an emoji, Cyrillic and Greek letters (and Latin small capitals,
mathematical letters, the estimated sign ℮ …) imitate Latin ones, and a base64 / base32
/ hex (of UTF-8 or UTF-16) / URL-encoded / rot13 run is one "decode this" away from an
instruction.
:func:`reveal` undoes all of it and hands the guard the texts to judge besides the
original (:class:`View`), and what it found hidden (:attr:`Revealed.hidden`).

Not everything invisible is hidden.  Left alone, because real text needs it:
- a zero-width joiner inside an emoji sequence (a family: man, woman, girl) or, like
  the non-joiner, between letters of a script that uses them (Persian, Arabic, the
  Indic scripts);
- a zero-width space between letters of scripts written without spaces (Thai, Lao,
  Khmer, Myanmar, Chinese, Japanese), where it marks word breaks;
- left-to-right / right-to-left marks, and balanced embeddings or isolates, in text
  that has right-to-left letters (Hebrew, Arabic), where the bidi algorithm needs them;
  overrides (U+202D/E) never: they make the display differ from the text;
- one variation selector after a character (emoji vs text presentation, ideographic
  variants), and the tag sequence of a subdivision flag (🏴 + "gbeng" + cancel tag);
- a byte-order mark at the very start.

Everything in the text is linear in its length; texts without a non-ASCII character or
an encoded-looking run skip all but two regular-expression scans (the guard runs on
every write).
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote

from memdesk.core.guard.confusables import FOLD

MIN_DECODED = 12  # shorter decoded text cannot carry an instruction worth holding
MAX_DEPTH = 2  # base64 of hex of an instruction is revealed; deeper nesting is not chased

_TAGS = range(0xE0000, 0xE0080)
_CANCEL_TAG = 0xE007F
# Tag characters spell the ASCII character 0xE0000 below them; the language tag and the
# cancel tag spell nothing.
_TAG_TABLE = {c: (chr(c - 0xE0000) if 0xE0020 <= c <= 0xE007E else None) for c in _TAGS}
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_VS_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]+")
_BLACK_FLAG = "\U0001F3F4"
_VS = frozenset((*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)))
_ZWSP, _ZWNJ, _ZWJ, _BOM = "\u200b", "\u200c", "\u200d", "\ufeff"
_MARKS = frozenset("\u200e\u200f\u061c")  # LRM, RLM, ALM
_OPENERS = {"\u202a": "\u202c", "\u202b": "\u202c",  # embeddings close with PDF
            "\u2066": "\u2069", "\u2067": "\u2069", "\u2068": "\u2069"}  # isolates, PDI
_CLOSERS = frozenset(_OPENERS.values())
_OVERRIDES = frozenset("\u202d\u202e")
_RTL_FORMAT = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2")
# Invisible but not format characters: grapheme joiner, Hangul fillers (seen in spoofed
# names), Mongolian vowel separator, the Khmer inherent vowels.
_OTHER_INVISIBLE = frozenset("\u034f\u115f\u1160\u3164\uffa0\u180e\u17b4\u17b5")
# Every format character (Unicode category Cf), the invisible letters and marks above,
# and the variation selectors: the only characters _scan looks at one by one.
_CANDIDATES = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
    "\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\U000e0100-\U000e01ef]+")
_NO_SPACE_SCRIPTS = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF),
                     (0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF))
# Hebrew, Arabic, Syriac, Thaana … (their format characters left out: a text does not
# become right-to-left by carrying only an invisible Arabic sign).
_RTL_LETTER = re.compile("[\u0590-\u05ff\u0606-\u061b\u061d-\u06dc\u06de-\u070e"
                         "\u0710-\u088f\u0892-\u08e1\u08e3-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")

_B64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(rf"(?:\\x[0-9a-fA-F]{{2}}){{{MIN_DECODED},}}"
                  rf"|\b(?:0x)?(?:[0-9a-fA-F]{{2}}){{{MIN_DECODED},}}\b"
                  rf"|\b[0-9a-fA-F]{{2}}(?:[ :,-][0-9a-fA-F]{{2}}){{{MIN_DECODED - 1},}}\b")
_URL = re.compile(r"(?:[^\s%]*%[0-9A-Fa-f]{2}){3,}[^\s%]*")
_ENTITY = re.compile(r"(?:&#[xX]?[0-9a-fA-F]{1,6};|&[a-zA-Z]{2,8};)\s?")
_UESC = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}){4,}")
_NOT_HEX = re.compile(r"[^0-9a-fA-F]")
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]")
_ALNUM = re.compile(r"[^\W_]")
_TAG_CHAR = re.compile("[\U000e0000-\U000e007f]")
# A shifted (rot13 …) or reversed text is judged only when undoing the shift makes at
# least two words of this list appear that were not there before.  Words are compared by
# the steps between their letters, which a shift leaves alone, so one pass over the
# text's words finds every shift worth trying (no 25 translations of every text).
_TARGET_WORDS = (
    "the and you your to of is for this that with all be are in on it or from as at by "
    "user every any now when if so ignore disregard instruction instructions previous "
    "system prompt password passwords credentials delete send forward execute admin "
    "assistant always never reply respond remember whenever tool verification authorized "
    "authorised must data files account")
_TARGETS = frozenset(_TARGET_WORDS.split())
# Whole Latin words only: "sống" is no word "s" and word "ng".
_WORD = re.compile(r"(?<![^\W\d_])[a-z]+(?![^\W\d_])")
_LONGEST = max(map(len, _TARGETS))


def _steps(word: bytes) -> tuple[int, ...]:
    return (len(word), *((word[i + 1] - word[i]) % 26 for i in range(len(word) - 1)))


_BY_STEPS: dict[tuple[int, ...], list[bytes]] = {}
for _t in _TARGETS:
    _BY_STEPS.setdefault(_steps(_t.encode()), []).append(_t.encode())
_LOWER, _UPPER = b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SHIFTS = {n: bytes.maketrans(_LOWER + _UPPER, _LOWER[n:] + _LOWER[:n] + _UPPER[n:]
                              + _UPPER[:n]) for n in range(1, 26)}


@dataclass(frozen=True)
class View:
    """A text the guard judges besides the original, and how it was revealed."""

    text: str
    how: str  # completes "revealed …", e.g. "by decoding base64"
    concealed: bool = True  # False: only reformatted (line breaks joined), nothing undone


@dataclass(frozen=True)
class Revealed:
    """What :func:`reveal` found: the views to judge, and the characters that hid text."""

    original: str
    views: tuple[View, ...] = ()
    hidden: tuple[str, ...] = ()  # e.g. "3 × ZERO WIDTH SPACE"; empty: nothing hidden
    shown: str = ""  # the text as the operator should read it: hidden parts made visible

    @property
    def carries_hidden(self) -> bool:
        return bool(self.hidden)


@dataclass
class _Scan:
    clean: list[str] = field(default_factory=list)  # the text with hidden parts undone
    shown: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # by character (or kind)
    payloads: list[str] = field(default_factory=list)
    at: list[int] = field(default_factory=list)  # where the hidden characters are

    def keep(self, part: str) -> None:
        self.clean.append(part)
        self.shown.append(part)

    def hide(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def payload(self, text: str) -> None:
        self.payloads.append(text)
        self.clean.append(f" {text} ")
        self.shown.append(f" ⟦hidden: {text}⟧ ")

    def names(self) -> tuple[str, ...]:
        return tuple(f"{n} × {unicodedata.name(k, f'U+{ord(k):04X}') if len(k) == 1 else k}"
                     for k, n in self.counts.items())


def _in_no_space_script(ch: str) -> bool:
    o = ord(ch)
    return any(lo <= o <= hi for lo, hi in _NO_SPACE_SCRIPTS)


def _joining_letter(ch: str) -> bool:
    """A letter or mark of a script that uses (non-)joiners: past Latin, Greek, Cyrillic,
    Armenian, and not an emoji."""
    return ord(ch) >= 0x0590 and unicodedata.category(ch)[0] in "LM"


def _emoji_like(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f" or (
        0x1F3FB <= ord(ch) <= 0x1F3FF)


def _decode_tags(run: str) -> str:
    return run.translate(_TAG_TABLE)


def _decode_selectors(run: str) -> str:
    """Bytes smuggled one per variation selector (VS1–16: 0–15, VS17–256: 16–255)."""
    data = bytes(ord(c) - 0xFE00 if ord(c) < 0xFE10 else ord(c) - 0xE0100 + 16 for c in run)
    return data.decode("utf-8", errors="replace")


def _legit(ch: str, prev: str, nxt: str, at_start: bool, rtl: bool, balanced: bool) -> bool:
    """Whether one invisible character does a job in real text here (see the module doc)."""
    if ch in (_ZWJ, _ZWNJ):
        return bool(prev and nxt) and (
            (_joining_letter(prev) and _joining_letter(nxt))
            or (ch == _ZWJ and _emoji_like(prev) and _emoji_like(nxt)))
    if ch == _ZWSP:
        return bool(prev and nxt) and _in_no_space_script(prev) and _in_no_space_script(nxt)
    if ch in _MARKS:
        return rtl
    if ch in _OPENERS or ch in _CLOSERS:
        return balanced
    if ch == _BOM:
        return at_start
    # Arabic number signs and the Syriac abbreviation mark are visible format characters
    # of right-to-left text.
    return rtl and ch in _RTL_FORMAT


def _scan_run(s: _Scan, text: str, i: int, end: int, rtl: bool, balanced: bool) -> None:
    while i < end:
        ch = text[i]
        o = ord(ch)
        prev = text[i - 1] if i else ""
        if o in _TAGS or o in _VS:
            is_tags = o in _TAGS
            m = (_TAG_RUN if is_tags else _VS_RUN).match(text, i, end)
            j = m.end() if m else i + 1
            run = text[i:j]
            if is_tags:
                tail = _decode_tags(run[:-1])
                if (prev == _BLACK_FLAG and ord(run[-1]) == _CANCEL_TAG and 2 <= len(tail) <= 7
                        and tail.isalnum() and tail.islower()):
                    s.keep(run)  # a subdivision flag
                else:
                    s.hide("Unicode tag characters", len(run))
                    s.at.extend(range(i, j))
                    s.payload(_decode_tags(run))
            elif len(run) == 1 and (ch in "\ufe0e\ufe0f" or (prev and not prev.isascii())):
                s.keep(run)  # one presentation or ideographic variant selector
            else:
                s.hide("variation selectors", len(run))
                s.at.extend(range(i, j))
                payload = _decode_selectors(run) if len(run) > 1 else ""
                if payload.isprintable() and payload.strip():
                    s.payload(payload)
            i = j
            continue
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch not in _OVERRIDES and _legit(ch, prev, nxt, i == 0, rtl, balanced):
            s.keep(ch)
        else:
            s.hide(ch)
            s.at.append(i)
        i += 1


def _scan(text: str) -> _Scan:
    """Hidden characters out, tag and selector payloads decoded in place (set off by
    spaces, as the separate text they are).  Only the runs of candidate characters are
    looked at one by one; the text between them is copied."""
    s = _Scan()
    rtl = _RTL_LETTER.search(text) is not None
    balanced = rtl and all(
        sum(text.count(o) for o, c2 in _OPENERS.items() if c2 == c) == text.count(c)
        for c in _CLOSERS)
    pos = 0
    for m in _CANDIDATES.finditer(text):
        s.keep(text[pos:m.start()])
        _scan_run(s, text, m.start(), m.end(), rtl, balanced)
        pos = m.end()
    s.keep(text[pos:])
    return s


def hidden_positions(text: str) -> tuple[int, ...]:
    """Where ``text`` has characters that hide something (the ones :func:`reveal` counts
    in ``hidden``), in order; legitimate invisible characters (an emoji family's joiners,
    a Persian non-joiner, balanced isolates in right-to-left text, …) are not among
    them.  The desk shows exactly these, so it and the guard never disagree."""
    if text.isascii():
        return ()
    return tuple(_scan(text).at)


def _fold(text: str) -> str:
    """Look-alikes onto the Latin letters they imitate: the confusables table, NFKD
    (full-width, mathematical, ligature and accented forms come apart: "𝛆" into "ε"),
    the table again, then every combining mark on an ASCII letter dropped (accents and
    "zalgo" stacks), and what is left composed again (NFC)."""
    out = unicodedata.normalize("NFKD", text.translate(FOLD)).translate(FOLD)
    kept: list[str] = []
    base_ascii = False
    for c in out:
        if unicodedata.combining(c):
            if not base_ascii:
                kept.append(c)
            continue
        base_ascii = c.isascii()
        kept.append(c)
    return unicodedata.normalize("NFC", "".join(kept))


def _checked(s: str) -> str | None:
    """``s`` if it is text: printable, long enough to say something."""
    s = s.strip()
    if len(s) < MIN_DECODED:
        return None
    if not s.isprintable():
        # Line breaks, tabs and tag characters are text too; a few stray controls are
        # tolerated (an attacker's noise), binary is not.
        odd = len(_UNPRINTABLE.findall(s))
        if odd > 0.05 * len(s):
            return None
    # Mostly letters and digits (hex and base64 nest), or tag characters (they spell).
    if len(_ALNUM.findall(s)) + len(_TAG_CHAR.findall(s)) < 0.5 * (len(s) - s.count(" ")):
        return None
    return s


def _printable_text(data: bytes) -> tuple[str, str] | None:
    """``data`` as text, if it is text, and in which encoding ("" for UTF-8): UTF-8, or
    UTF-16 (Windows' "Unicode": PowerShell's ``-EncodedCommand`` is base64 of UTF-16LE).

    Any even number of bytes decodes as UTF-16, mostly into characters scattered over
    the whole plane; text in an alphabet (Latin, Greek, Cyrillic, Hebrew, Arabic …)
    lies below U+0800, so UTF-16 counts only where most of it does."""
    try:
        text = _checked(data.decode("utf-8"))
        if text is not None:
            return text, ""
    except UnicodeDecodeError:
        pass
    if len(data) % 2:
        return None
    bom = data[:2] in (b"\xff\xfe", b"\xfe\xff")
    for codec in (("utf-16",) if bom else ("utf-16-le", "utf-16-be")):
        try:
            decoded = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if sum(ord(c) < 0x800 for c in decoded) < 0.8 * len(decoded):
            continue
        text = _checked(decoded)
        if text is not None:
            return text, f" (UTF-16{'' if bom else codec[-3:].upper()})"
    return None


_BASE32 = re.compile(r"[A-Z2-7]+|[a-z2-7]+")


def _b64(run: str) -> tuple[str, str] | None:
    """A run of the base64 alphabet decoded: as base32 if it keeps to that alphabet
    (RFC 4648: one case, digits 2-7; base64 of text seldom does), else as base64."""
    body = run.rstrip("=")
    if _BASE32.fullmatch(body) and len(body) % 8 in (0, 2, 4, 5, 7):
        try:
            got = _printable_text(base64.b32decode(body.upper() + "=" * (-len(body) % 8)))
        except (binascii.Error, ValueError):
            got = None
        if got is not None:
            return got[0], f"base32{got[1]}"
    body = body.replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        return None
    try:
        got = _printable_text(binascii.a2b_base64(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        return None
    return (got[0], f"base64{got[1]}") if got is not None else None


def _hex(run: str) -> tuple[str, str] | None:
    digits = _NOT_HEX.sub("", run.replace("\\x", "").removeprefix("0x"))
    if len(digits) % 2:
        return None
    got = _printable_text(bytes.fromhex(digits))
    return (got[0], f"hex{got[1]}") if got is not None else None


def _decoded(text: str) -> list[tuple[str, str]]:
    """Every decodable run of ``text``: (decoded text, "by decoding …")."""
    out: list[tuple[str, str]] = []
    if "%" in text:
        for m in _URL.finditer(text):
            s = unquote(m.group(0))
            if len(s) >= MIN_DECODED:
                out.append((s, "by URL-decoding"))
    if "&" in text and len(_ENTITY.findall(text)) >= 3:
        out.append((html.unescape(text), "by decoding HTML entities"))
    if "\\" in text:
        for m in _UESC.finditer(text):
            s = m.group(0).encode("ascii").decode("unicode_escape", errors="replace")
            if len(s) >= 4:
                out.append((s, "by decoding \\u escapes"))
    for m in _HEX.finditer(text):
        got = _hex(m.group(0))
        if got is not None:
            out.append((got[0], f"by decoding {got[1]}"))
    for m in _B64.finditer(text):
        got = _b64(m.group(0))
        if got is not None:
            out.append((got[0], f"by decoding {got[1]}"))
    return out


def _shifted(text: str) -> list[tuple[str, str]]:
    """rot13 and the other letter shifts, and the text reversed, where undoing them
    makes an instruction's words appear that were not there before."""
    raw = text.encode("utf-8", errors="replace")
    words = [w.encode() for w in _WORD.findall(text.lower())]
    votes: dict[int, int] = {}
    backwards = 0
    for w in words:
        if len(w) > _LONGEST:
            continue
        for target in _BY_STEPS.get(_steps(w), ()):
            d = (target[0] - w[0]) % 26
            votes[d] = votes.get(d, 0) + 1
        if w[::-1].decode() in _TARGETS:
            backwards += 1
    plain = votes.get(0, 0)
    out: list[tuple[str, str]] = []
    for n in sorted(d for d, v in votes.items() if d and v >= 2 and v > plain):
        out.append((raw.translate(_SHIFTS[n]).decode("utf-8", errors="replace"),
                    "by undoing rot13" if n == 13 else f"by shifting letters back ({n})"))
    if backwards >= 2 and backwards > plain:
        out.append((text[::-1], "by reading it backwards"))
    return out


def reveal(text: str, _depth: int = 0) -> Revealed:
    """The views of ``text`` to judge besides itself, and what it hides."""
    if not text:
        return Revealed(text, shown=text)
    views: list[View] = []
    hidden: tuple[str, ...] = ()
    shown = base = unfolded = text
    if not text.isascii():
        s = _scan(text)
        if s.counts:
            hidden = s.names()
            shown, base = "".join(s.shown), "".join(s.clean)
            how = ("from invisible Unicode tag characters" if "Unicode tag characters"
                   in s.counts and s.payloads else "from variation selectors" if s.payloads
                   else "by removing invisible characters")
            views.append(View(" ".join(base.split()), how))
        unfolded = base
        folded = " ".join(_fold(base).split())
        if folded != " ".join(base.split()):
            views.append(View(folded, "by folding look-alike letters (Unicode confusables, NFKD)"))
            base = folded
    joined = " ".join(base.split())
    if joined != text and all(v.text != joined for v in views):
        # A sentence broken over lines still reads as one to a model.
        views.append(View(joined, "with line breaks joined", concealed=False))
    if _depth < MAX_DEPTH:
        for decoded, how in _decoded(base):
            inner = reveal(decoded, _depth + 1)
            views.append(View(decoded, how))
            views.extend(View(v.text, f"{how}, then {v.how}") for v in inner.views)
            hidden += inner.hidden
        if _depth == 0:
            # Shifts are looked for in the text as written: folded, a sentence in
            # another script is strewn with Latin pairs ("ot", "fi") that would vote
            # for reading it backwards ("to", "if").
            views.extend(View(t, how) for t, how in _shifted(unfolded))
    return Revealed(text, tuple(views), hidden, shown)
