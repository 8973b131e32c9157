"""A labelled corpus for the secrets lane, written by construction: sentences as users
type them, with made-up values (random keys, Luhn-valid card numbers, IBANs with their
check digits, valid-format phone numbers and ids), and look-alikes that must not be
held (UUIDs, git and sha hashes, versions, order and tracking numbers, ISBNs, dates,
prices, Luhn-invalid card-like numbers, phone-like product codes).

Two splits with **disjoint sentence templates and value seeds**: ``tune`` is what the
detector was tuned on; ``held_out`` was written separately and only measured.  Every
value is generated here; none is a real credential or a real person's number.
"""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from stdnum import iban as std_iban
from stdnum import luhn
from stdnum.es import dni as es_dni


@dataclass(frozen=True)
class Item:
    text: str
    category: str | None  # None: a look-alike, which must not be held
    kind: str  # the generator (for the report)


ALNUM = string.ascii_letters + string.digits


def _rand(r: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


# -- secret values ---------------------------------------------------------------------
def api_key(r: random.Random) -> str:
    kind = r.randrange(12)
    if kind == 0:
        return "sk-proj-" + _rand(r, 48, ALNUM + "_-")
    if kind == 1:
        return "sk-ant-api03-" + _rand(r, 60, ALNUM + "_-")
    if kind == 2:
        return "AKIA" + _rand(r, 16, string.ascii_uppercase + string.digits)
    if kind == 3:
        return "ghp_" + _rand(r, 36)
    if kind == 4:
        return "xoxb-" + _rand(r, 11, string.digits) + "-" + _rand(r, 13, string.digits) + \
            "-" + _rand(r, 24)
    if kind == 5:
        return "sk_live_" + _rand(r, 24)
    if kind == 6:
        return "AIza" + _rand(r, 35, ALNUM + "_-")
    if kind == 7:
        return "glpat-" + _rand(r, 20, ALNUM + "_-")
    if kind == 8:
        return "hf_" + _rand(r, 34, string.ascii_letters)
    if kind == 9:
        return "SG." + _rand(r, 22, ALNUM + "_-") + "." + _rand(r, 43, ALNUM + "_-")
    if kind == 10:
        return _rand(r, 32)  # a provider without a prefix: entropy and the sentence
    return "npm_" + _rand(r, 36)


def private_key(r: random.Random) -> str:
    kind = r.choice(["RSA ", "OPENSSH ", "EC ", ""])
    body = "\n".join(_rand(r, 64, ALNUM + "+/") for _ in range(r.randint(2, 5)))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


WORDS = ["falcon", "maple", "river", "copper", "lantern", "orbit", "velvet", "thunder",
         "harbor", "meadow", "cobalt", "saffron", "glacier", "pepper", "quartz", "willow"]


def password(r: random.Random) -> str:
    kind = r.randrange(4)
    if kind == 0:
        return r.choice(WORDS).capitalize() + str(r.randint(10, 9999)) + r.choice("!#$%&*?")
    if kind == 1:
        return _rand(r, r.randint(10, 16), ALNUM + "!@#$%^&*")
    if kind == 2:
        return "-".join(r.sample(WORDS, 3)) + str(r.randint(1, 99))
    return r.choice(WORDS) + r.choice(WORDS) + str(r.randint(1, 999))


def pin(r: random.Random) -> str:
    return str(r.randint(1000, 999999))


def card(r: random.Random, valid: bool = True) -> str:
    prefix, n = r.choice([("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15),
                          ("37", 15), ("6011", 16), ("65", 16), ("4", 13)])
    body = prefix + _rand(r, n - len(prefix) - 1, string.digits)
    check = luhn.calc_check_digit(body)
    if not valid:
        check = str((int(check) + r.randint(1, 9)) % 10)
    digits = body + check
    style = r.randrange(3)
    if style == 0 or n != 16:
        return digits
    sep = " " if style == 1 else "-"
    return sep.join(digits[i:i + 4] for i in range(0, 16, 4))


def iban(r: random.Random) -> str:
    country, bban = r.choice([
        ("DE", _rand(r, 18, string.digits)), ("GB", "NWBK" + _rand(r, 14, string.digits)),
        ("FR", _rand(r, 10, string.digits) + _rand(r, 11, string.digits + "ABCDEF") + "12"),
        ("NL", "ABNA" + _rand(r, 10, string.digits)), ("ES", _rand(r, 20, string.digits)),
        ("IT", "X" + _rand(r, 10, string.digits) + _rand(r, 12, string.digits)),
    ])
    check = std_iban.calc_check_digits(country + "00" + bban)
    compact = country + check + bban
    if not std_iban.is_valid(compact):  # a national check digit the draw got wrong
        return iban(r)
    return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4)) if r.random() < .6 \
        else compact


def phone(r: random.Random) -> str:
    kind = r.randrange(4)
    area = r.choice(["212", "415", "312", "617", "206", "303", "512", "646", "718", "971"])
    line = f"{r.randint(200, 999)}-{r.randint(0, 9999):04d}"
    if kind == 0:
        return f"{area}-{line}"
    if kind == 1:
        return f"({area}) {line}"
    if kind == 2:
        return f"+1 {area} {line.replace('-', ' ')}"
    return f"+44 20 7{r.randint(100, 999)} {r.randint(1000, 9999)}"


FIRST = ["anna", "ben", "chloe", "dev", "elif", "farid", "greta", "hiro", "ines", "jonas"]
DOMAINS = ["example.com", "mailbox.org", "proton.me", "fastmail.fm", "uni-bonn.de",
           "company.co.uk", "gmail.com"]


def email(r: random.Random) -> str:
    sep = r.choice([".", "_", "", "-"])
    return f"{r.choice(FIRST)}{sep}{r.choice(WORDS)}{r.randint(1, 99)}@{r.choice(DOMAINS)}"


def ssn(r: random.Random) -> str:
    return f"{r.randint(101, 665):03d}-{r.randint(10, 99):02d}-{r.randint(1000, 9999):04d}"


def dni(r: random.Random) -> str:
    digits = _rand(r, 8, string.digits)
    return digits + es_dni.calc_check_digit(digits)


def passport(r: random.Random) -> str:
    return r.choice(string.ascii_uppercase) + _rand(r, 8, string.digits)


# -- look-alike values --------------------------------------------------------------------
def git_sha(r: random.Random) -> str:
    return _rand(r, 40, "0123456789abcdef")


def sha256(r: random.Random) -> str:
    return _rand(r, 64, "0123456789abcdef")


def version(r: random.Random) -> str:
    v = f"{r.randint(0, 12)}.{r.randint(0, 40)}.{r.randint(0, 99)}"
    return r.choice([v, "v" + v, v + "-rc" + str(r.randint(1, 5)), v + "+build." +
                     str(r.randint(100, 9999))])


def order_no(r: random.Random) -> str:
    return r.choice([_rand(r, 10, string.digits), "A" + _rand(r, 9, string.digits),
                     f"{r.randint(100, 999)}-{r.randint(1000000, 9999999)}-"
                     f"{r.randint(1000000, 9999999)}"])


def tracking(r: random.Random) -> str:
    return r.choice(["1Z" + _rand(r, 16, string.ascii_uppercase + string.digits),
                     "94" + _rand(r, 20, string.digits), _rand(r, 12, string.digits),
                     "JD" + _rand(r, 18, string.digits)])


def isbn(r: random.Random) -> str:
    from stdnum import ean
    body = "978" + _rand(r, 9, string.digits)
    full = body + ean.calc_check_digit(body)
    return f"{full[:3]}-{full[3]}-{full[4:7]}-{full[7:12]}-{full[12]}"


def date(r: random.Random) -> str:
    y, m, d = r.randint(2015, 2027), r.randint(1, 12), r.randint(1, 28)
    return r.choice([f"{y}-{m:02d}-{d:02d}", f"{d:02d}/{m:02d}/{y}", f"{m}/{d}/{y}"])


def price(r: random.Random) -> str:
    return r.choice([f"${r.randint(1, 9999):,}.{r.randint(0, 99):02d}",
                     f"€{r.randint(1, 999)},{r.randint(0, 99):02d}",
                     f"{r.randint(1, 20000):,} USD"])


def product_code(r: random.Random) -> str:
    return f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)}"


# -- sentences ----------------------------------------------------------------------------
Gen = Callable[[random.Random], str]
# (category, value generator, templates): the tune split uses the first half of each
# template list, the held-out split the second half.
SECRETS: list[tuple[str, Gen, list[str]]] = [
    ("api_key", api_key, [
        "my api key is {v}", "here's the token for the deploy bot: {v}",
        "use this key when you call the service {v}", "the staging credentials are {v}",
        "Store my OpenAI key {v} so you remember it", "access token {v} expires friday",
        "I put {v} in the env file as API_KEY", "secret for the webhook is {v}",
        "remember my key {v} for later", "the bearer token we use is {v}",
        "can you keep {v} handy, it's our API token",
        "auth key for prod: {v} (don't share it)"]),
    ("private_key", private_key, [
        "here is my deploy key:\n{v}", "{v}", "save this ssh key for me {v}",
        "server key below\n{v}\nthanks"]),
    ("password", password, [
        "my password is {v}", "pw: {v}", "the wifi password is {v}",
        "password for netflix is {v}", "I changed my password to {v}",
        "my gmail password is now {v}", "login details: user anna, password {v}",
        "the router password: {v}", "use {v} as the password for the shared drive",
        "passphrase = {v}", "our vpn password is '{v}'", "Password: {v}"]),
    ("password", pin, [
        "my bank pin is {v}", "the door code is {v}", "PIN: {v}", "alarm code is {v}",
        "my phone's pin code is {v}", "the safe combination is {v}"]),
    ("card", card, [
        "my card number is {v}", "charge it to {v}", "visa {v} exp 09/28",
        "pay with the card ending… actually the full number is {v}",
        "my credit card: {v}", "the company card {v} has a higher limit",
        "use card {v} for the hotel", "card no {v}, cvv on the back"]),
    ("iban", iban, [
        "my IBAN is {v}", "send the rent to {v}", "bank account {v} (savings)",
        "please wire it to IBAN {v}", "transfer to {v} by friday",
        "my salary goes into {v}"]),
    ("phone", phone, [
        "call me at {v}", "my cell is {v}", "my mom's number is {v}",
        "text me on {v} when you land", "reach the office at {v}",
        "my new phone number is {v}", "the dentist's number: {v}",
        "you can ring me on {v} after six"]),
    ("email", email, [
        "my email is {v}", "send the invoice to {v}", "contact me at {v}",
        "cc {v} on the report", "my work address is {v}",
        "her e-mail: {v}", "reply to {v} please", "use {v} for the newsletter"]),
    ("government_id", ssn, [
        "my SSN is {v}", "social security number {v}", "ssn: {v}",
        "for the tax form my social security number is {v}"]),
    ("government_id", dni, [
        "mi DNI es {v}", "my Spanish ID is {v}", "DNI {v}", "my id card number is {v}"]),
    ("government_id", passport, [
        "my passport number is {v}", "passport no. {v} expires in 2030",
        "passport: {v}", "renew passport {v} next month"]),
]
LOOKALIKES: list[tuple[str, Gen, list[str]]] = [
    ("uuid", lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4)), [
        "the request id was {v}", "session {v} timed out", "trace {v} in the logs",
        "customer record {v} was merged"]),
    ("git hash", git_sha, [
        "the fix landed in commit {v}", "revert {v} please", "I bisected it to {v}",
        "cherry-pick {v} onto the release branch"]),
    ("sha256", sha256, [
        "sha256 of the installer is {v}", "checksum {v} matches",
        "the image digest is sha256:{v}", "verify the download against {v}"]),
    ("version", version, [
        "we upgraded to {v}", "the bug is fixed in {v}", "pin numpy at {v}",
        "release {v} ships tomorrow"]),
    ("order number", order_no, [
        "my order number is {v}", "order #{v} never arrived", "refund for order {v}",
        "the invoice {v} is paid"]),
    ("tracking number", tracking, [
        "tracking number {v}", "the parcel {v} is in Leipzig", "UPS says {v} is delayed",
        "shipment {v} was delivered"]),
    ("isbn", isbn, [
        "the book's ISBN is {v}", "order ISBN {v} for the library", "{v} is the new edition",
        "ISBN {v}, second printing"]),
    ("date", date, [
        "my birthday party is on {v}", "the lease ends {v}", "we met on {v}",
        "deadline moved to {v}"]),
    ("price", price, [
        "the flight cost {v}", "rent is {v} a month", "I paid {v} for the bike",
        "budget is {v}"]),
    ("luhn-invalid card", lambda r: card(r, valid=False), [
        "the reference on the receipt is {v}", "card number {v} was declined as invalid",
        "booking code {v}", "gift voucher {v}"]),
    ("product code", product_code, [
        "part number {v} is out of stock", "SKU {v} comes in blue", "model {v} is quieter",
        "replace filter {v} yearly"]),
    ("password talk", lambda r: r.choice(WORDS), [
        "my password is too short for the new rules", "I forgot my password again",
        "the password is case-sensitive", "reset the password for the {v} account",
        "password managers like {v} are great", "my pin is the same as before",
        "what's a good password policy", "the {v} password expired yesterday"]),
]


def _split(templates: list[str], held_out: bool) -> list[str]:
    half = (len(templates) + 1) // 2
    return templates[half:] if held_out else templates[:half]


def corpus(split: str, per_category: int = 40, seed: int | None = None) -> list[Item]:
    """``split``: "tune" or "held_out" (disjoint templates, different seeds)."""
    if split not in ("tune", "held_out"):
        raise ValueError(f"split must be tune or held_out, not {split!r}")
    held = split == "held_out"
    r = random.Random(seed if seed is not None else (2027 if held else 11))
    items: list[Item] = []
    by_cat: dict[str, list[tuple[Gen, list[str]]]] = {}
    for cat, gen, templates in SECRETS:
        by_cat.setdefault(cat, []).append((gen, _split(templates, held)))
    for cat, gens in by_cat.items():
        for i in range(per_category):
            gen, templates = gens[i % len(gens)]
            items.append(Item(r.choice(templates).format(v=gen(r)), cat, gen.__name__))
    n_look = per_category * len(by_cat) // len(LOOKALIKES) + 1
    for kind, gen, templates in LOOKALIKES:
        for _ in range(n_look):
            items.append(Item(r.choice(_split(templates, held)).format(v=gen(r)), None, kind))
    return items
