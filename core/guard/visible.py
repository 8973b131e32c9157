"""Store text made visible: the one rule for showing a memory's text, a user id, an
agent's name or a model's words on a screen or a terminal.

Text from the store is data, never layout.  Shown as it is, a right-to-left override
(U+202E) in a user id reverses the app's own words after it ("eve · 2 memories" reads
"seiromem 2 · eve"), a zero-width space splits a word without a trace, a line break
starts a line that looks like one of ours, and a tag looks like markup.  So every value
is shown:

- *revealed*: each character that hides something (as the guard judges it, see
  ``hidden_positions``) and each control or separator that breaks a line is written as
  ``⟨U+XXXX⟩``; what real writing needs (an emoji family's joiners, a Persian
  non-joiner, balanced isolates in Hebrew or Arabic) is kept, so the desk and the
  guard never disagree about what a text hides;
- *on one line* where one line is shown (a list row, a field in a sentence of ours):
  line breaks and tabs are revealed too (:func:`one_line`), or, for a preview of a
  long text, runs of spaces and line breaks fold into one space (:func:`elide`);
- *isolated* where it sits inside a sentence of ours: wrapped in first-strong isolates
  (FSI … PDI), so genuine right-to-left text stays right-to-left without reordering the
  words around it (:func:`isolate`; :func:`terminal` for a terminal line);
- *cut* in lists (:func:`elide`, :func:`list_entry`), whole where the operator reads it.

Never as HTML: that is the widgets' side (``memdesk.ui.desk.text``: plain-text labels,
escaped tooltips).  This module has no Qt, so the desk (``memdesk.ui``) and the
command line (``memdesk.app``) share it; the CLI's side is ``memdesk.app.cli.shown``.
"""

from __future__ import annotations

import re
import unicodedata

from memdesk.core.guard.reveal import hidden_positions

FSI, PDI = "\u2068", "\u2069"  # first-strong isolate, pop directional isolate
ELLIPSIS = "…"
_SPACES = re.compile(r"[ \t\n\r]+")
_ISOLATES = re.compile("[\u2066-\u2069]")
_ISOLATED = re.compile("\u2068[^\u2066-\u2069\n]*\u2069")  # what isolate() makes
# Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, …) and
# their presentation forms: a terminal line is isolated only around text that has one.
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff"
                  "\U0001e800-\U0001efff]")


def _breaks_layout(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return (cat == "Cc" and ch not in "\n\t") or cat in ("Zl", "Zp")


def _shown_at(text: str) -> set[int]:
    at = set(hidden_positions(text))
    at.update(i for i, ch in enumerate(text) if _breaks_layout(ch))
    return at


def _code(m: re.Match[str]) -> str:
    return f"⟨U+{ord(m.group(0)):04X}⟩"


def _plain(text: str) -> bool:
    return text.isascii() and text.isprintable()


def reveal(text: str) -> str:
    """``text`` with every hiding or layout-breaking character shown as ⟨U+XXXX⟩ (line
    breaks and tabs kept; what real writing needs kept, as the guard judges it)."""
    if _plain(text):
        return text
    at = _shown_at(text)
    if not at:
        return text
    return "".join(f"⟨U+{ord(ch):04X}⟩" if i in at else ch for i, ch in enumerate(text))


def hidden_count(text: str) -> int:
    """How many characters :func:`reveal` would make visible."""
    return 0 if _plain(text) else len(_shown_at(text))


def one_line(text: str) -> str:
    """``text`` revealed on one line: line breaks and tabs shown as ⟨U+000A⟩ and
    ⟨U+0009⟩ too, for a list or a combo box entry that must stay one row."""
    return reveal(text).replace("\n", "⟨U+000A⟩").replace("\t", "⟨U+0009⟩")


def elide(text: str, limit: int = 200) -> str:
    """A preview of a long text on one visible line: runs of spaces and line breaks
    fold into one space, the rest is cut to ``limit`` characters (with "…"), then
    revealed (cut first, so no ⟨U+XXXX⟩ is cut in half)."""
    bound = max(8 * limit, 1024)  # a 200,000-character text is not folded whole
    folded = _SPACES.sub(" ", text[:bound]).strip()
    if len(folded) > limit or (len(text) > bound and folded):
        folded = folded[: max(0, limit - 1)] + ELLIPSIS
    return one_line(folded)


def elide_middle(text: str, limit: int = 60) -> str:
    """Cut the middle of a long path or id, so its end (the file name) stays whole.
    Only cuts: reveal the result (:func:`list_entry`, :func:`isolate`) to show it."""
    if len(text) <= limit:
        return text
    for sep in ("/", "\\"):
        cut = text.rfind(sep)
        name = text[cut:]
        if cut > 0 and len(name) + 8 <= limit:  # the whole name, and some of the head
            return text[: limit - 1 - len(name)] + ELLIPSIS + name
    head = (limit - 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (limit - 1 - head):]


def list_entry(text: str, width: int = 40) -> str:
    """A value from the store as one short, visible row of a list or combo box: cut in
    the middle first (so no ⟨U+XXXX⟩ is cut in half), then revealed on one line."""
    return one_line(elide_middle(text, width))


def isolate(text: str) -> str:
    """A value for a sentence of ours on screen: revealed on one line, then wrapped in
    first-strong isolates so genuine right-to-left text stays right and cannot move
    the words around it.  Isolates inside the value are shown too (even the balanced
    ones right-to-left text may carry), so an isolated value is one span with no
    isolate of its own: :func:`reveal_composed` can tell it from the rest."""
    return FSI + _ISOLATES.sub(_code, one_line(text)) + PDI


def reveal_composed(text: str) -> str:
    """A sentence of ours that may hold :func:`isolate`'d values, revealed around
    them: the values are shown already (their isolates are ours and stay), the rest
    of the text is revealed (line breaks kept) in case it carries a raw value."""
    out: list[str] = []
    pos = 0
    for m in _ISOLATED.finditer(text):
        out.append(reveal(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(reveal(text[pos:]))
    return "".join(out)


def display_lines(text: str, width: int = 1000) -> str:
    """``text`` with a display line break after every ``width`` characters of a longer
    line, so a huge unbroken line becomes many short blocks (laid out lazily)."""
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(line[i:i + width] for i in range(0, max(1, len(line)), width))
    return "\n".join(out)


def terminal(text: str, width: int | None = None) -> str:
    """A value for one line of a terminal: revealed on one line (a preview cut to
    ``width`` when given, as :func:`elide`), and isolated only when it has
    right-to-left letters (a bidi terminal would otherwise reorder our words around
    it; everywhere else the isolates would be two invisible characters for nothing)."""
    shown = one_line(text) if width is None else elide(text, width)
    return FSI + _ISOLATES.sub(_code, shown) + PDI if _RTL.search(shown) else shown
