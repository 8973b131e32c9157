"""The guard's corpora (tests/data/guard/): injections and the benign texts that look near
them, and the five ways each injection is dressed up.

- ``injections.jsonl`` (56) and ``benign.jsonl`` (62): written with the rules;
- ``injections_more.jsonl`` (20) and ``benign_more.jsonl`` (20): written afterwards as a
  check on new wording; the rules missed 12 of those injections and held 5 of those
  benign texts, and were then made more general (so these are no longer unseen);
- ``injections_fresh.jsonl`` (20): written before that change and judged once after it,
  never used to change a rule: the honest figure for wording the rules have not seen.

Each injection is a benign-looking cover sentence ("I prefer Python.") and a payload.
Its variants:

- ``plain``: cover and payload as they are;
- ``invisible``: the payload in characters nobody sees: Unicode tag characters after
  the cover or inside it, or bytes smuggled in variation selectors after an emoji;
- ``homoglyph``: the payload in look-alike letters: Cyrillic, Greek, full-width or
  mathematical ones;
- ``encoded``: the payload as base64, hex, URL-encoding or rot13;
- ``split``: the payload's words split by zero-width and formatting characters (a
  different one per case: zero-width space, non-joiner, joiner, word joiner, soft hyphen,
  left-to-right mark, byte-order mark).
"""

from __future__ import annotations

import base64
import codecs
import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

DATA = Path(__file__).parents[1] / "data" / "guard"
VARIANTS = ("plain", "invisible", "homoglyph", "encoded", "split")

_CYRILLIC = str.maketrans("aceopxyiAEOPCXHKMTB", "асеорхуіАЕОРСХНКМТВ")
_GREEK = str.maketrans("oaivkAEZHIKMNOPTXY", "οαινκΑΕΖΗΙΚΜΝΟΡΤΧΥ")
_SPLITTERS = ("\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u200e", "\ufeff")


@dataclass(frozen=True)
class Case:
    id: str
    technique: str
    variant: str
    text: str


def _load(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tags(s: str) -> str:
    return "".join(chr(0xE0000 + ord(c)) for c in s)


def selectors(s: str) -> str:
    """Bytes one per variation selector (VS1–16 for 0–15, VS17–256 for 16–255)."""
    return "".join(chr(0xFE00 + b) if b < 16 else chr(0xE0100 + b - 16)
                   for b in s.encode("utf-8"))


def _invisible(i: int, cover: str, payload: str) -> str:
    if i % 3 == 0:
        return cover + tags(payload)
    if i % 3 == 1:
        return f"{cover} 🙂{selectors(payload)}"
    return cover[:-1] + tags(payload) + cover[-1:]  # inside the cover, before its full stop


def _homoglyph(i: int, payload: str) -> str:
    if i % 4 == 0:
        return payload.translate(_CYRILLIC)
    if i % 4 == 1:
        return payload.translate(_GREEK)
    if i % 4 == 2:  # full-width forms
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in payload)
    # mathematical sans-serif bold letters
    return "".join(chr(0x1D5D4 + ord(c) - 65) if "A" <= c <= "Z" else
                   chr(0x1D5EE + ord(c) - 97) if "a" <= c <= "z" else c for c in payload)


def _encoded(i: int, payload: str) -> str:
    kind = i % 4
    if kind == 0:
        return base64.b64encode(payload.encode()).decode()
    if kind == 1:
        return payload.encode().hex()
    if kind == 2:
        return quote(payload)
    return codecs.encode(payload, "rot13")


def _split(i: int, payload: str) -> str:
    mark = _SPLITTERS[i % len(_SPLITTERS)]
    return " ".join(w[: len(w) // 2] + mark + w[len(w) // 2:] if len(w) > 3 else w
                    for w in payload.split(" "))


def injections(files: tuple[str, ...] = ("injections.jsonl", "injections_more.jsonl")
               ) -> list[Case]:
    out: list[Case] = []
    rows = [row for name in files for row in _load(name)]
    for i, row in enumerate(rows):
        cover, payload = row["cover"], row["payload"]
        texts = {
            "plain": f"{cover} {payload}",
            "invisible": _invisible(i, cover, payload),
            "homoglyph": f"{cover} {_homoglyph(i, payload)}",
            "encoded": f"{cover} {_encoded(i, payload)}",
            "split": f"{cover} {_split(i, payload)}",
        }
        out.extend(Case(row["id"], row["technique"], v, texts[v]) for v in VARIANTS)
    return out


def fresh_injections() -> list[Case]:
    return injections(("injections_fresh.jsonl",))


def benign() -> list[Case]:
    return [Case(row["id"], row["kind"], "benign", row["text"])
            for name in ("benign.jsonl", "benign_more.jsonl") for row in _load(name)]


def shares(cases: list[Case], held: set[str], key: str) -> dict[str, tuple[int, int]]:
    """(held, total) per value of ``key`` ("variant" or "technique"); ``held`` holds
    ``f"{case.id}/{case.variant}"``."""
    out: dict[str, tuple[int, int]] = {}
    for c in cases:
        h, n = out.get(getattr(c, key), (0, 0))
        out[getattr(c, key)] = (h + (f"{c.id}/{c.variant}" in held), n + 1)
    return out


def report(title: str, cases: list[Case], held: set[str]) -> str:
    lines = [title]
    for key in ("variant", "technique"):
        for name, (h, n) in shares(cases, held, key).items():
            lines.append(f"  {name:<48} {h:>3}/{n:<3} {100 * h / n:5.1f} %")
    total = sum(f"{c.id}/{c.variant}" in held for c in cases)
    lines.append(f"  {'all':<48} {total:>3}/{len(cases):<3} {100 * total / len(cases):5.1f} %")
    return "\n".join(lines)
