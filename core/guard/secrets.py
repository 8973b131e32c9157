"""Recognising secrets and personal data in a text, and masking them.

:func:`find_secrets` returns one :class:`SecretHit` per value it recognises, with its
category, where it is and how it reads masked.  Each category leans on a well-kept
library and adds only what the library does not do:

- **api_key** — detect-secrets' provider detectors (AWS, GitHub, GitLab, Slack, Stripe,
  SendGrid, Twilio, JWT, npm, PyPI…), a few provider prefixes it lacks (``sk-`` and
  ``sk-proj-``, ``sk-ant-``, ``AIza``, ``hf_``…), and long high-entropy tokens measured
  with detect-secrets' own Shannon entropy and passed through its heuristic filters
  (UUIDs, sequential strings);
- **private_key** — detect-secrets' private-key detector; the whole block is masked;
- **password** — a password said in words ("my password is …", "pw: …", "the wifi
  password is …"): no library reads prose for these, so this is a pattern, and what
  follows the cue must not be an ordinary word of the sentence ("is too short");
- **card** — digit runs of 13-19, written as cards are (one run, fours, 4-6-5), that
  pass python-stdnum's Luhn check and start like a card network's number;
- **iban** — python-stdnum's IBAN check on IBAN-shaped runs;
- **phone** — phonenumbers' matcher (valid numbers only): an international number
  (``+44 …``) anywhere, a national one where its sentence speaks of calling, a number,
  a cell…, never right after a product word ("SKU", "part", "order");
- **email** — e-mail-shaped runs that email-validator accepts (syntax only, no DNS);
- **government_id** — python-stdnum's validators: a dashed US SSN, a Spanish DNI/NIE or
  an Italian codice fiscale anywhere; a bare number (SSN, SIN, BSN, Aadhaar,
  Steuer-ID, NIR, NHS) only after the id's name; a UK National Insurance number by
  HMRC's format (python-stdnum has none); a passport or licence number only after its
  name.

A secret split across two turns ("my password is" and the value in the next turn) is
found when the earlier turn is passed as ``preceding``: the next turn's first word is
then the value.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from types import SimpleNamespace
from typing import Any

# The libraries are imported on first use (``_libs``): every CLI command and the MCP
# server import the guard, and detect-secrets with its plugins, phonenumbers' metadata
# and python-stdnum's modules would add a good part of a second to each start.
MASK = "•"


class SecretCategory(StrEnum):
    API_KEY = "api_key"
    PRIVATE_KEY = "private_key"
    PASSWORD = "password"
    CARD = "card"
    IBAN = "iban"
    PHONE = "phone"
    EMAIL = "email"
    GOVERNMENT_ID = "government_id"

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    SecretCategory.API_KEY: "an API key or token", SecretCategory.PRIVATE_KEY: "a private key",
    SecretCategory.PASSWORD: "a password", SecretCategory.CARD: "a card number",
    SecretCategory.IBAN: "a bank account number (IBAN)",
    SecretCategory.PHONE: "a phone number", SecretCategory.EMAIL: "an e-mail address",
    SecretCategory.GOVERNMENT_ID: "a government id number",
}
# Credentials, as opposed to personal data (what the policy's defaults tell apart).
CREDENTIALS = frozenset({SecretCategory.API_KEY, SecretCategory.PRIVATE_KEY,
                         SecretCategory.PASSWORD})


@dataclass(frozen=True)
class SecretHit:
    """One recognised value: its category, its span in the text, what recognised it."""

    category: SecretCategory
    start: int
    end: int
    value: str
    detector: str

    @property
    def masked(self) -> str:
        return mask_value(self.category, self.value)


# -- masking ---------------------------------------------------------------------------
def mask_value(category: SecretCategory, value: str) -> str:
    """The value as it may be shown or stored: enough to recognise, never to use."""
    digits = re.sub(r"\D", "", value)
    if category is SecretCategory.API_KEY:
        sep = re.match(r"[A-Za-z]{1,6}[-_](?:[a-z]{2,8}[-_])?", value)
        prefix = sep.group(0) if sep else ""
        return f"{prefix}…{value[-4:]}" if len(value) >= 12 else MASK * 6
    if category is SecretCategory.CARD:
        return f"{MASK * 4} {digits[-4:]}"
    if category is SecretCategory.IBAN:
        compact = re.sub(r"\s", "", value)
        return f"{value[:2]}{MASK * 2} {MASK * 4} {compact[-4:]}"
    if category is SecretCategory.PHONE:
        return MASK * 7 + digits[-2:]
    if category is SecretCategory.EMAIL:
        local, _, domain = value.rpartition("@")
        return f"{local[:1]}…@{domain}"
    if category is SecretCategory.GOVERNMENT_ID:
        return MASK * 5 + (digits or value)[-2:]
    if category is SecretCategory.PRIVATE_KEY:
        return f"[private key {MASK * 4}]"
    return MASK * 6  # a password: not even its length


def mask_text(text: str, hits: Iterable[SecretHit]) -> str:
    """``text`` with every hit replaced by its masked form."""
    out, at = [], 0
    for h in sorted(hits, key=lambda h: h.start):
        if h.start < at:
            continue  # overlapping hits: the first one masked covers it
        out += [text[at:h.start], h.masked]
        at = h.end
    out.append(text[at:])
    return "".join(out)


# -- API keys and private keys ---------------------------------------------------------
# detect-secrets' detectors that are not about a provider's key: the entropy ones
# (judged below, in context), the code-keyword one (prose is read by the password
# pattern), public IPs (not secret).
_NOT_PROVIDERS = {"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword",
                  "Public IP (ipv4)", "Private Key"}
# Providers detect-secrets has no detector for (or only an older key format of).
_PREFIXES = re.compile(
    r"(?<![\w-])(?:sk-ant-[\w-]{20,}|sk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}|AIza[\w-]{30,}"
    r"|hf_[A-Za-z0-9]{30,}|(?:sk|pk|rk)_(?:test|live)_[A-Za-z0-9]{16,}|glpat-[\w-]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[\w-]{10,}|dop_v1_[a-f0-9]{40,}"
    r"|shp(?:at|ss|ca)_[a-fA-F0-9]{32}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}"
    r"|npm_[A-Za-z0-9]{36}|pypi-[\w-]{50,}|SG\.[\w-]{16,}\.[\w-]{16,})")
_TOKEN = re.compile(r"[A-Za-z0-9_\-+/=.~]{16,}")
_KEY_WORDS = re.compile(r"(?i)\b(?:api|key|keys|token|tokens|secret|secrets|bearer|credential"
                        r"s?|access|auth|apikey|client[_ ]?secret)\b")
_PRIVATE_KEY = re.compile(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"
                          r"(?:.*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|.*)", re.S)
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: *\S+|\Z)", re.S)


@cache
def _libs() -> SimpleNamespace:
    """The recognising libraries, imported once, on first use."""
    import phonenumbers
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string
    from email_validator import EmailNotValidError, validate_email
    from stdnum import iban, luhn
    from stdnum.ca import sin
    from stdnum.de import idnr
    from stdnum.es import dni, nie
    from stdnum.fr import nir
    from stdnum.gb import nhs
    from stdnum.in_ import aadhaar
    from stdnum.it import codicefiscale
    from stdnum.nl import bsn
    from stdnum.us import ssn

    detectors: dict[str, type[Any]] = dict(get_mapping_from_secret_type_to_class())
    providers = tuple(cls() for name, cls in sorted(detectors.items())
                      if name not in _NOT_PROVIDERS)
    return SimpleNamespace(
        phonenumbers=phonenumbers, providers=providers, is_potential_uuid=is_potential_uuid,
        is_sequential_string=is_sequential_string, EmailNotValidError=EmailNotValidError,
        validate_email=validate_email, iban=iban, luhn=luhn,
        id_anywhere=(
            (_SSN_DASHED, ssn.is_valid, "US SSN"),
            (_NINO, _nino, "UK National Insurance number"),
            (_DNI, lambda v: dni.is_valid(v) or nie.is_valid(v), "Spanish DNI/NIE"),
            (_CODICE, codicefiscale.is_valid, "Italian codice fiscale")),
        id_checks=(
            (ssn.is_valid, "US SSN"), (sin.is_valid, "Canadian SIN"),
            (bsn.is_valid, "Dutch BSN"), (aadhaar.is_valid, "Aadhaar"),
            (idnr.is_valid, "German Steuer-ID"), (nir.is_valid, "French NIR"),
            (nhs.is_valid, "NHS number")))


def _entropy(s: str) -> float:
    """Shannon entropy per character, as detect-secrets' entropy detectors measure it."""
    counts = Counter(s)
    return -sum(n / len(s) * math.log2(n / len(s)) for n in counts.values())


def _token_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole token around ``text[start:end]`` (a detector may report a fragment),
    without quotes or a sentence's closing punctuation."""
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "\"'`(<[{=:,":
        start -= 1
    while end < len(text) and not text[end].isspace() and text[end] not in "\"'`)>]},;":
        end += 1
    while end > start and text[end - 1] in ".!?":
        end -= 1
    return start, end


def _api_keys(text: str) -> Iterator[SecretHit]:
    for m in _PRIVATE_KEY.finditer(text):
        yield SecretHit(SecretCategory.PRIVATE_KEY, m.start(), m.end(), m.group(0),
                        "detect-secrets: Private Key")
    for m in _PUTTY.finditer(text):
        yield SecretHit(SecretCategory.PRIVATE_KEY, m.start(), m.end(), m.group(0),
                        "PuTTY private key")
    for plugin in _libs().providers:
        for found in set(plugin.analyze_string(text)):
            if not found or len(found) < 8:
                # A detector that reports a capture group (GitHub's reports "ghp"):
                # find where its whole pattern matched instead.
                for rx in plugin.denylist:
                    for m in rx.finditer(text):
                        s, e = _token_at(text, *m.span())
                        yield SecretHit(SecretCategory.API_KEY, s, e, text[s:e],
                                        f"detect-secrets: {plugin.secret_type}")
                continue
            for m in re.finditer(re.escape(found), text):
                s, e = _token_at(text, *m.span())
                yield SecretHit(SecretCategory.API_KEY, s, e, text[s:e],
                                f"detect-secrets: {plugin.secret_type}")
    for m in _PREFIXES.finditer(text):
        s, e = _token_at(text, *m.span())
        yield SecretHit(SecretCategory.API_KEY, s, e, text[s:e], "provider prefix")
    for m in _TOKEN.finditer(text):
        token = m.group(0).strip(".")
        if _high_entropy(token, _KEY_WORDS.search(_sentence_of(text, m.start())) is not None):
            s, e = _token_at(text, m.start(), m.start() + len(token))
            yield SecretHit(SecretCategory.API_KEY, s, e, text[s:e], "high-entropy token")


def _sentence_around(text: str, start: int, end: int) -> str:
    lo = max(text.rfind(".", 0, max(start - 1, 0)), text.rfind("\n", 0, start), 0)
    hi = min((i for i in (text.find(". ", end), text.find("\n", end)) if i >= 0),
             default=len(text))
    return text[lo:start] + " " + text[end:hi]


def _sentence_of(text: str, at: int) -> str:
    lo = max(text.rfind(".", 0, max(at - 1, 0)), text.rfind("\n", 0, at), 0)
    return text[lo:at]


def _high_entropy(token: str, keyed: bool) -> bool:
    """A random-looking token: long, mixed letters and digits, high entropy; a shorter or
    plainer one only where the sentence says it is a key or token.  UUIDs, sequences,
    paths, URLs, hex digests without such a word (commit hashes) and dotted versions
    are left alone."""
    if "/" in token and (token.count("/") > 2 or token.startswith("/")):
        return False  # a path or URL
    if _libs().is_potential_uuid(token) or _libs().is_sequential_string(token):
        return False
    if re.fullmatch(r"[\d.\-]+|v?\d+(?:\.\d+)+[\w.\-]*", token):
        return False  # numbers, dates, versions
    has = (any(c.isupper() for c in token), any(c.islower() for c in token),
           any(c.isdigit() for c in token))
    hexish = re.fullmatch(r"[0-9a-fA-F]+", token) is not None
    e = _entropy(token)
    if keyed:  # letters with digits, or of both cases
        return (len(token) >= 16 and (has[0] or has[1]) and (has[2] or all(has[:2]))
                and e >= 3.3)
    if hexish:
        return False  # a digest or hash, unless a key word says otherwise
    return len(token) >= 24 and all(has) and e >= 4.0


# -- passwords said in words -----------------------------------------------------------
_PW_NOUN = (r"(?:password|passwd|passcode|passphrase|pass\s?phrase|pwd|pw|pin(?:\s?code)?|"
            r"pin\s?number|wi-?fi\s+(?:password|key|code)|security\s+code|cvv|cvc|"
            r"2fa\s+(?:code|backup\s+code)|recovery\s+code|door\s+code|alarm\s+code|"
            r"safe\s+combination|combination)")
_PW = re.compile(
    rf"(?i)\b{_PW_NOUN}(?:\s+(?:for|to|of|on|at)\s+(?:my\s+|the\s+|our\s+)?[\w.@'&-]{{1,30}}"
    r"(?:\s+(?:account|login|app|router|network))?)?"
    r"(?:\s*(?:is\s+now|now\s+is|is\s+still|will\s+be|should\s+be|is|was|=|:|->|'s|are|reads)"
    r"\s*|\s+(?=\S*\d))"
    r"[\"'“‘`]?(?P<value>[^\s\"'”’`]+)")
_PW_SET = re.compile(
    rf"(?i)\b(?:set|changed?|reset|updated?)\s+(?:my\s+|the\s+|our\s+)?{_PW_NOUN}\s+to\s+"
    r"[\"'“‘`]?(?P<value>[^\s\"'”’`]+)"
    rf"|\buse\s+[\"'“‘`]?(?P<value2>[^\s\"'”’`]+?)[\"'”’`]?\s+as\s+(?:my\s+|the\s+|our\s+)?"
    rf"{_PW_NOUN}\b")
# What follows "password is" when it is not one: the words of an ordinary sentence.
_NOT_VALUES = frozenset({
    "a", "an", "the", "my", "your", "our", "his", "her", "their", "its", "this", "that",
    "these", "those", "it", "is", "was", "be", "been", "being", "too", "very", "so", "not",
    "no", "never", "always", "still", "already", "also", "just", "now", "then", "only",
    "quite", "really", "same", "different", "wrong", "right", "correct", "incorrect",
    "changed", "expired", "reset", "required", "needed", "strong", "weak", "long", "short",
    "secure", "insecure", "safe", "unsafe", "saved", "stored", "written", "kept", "hidden",
    "protected", "locked", "unlocked", "set", "updated", "new", "old", "easy", "hard",
    "simple", "complicated", "complex", "something", "nothing", "anything", "everything",
    "empty", "blank", "missing", "lost", "forgotten", "unknown", "known", "in", "on", "at",
    "of", "for", "to", "from", "with", "by", "about", "as", "like", "into", "over", "under",
    "somewhere", "here", "there", "what", "which", "who", "where", "when", "why", "how",
    "case-sensitive", "sensitive", "private", "personal", "secret", "and", "or", "but", "if",
    "because", "while", "until", "unless", "please", "thanks", "thank", "ok", "okay", "yes",
    "sure", "fine", "good", "bad", "great", "terrible", "awful", "working", "broken",
    "invalid", "valid", "one", "mine", "yours", "required.", "same.", "different.", "changed.",
    "expired.",
})


def _password_value(value: str) -> str | None:
    v = value.strip(".,;:!?)]}»”’'\"")
    if not v or set(v) <= {MASK, "…", "*", "x", "X", "#"}:
        return None  # masked already, or a placeholder
    if v.lower() in _NOT_VALUES or (v.isalpha() and v.islower() and len(v) <= 2):
        return None
    return v


def _passwords(text: str) -> Iterator[SecretHit]:
    for rx in (_PW, _PW_SET):
        for m in rx.finditer(text):
            group = next(g for g in ("value", "value2") if g in m.groupdict() and m.group(g))
            v = _password_value(m.group(group))
            if v is not None:
                s = m.start(group)
                yield SecretHit(SecretCategory.PASSWORD, s, s + len(v), v, "password phrase")


# The end of a turn that announces a secret the next turn gives.
_CUE = re.compile(rf"(?i)\b(?:{_PW_NOUN}|api\s+key|access\s+key|secret\s+key|token|secret)"
                  r"(?:\s+(?:for|to|of|on)\s+[\w.@'&-]{1,30})?\s*(?:is|was|:|=|-|is\s+now)?"
                  r"\s*[:\-…]*\s*$")
_NEXT_VALUE = re.compile(r"^\s*(?:it'?s\s+|it\s+is\s+)?[\"'“‘`]?(?P<value>[^\s\"'”’`]+)")


def announces_secret(preceding: str) -> bool:
    """Whether a turn ends by announcing a secret ("my password is"), which the next turn
    of the same session then gives."""
    return _CUE.search(preceding.rstrip()) is not None


def _continued(text: str) -> Iterator[SecretHit]:
    m = _NEXT_VALUE.match(text)
    if m is None:
        return
    v = _password_value(m.group("value"))
    if v is not None:
        s = m.start("value")
        yield SecretHit(SecretCategory.PASSWORD, s, s + len(v), v,
                        "value of a secret the previous turn announced")


# -- numbers: cards, IBANs, phones, government ids --------------------------------------
_CARD = re.compile(r"(?<![\d\w.-])(?:\d[ -]?){12,18}\d(?![\d\w]|[.-]\d)")
# Issuer ranges of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners,
# UnionPay, Maestro): a Luhn-valid run outside them is an order or tracking number.
_CARD_IIN = re.compile(r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6011|65|64[4-9]|"
                       r"35(?:2[89]|[3-8]\d)|3(?:0[0-5]|[68])|62|5[06-8]|6[37]")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
                    r"\.[A-Za-z]{2,}")
PHONE_REGIONS = ("US", "GB", "DE", "FR")
_PRODUCT = re.compile(r"(?i)\b(?:sku|part|model|order|item|ref|reference|serial|invoice|"
                      r"tracking|isbn|issn|ean|upc|version|build|ticket|case|po|lot|batch|"
                      r"no|nr|#)\.?\s*(?:no\.?|number|#|id)?\s*[:#]?\s*$")
_PHONE_WORDS = re.compile(r"(?i)\b(?:call|called|calling|phone|number|cell|cellphone|mobile|"
                          r"tel|telephone|text|texts|sms|whatsapp|signal|ring|reach|contact|"
                          r"fax|dial|landline|hotline|voicemail|line)\b")
_ID_NAMES = (r"ssn|social\s+security(?:\s+number)?|sin|social\s+insurance(?:\s+number)?|bsn|"
             r"burgerservicenummer|aadhaar|nhs(?:\s+number)?|steuer-?id|tax\s+id|tin|nir|national\s+id|"
             r"national\s+insurance(?:\s+number)?|ni\s+number|id\s+number|identity\s+number")
_ID_AFTER_NAME = re.compile(
    rf"(?i)\b(?:{_ID_NAMES})(?:\s+(?:number|no\.?|#))?(?:\s*(?:is|was|:|=|-))?\s*"
    r"(?P<value>\d[\d -]{6,20}\d)")
_DOC_AFTER_NAME = re.compile(
    r"(?i)\b(?:passport|driver'?s?\s+licen[cs]e|driving\s+licen[cs]e|licen[cs]e)"
    r"(?:\s+(?:number|no\.?|#|id))?(?:\s*(?:is|was|:|=|-))?\s*(?P<value>[A-Z0-9]{0,3}\d[A-Z0-9-]{4,12})"
    r"(?![\w-])")
def _nino(v: str) -> bool:
    """HMRC's rule for a National Insurance number's prefix (python-stdnum has no module
    for it; the letters' ranges are in the pattern)."""
    return v[:2] not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


_SSN_DASHED = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_NINO = re.compile(r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?"
                   r"[A-D](?![A-Za-z0-9])")
_DNI = re.compile(r"(?<![A-Za-z0-9])[XYZ]?\d{7,8}-?[A-Z](?![A-Za-z0-9])")
_CODICE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z](?![A-Za-z0-9])")


def _card_grouping(run: str) -> bool:
    """Written as cards are: in one run, in fours (the last group shorter), or as
    American Express prints them (4-6-5); an order number's 3-7-7 is no card."""
    groups = [len(g) for g in re.split(r"[ -]", run)]
    if len(groups) == 1:
        return True
    return (all(g == 4 for g in groups[:-1]) and 1 <= groups[-1] <= 4) or \
        groups in ([4, 6, 5], [4, 6, 4])


def _cards(text: str) -> Iterator[SecretHit]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group(0))
        if 13 <= len(digits) <= 19 and _CARD_IIN.match(digits) \
                and _libs().luhn.is_valid(digits) \
                and _card_grouping(m.group(0)):
            yield SecretHit(SecretCategory.CARD, m.start(), m.end(), m.group(0),
                            "Luhn-valid card number (python-stdnum)")


def _ibans(text: str) -> Iterator[SecretHit]:
    for m in _IBAN.finditer(text):
        raw = m.group(0)
        # The run may have swallowed a following word: shrink until it checks out.
        for end in range(len(raw), 14, -1):
            if raw[end - 1] != " " and _libs().iban.is_valid(raw[:end]):
                yield SecretHit(SecretCategory.IBAN, m.start(), m.start() + end, raw[:end],
                                "IBAN (python-stdnum)")
                break


def _emails(text: str) -> Iterator[SecretHit]:
    for m in _EMAIL.finditer(text):
        try:
            _libs().validate_email(m.group(0), check_deliverability=False)
        except _libs().EmailNotValidError:
            continue
        yield SecretHit(SecretCategory.EMAIL, m.start(), m.end(), m.group(0),
                        "e-mail address (email-validator)")


def _phones(text: str) -> Iterator[SecretHit]:
    seen: set[int] = set()
    if sum(c.isdigit() for c in text) < 7:
        return
    pn = _libs().phonenumbers
    for region in PHONE_REGIONS:
        for m in pn.PhoneNumberMatcher(text, region, leniency=pn.Leniency.VALID):
            if m.start in seen or _PRODUCT.search(text[max(0, m.start - 24):m.start]):
                continue
            if not m.raw_string.startswith("+") and not _PHONE_WORDS.search(
                    _sentence_around(text, m.start, m.end)):
                continue  # a national-format number only where the sentence is about one
            seen.add(m.start)
            yield SecretHit(SecretCategory.PHONE, m.start, m.end, m.raw_string,
                            f"phone number (phonenumbers, {region})")


def _government_ids(text: str) -> Iterator[SecretHit]:
    for rx, valid, name in _libs().id_anywhere:
        for m in rx.finditer(text):
            if valid(m.group(0)):
                yield SecretHit(SecretCategory.GOVERNMENT_ID, m.start(), m.end(), m.group(0),
                                f"{name} (python-stdnum)")
    for m in _ID_AFTER_NAME.finditer(text):
        v = m.group("value").strip()
        compact = re.sub(r"[ -]", "", v)
        for valid, name in _libs().id_checks:
            if valid(compact):
                s = m.start("value")
                yield SecretHit(SecretCategory.GOVERNMENT_ID, s, s + len(v), v,
                                f"{name} (python-stdnum)")
                break
    for m in _DOC_AFTER_NAME.finditer(text):
        s = m.start("value")
        yield SecretHit(SecretCategory.GOVERNMENT_ID, s, m.end("value"), m.group("value"),
                        "passport or licence number")


_FINDERS: tuple[Callable[[str], Iterator[SecretHit]], ...] = (
    _api_keys, _passwords, _cards, _ibans, _emails, _government_ids, _phones)


def find_secrets(text: str, preceding: str | None = None) -> list[SecretHit]:
    """Every secret or personal value in ``text``, in order, overlaps resolved (the
    longer hit wins: an e-mail inside a key, a card inside an IBAN).

    ``preceding``: the turn before this one in the same session; when it ends by
    announcing a secret ("my password is"), this turn's first word is that secret."""
    if not text:
        return []
    return list(_find(text, preceding))


@lru_cache(maxsize=64)
def _find(text: str, preceding: str | None) -> tuple[SecretHit, ...]:
    """``find_secrets``, remembered for the last texts: one memory's text is asked about
    several times on its way in (the job's turn, each unit's fields, whether anything
    was recognised, the import preview's masked count), and the detectors are the
    costly part of a write.  A pure function of its arguments; hits are frozen."""
    found: list[tuple[int, SecretHit]] = []  # (the finder's rank: ties go to the first)
    for rank, finder in enumerate(_FINDERS):
        found.extend((rank, h) for h in finder(text))
    if preceding and announces_secret(preceding):
        found.extend((-1, h) for h in _continued(text))
    found.sort(key=lambda rh: (rh[1].start, -(rh[1].end - rh[1].start), rh[0]))
    kept: list[SecretHit] = []
    for _, h in found:
        if kept and h.start < kept[-1].end:
            if h.end - h.start > kept[-1].end - kept[-1].start:
                kept[-1] = h
            continue
        kept.append(h)
    return tuple(kept)
