"""The command line's side of showing store text (the rule is core's:
``memdesk.core.guard.visible``).

A line the CLI prints for people puts every value from the store (a memory's text, a
user id, an entity, an agent's name, a goal) through :func:`cell`: controls, bidi
overrides and invisible characters are written as ``⟨U+XXXX⟩``, line breaks too (one
value never starts a line that looks like one of ours), and text with right-to-left
letters is isolated, so a bidi terminal keeps our words in place.  ``--json`` output
stays the exact data: :func:`json_text` writes it with JSON's own escapes for the same
characters (``\\u202e``), which any JSON reader turns back into the stored text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from memdesk.core.guard.visible import terminal


def cell(text: object, width: int | None = None) -> str:
    """A stored value for one line of a terminal: visible, isolated where it has
    right-to-left letters, cut to ``width`` characters (with "…") when given."""
    return terminal("" if text is None else str(text), width)


def _escapable(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


# Everything past ASCII that a terminal might obey or hide; ASCII controls are
# escaped by json itself.
_RISKY = re.compile("[\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e"
                    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
                    "\U000e0000-\U000e007f]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    if not _escapable(ch):
        return ch
    return json.dumps(ch)[1:-1]  # JSON's own escape, \\uXXXX (a surrogate pair past BMP)


def json_text(data: Any, **kwargs: Any) -> str:
    """``data`` as JSON (UTF-8 text, as ``json.dumps(..., ensure_ascii=False)``), with
    the characters a terminal would obey or hide written as JSON escapes: the same
    data for any reader, nothing reversed or hidden on screen."""
    return _RISKY.sub(_escape, json.dumps(data, ensure_ascii=False, **kwargs))
