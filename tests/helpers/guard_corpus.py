"""The guard's corpora (tests/data/guard/): injections and the benign texts that look near
them, and the five ways each injection is dressed up.

- ``injections.jsonl`` (56) and ``benign.jsonl`` (62): written with the rules;
- ``injections_more.jsonl`` (20) and ``benign_more.jsonl`` (20): written afterwards as a
  check on new wording; the rules missed 12 of those injections and held 5 of those
  benign texts, and were then made more general (so these are no longer unseen);
- ``injections_fresh.jsonl`` (20): written before that change and judged once after it,
  never used to change a rule: the honest figure for wording the rules have not seen;
- ``disguised.jsonl`` (24): payloads the rules hold as they are, each sent in every
  look-alike disguise of :data:`LOOKALIKES` (Greek ε, open ɛ, the estimated sign ℮ for
  "e", whole Cyrillic or Greek spellings, Latin small capitals, mathematical and
  full-width letters, accents, Armenian and Cherokee letters, a per-letter mix) and
  every encoding of :data:`ENCODINGS` (base64 of UTF-16LE as PowerShell's
  ``-EncodedCommand`` takes it, base32, hex of UTF-16 and UTF-8): the probe of
  "Nothing lost, part two", which found ε, ɛ, ℮ and those encodings let through;
- ``benign_scripts.jsonl`` (54): sentences in Greek, Cyrillic (Russian, Ukrainian,
  Bulgarian, Serbian, Kazakh, Mongolian), Armenian and Georgian, Latin with
  diacritics, other scripts mixed with English product names, and English with Greek
  or IPA letters: text where the look-alike letters are simply letters.

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


def _letters(upper: int, lower: int, holes: dict[str, str] | None = None) -> dict[str, str]:
    """A mathematical alphabet starting at ``upper`` / ``lower`` (its few letters that
    live elsewhere, in Letterlike Symbols, given in ``holes``)."""
    out = {chr(65 + i): chr(upper + i) for i in range(26)}
    out.update({chr(97 + i): chr(lower + i) for i in range(26)})
    out.update(holes or {})
    return out


_SMALL_CAPS = dict(zip("abcdefghijklmnopqrstuvwyz", "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ", strict=True))
_CYRILLIC_ALL = dict(zip("aceopxyisjhABCEHKMOPTX", "асеорхуіѕјһАВСЕНКМОРТХ", strict=True))
_GREEK_ALL = dict(zip("aoivkeptunwxyABEHIKMNOPTXYZ", "αοινκερτυηωχγΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
                      strict=True))
_ACCENTS = dict(zip("aeiouncszyAEIOU", "áéíóúñçšžýÁÉÍÓÚ", strict=True))
_LATIN_VARIANTS = dict(zip("agiluhksd", "ɑɡıǀʋɦƙʂɗ", strict=True))
_ARMENIAN_CHEROKEE = dict(zip("ouhnqgAETSMHRW", "օսհոզցᎪᎬᎢᏚᎷᎻᏒᏔ", strict=True))
_MIXES = (_CYRILLIC_ALL, _GREEK_ALL, _SMALL_CAPS, _LATIN_VARIANTS, {"e": "ε", "E": "Ε"})

LOOKALIKES: dict[str, dict[str, str]] = {
    "Greek epsilon ε for e": {"e": "ε", "E": "Ε"},
    "open e ɛ for e": {"e": "ɛ", "E": "Ɛ"},
    "estimated sign ℮ for e": {"e": "℮"},
    "Ukrainian ie є for e": {"e": "є", "E": "Є"},
    "Cyrillic letters": _CYRILLIC_ALL,
    "Greek letters": _GREEK_ALL,
    "Latin small capitals": _SMALL_CAPS,
    "mathematical bold italic": _letters(0x1D468, 0x1D482),
    "mathematical monospace": _letters(0x1D670, 0x1D68A),
    "mathematical fraktur": _letters(0x1D504, 0x1D51E, {"C": "ℭ", "H": "ℌ", "I": "ℑ",
                                                        "R": "ℜ", "Z": "ℨ"}),
    "full-width letters": {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)},
    "accented letters": _ACCENTS,
    "Latin variants (ɑ ɡ ı ʋ …)": _LATIN_VARIANTS,
    "Armenian and Cherokee letters": _ARMENIAN_CHEROKEE,
}
ENCODINGS = ("base64 of UTF-16LE", "base32", "hex")


def _mixed(payload: str) -> str:
    """Each letter from another of the look-alike alphabets in turn."""
    out = []
    for i, c in enumerate(payload):
        table = _MIXES[i % len(_MIXES)]
        out.append(table.get(c, c))
    return "".join(out)


def _encode(kind: str, i: int, payload: str) -> str:
    if kind == "base64 of UTF-16LE":
        b64 = base64.b64encode(payload.encode("utf-16-le")).decode()
        return f"powershell -EncodedCommand {b64}" if i % 2 else b64
    if kind == "base32":
        data = payload.encode("utf-16-le" if i % 3 == 2 else "utf-8")
        b32 = base64.b32encode(data).decode()
        return b32.lower().rstrip("=") if i % 3 == 1 else b32
    if i % 3 == 0:
        return payload.encode("utf-16-le").hex()
    if i % 3 == 1:
        return payload.encode("utf-16-le").hex(" ")
    return "".join(f"\\x{b:02x}" for b in payload.encode())


def disguised() -> tuple[list[Case], list[Case]]:
    """The look-alike and the encoded cases of ``disguised.jsonl``: every payload in
    every disguise (the variant names it), after its plain cover sentence."""
    looks: list[Case] = []
    encoded: list[Case] = []
    for i, row in enumerate(_load("disguised.jsonl")):
        cover, payload = row["cover"], row["payload"]
        looks.extend(Case(row["id"], row["technique"], name,
                          f"{cover} {payload.translate(str.maketrans(table))}")
                     for name, table in LOOKALIKES.items())
        looks.append(Case(row["id"], row["technique"], "mixed alphabets",
                          f"{cover} {_mixed(payload)}"))
        encoded.extend(Case(row["id"], row["technique"], kind,
                            f"{cover} {_encode(kind, i, payload)}") for kind in ENCODINGS)
    return looks, encoded


def disguised_plain() -> list[Case]:
    return [Case(r["id"], r["technique"], "plain", f"{r['cover']} {r['payload']}")
            for r in _load("disguised.jsonl")]


def fresh_injections() -> list[Case]:
    return injections(("injections_fresh.jsonl",))


def benign() -> list[Case]:
    return [Case(row["id"], row["kind"], "benign", row["text"])
            for name in ("benign.jsonl", "benign_more.jsonl", "benign_scripts.jsonl")
            for row in _load(name)]


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
