"""Word lists the offline extractor reads English with: tool categories, roles, diets,
relations, and the helpers that turn a value into a specific attribute name.

Why categories: one generic ``prefers`` attribute let "Actually, I prefer light mode now"
supersede the tabs and the Python preferences (a correction supersedes every older memory
with the same entity and attribute).  A preference's attribute names what it is about
(``prefers_theme``, ``prefers_language``); a value no list knows gets an attribute of its
own head noun (``prefers_answer`` for "short answers"), so it can only ever be superseded
by a statement about the same kind of thing.
"""

from __future__ import annotations

import re

# category -> the values that belong to it (lower case; multi-word values allowed).
CATEGORIES: dict[str, tuple[str, ...]] = {
    "editor": ("vim", "neovim", "nvim", "emacs", "vs code", "vscode", "visual studio code",
               "helix", "sublime text", "sublime", "intellij", "intellij idea", "pycharm",
               "webstorm", "atom", "nano", "zed", "cursor", "xcode", "android studio",
               "eclipse", "notepad++", "kakoune", "spacemacs", "doom emacs"),
    "language": ("python", "go", "golang", "rust", "java", "javascript", "typescript", "c++",
                 "c#", "ruby", "kotlin", "swift", "php", "scala", "haskell", "elixir",
                 "clojure", "julia", "perl", "lua", "dart", "zig", "ocaml", "f#", "erlang",
                 "python 3", "elm", "nim", "fortran", "cobol"),
    "theme": ("dark mode", "light mode", "dark theme", "light theme", "dark themes",
              "light themes", "high contrast", "a dark theme", "a light theme", "solarized"),
    "indentation": ("tabs", "spaces", "2 spaces", "4 spaces", "two spaces", "four spaces"),
    "database": ("postgresql", "postgres", "mysql", "sqlite", "mongodb", "redis", "mariadb",
                 "cassandra", "dynamodb", "sql server", "duckdb", "oracle", "couchdb",
                 "clickhouse", "elasticsearch"),
    "os": ("linux", "macos", "mac", "windows", "ubuntu", "arch linux", "arch", "fedora",
           "debian", "nixos", "freebsd", "a mac", "mac os"),
    "shell": ("bash", "zsh", "fish", "powershell", "nushell"),
    "browser": ("firefox", "chrome", "safari", "edge", "brave", "vivaldi", "chromium"),
    "test_framework": ("pytest", "unittest", "jest", "mocha", "vitest", "rspec", "junit",
                       "nose", "hypothesis"),
    "package_manager": ("poetry", "pip", "uv", "conda", "npm", "yarn", "pnpm", "pipenv",
                        "cargo", "homebrew"),
    "web_framework": ("django", "flask", "fastapi", "react", "vue", "angular", "svelte",
                      "rails", "spring", "next.js", "nextjs", "express"),
    "formatter": ("black", "autopep8", "prettier", "yapf", "gofmt", "rustfmt"),
    "cloud": ("aws", "gcp", "azure", "google cloud", "digitalocean", "hetzner"),
    "chat_tool": ("slack", "microsoft teams", "teams", "discord", "mattermost", "zulip"),
    "vcs": ("git", "mercurial", "svn", "jujutsu"),
    "drink": ("coffee", "tea", "green tea", "black coffee", "espresso", "decaf"),
    "keyboard_layout": ("qwerty", "dvorak", "colemak", "azerty"),
}
_CATEGORY_OF = {v: c for c, vs in CATEGORIES.items() for v in vs}

ROLES = frozenset(re.findall(r"\S+", """
engineer developer programmer coder nurse doctor physician surgeon teacher professor lecturer
student manager designer scientist researcher analyst architect consultant lawyer attorney
accountant writer journalist chef cook pilot firefighter officer pharmacist dentist therapist
paramedic electrician plumber carpenter mechanic farmer artist musician photographer
translator librarian administrator sysadmin intern founder cto ceo cfo owner lead tester
technician veterinarian vet midwife caregiver freelancer contractor baker barista waiter
waitress cashier driver marketer recruiter salesperson entrepreneur economist physicist
chemist biologist mathematician statistician nutritionist dietitian psychologist
psychiatrist radiologist anesthesiologist engineers maintainer devops sre pm teacher
instructor coach tutor principal clerk secretary receptionist assistant paralegal judge
editor reporter captain producer director animator illustrator architect biochemist geologist
postdoc m.d. md r.n. rn gp cna emt dds dvm cpa guard clerk
"""))

DIETS = ("vegetarian", "vegan", "pescatarian", "pescetarian", "gluten-free", "keto",
         "paleo", "halal", "kosher", "lactose-free", "dairy-free", "flexitarian",
         "plant-based", "carnivore", "raw vegan")

RELATIONS = frozenset(("wife", "husband", "partner", "girlfriend", "boyfriend", "fiancé",
                       "fiancée", "fiance", "fiancee", "daughter", "son", "kid", "child",
                       "mother", "mom", "mum", "father", "dad", "brother", "sister",
                       "grandmother", "grandma", "grandfather", "grandpa", "aunt", "uncle",
                       "cousin", "niece", "nephew", "boss", "manager", "colleague",
                       "coworker", "co-worker", "friend", "roommate", "flatmate", "neighbor",
                       "neighbour", "dog", "cat", "puppy", "kitten", "parrot", "hamster",
                       "rabbit", "horse", "stepson", "stepdaughter", "toddler", "baby",
                       "teammate", "mentor", "grandson", "granddaughter", "grandchild",
                       "stepmother", "stepfather", "stepmom", "stepdad", "twin",
                       "mother-in-law", "father-in-law", "parents", "grandparents",
                       "in-laws", "siblings", "grandad", "granddad", "gran", "nana",
                       "spouse", "hubby", "stepsister", "stepbrother", "kids", "children",
                       "sons", "daughters"))
# "brother-in-law", "step-sister", "half-brother", "great-aunt": kin made of kin.
KIN_AFFIX = r"(?:(?:step|half|great|great-great|grand)-?)?(?:{rel})(?:-in-law)?"

# Things nobody is allergic to: "I'm allergic to Mondays" is a joke, not a fact.
JOKE_OBJECTS = frozenset(("monday", "mondays", "work", "meetings", "mornings", "homework",
                          "exercise", "people", "responsibility", "emails", "email", "taxes",
                          "adulting", "cardio", "effort", "deadlines", "bugs", "jira",
                          "paperwork", "small talk", "math", "running", "sunday scaries",
                          "stand-ups", "standups", "my boss", "commitment", "waking up early"))



def joke_object(value: str) -> bool:
    """ "Mondays", "Monday mornings", "my boss": nobody is allergic to them."""
    v = strip_article(value).lower()
    return v in JOKE_OBJECTS or any(w in JOKE_OBJECTS or singular(w) in JOKE_OBJECTS
                                    for w in v.split())


LANGUAGES_SPOKEN = frozenset(("english", "german", "french", "spanish", "italian",
                              "portuguese", "dutch", "polish", "russian", "ukrainian",
                              "mandarin", "chinese", "cantonese", "japanese", "korean",
                              "arabic", "hindi", "turkish", "swedish", "norwegian", "danish",
                              "finnish", "greek", "hebrew", "czech", "hungarian", "romanian",
                              "vietnamese", "thai", "indonesian", "swahili", "catalan"))

_ARTICLE = re.compile(r"^(?:a|an|the|some|my|our|their|his|her)\s+", re.IGNORECASE)


def strip_article(value: str) -> str:
    return _ARTICLE.sub("", value.strip()).strip()


# Said after a name and adding nothing to it: "Fish shell", "the VS Code editor".
_GENERIC_TAIL = re.compile(r"\s+(?:shell|editor|ide|browser|language|database|db|os"
                           r"|keybindings|key bindings|bindings|keymap"
                           r"|terminal|theme|framework|distro)$", re.IGNORECASE)


def bare_name(value: str) -> str:
    """A value without a generic noun after a known name ("Fish shell" -> "Fish")."""
    bare = _GENERIC_TAIL.sub("", value.strip())
    return bare if bare != value.strip() and category(bare) is not None else value


# Self-deprecation and banter, not identity: "I'm an idiot, I forgot the semicolon".
NOT_IDENTITY = frozenset(("idiot", "moron", "dummy", "genius", "mess", "disaster", "fool",
                          "klutz", "loser", "legend", "machine", "robot", "noob", "dork",
                          "nerd", "clown", "potato", "zombie", "hot mess", "total mess"))
# What points into the conversation, not at a thing the user holds: "I prefer the first
# option", "I like your style".
_DEICTIC = re.compile(r"^(?:your|yours|this|that|these|those|the (?:first|second|third|last"
                      r"|other|previous|next|former|latter|same|new one|old one|one)|option"
                      r"|one|both)\b", re.IGNORECASE)


def deictic(value: str) -> bool:
    return _DEICTIC.match(value.strip()) is not None


def use_verb(value: str) -> str:
    """How a sentence says the user uses ``value``: "drinks coffee", "uses Vim"."""
    return "drinks" if category(value) == "drink" else "uses"


def category(value: str) -> str | None:
    """The known category of a value ("VS Code" -> "editor"), or None."""
    v = " ".join(value.lower().split())
    v = re.sub(r"\s+v?\d+(?:\.\d+)*$", "", v)  # "Python 3.12": the language
    if v in _CATEGORY_OF:
        return _CATEGORY_OF[v]
    v = strip_article(v)
    if v in _CATEGORY_OF:
        return _CATEGORY_OF[v]
    bare = _GENERIC_TAIL.sub("", v)
    return _CATEGORY_OF.get(bare) if bare != v else None


def singular(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "thing"


def head_noun(value: str) -> str:
    """The last word of a noun phrase, singular ("short answers" -> "answer")."""
    words = re.findall(r"[A-Za-z0-9+#.'-]+", strip_article(value))
    return singular(words[-1].strip(".'")) if words else "thing"


def preference_attribute(value: str, other: str | None = None, verb: str = "prefers") -> str:
    """A specific attribute for a preference: its category, else its head noun."""
    for v in (value, other):
        if v and (c := category(v)) is not None:
            return f"prefers_{c}"
    return f"{verb}_{slug(head_noun(value))}"


_ROLE_SUFFIX = re.compile(r"(?:ist|ician|ologist|grapher|eer|smith|wright|therapist"
                          r"|keeper|worker|maker)$")
_NOT_ROLE = frozenset(("optimist", "pessimist", "perfectionist", "minimalist", "realist",
                       "idealist", "purist", "extremist", "racist", "sexist", "tourist",
                       "introvert", "extrovert", "list", "twist", "wrist", "fist", "mist",
                       "career", "beer", "deer", "peer", "volunteer"))


def is_role(phrase: str) -> bool:
    words = strip_article(phrase).lower().split()
    if not words or len(words) > 4:
        return False
    head = words[-1]
    if words[0] == "retired" and len(words) > 1:
        return True  # "a retired miner": what they worked as, whatever the word
    return head in ROLES or (head not in _NOT_ROLE and _ROLE_SUFFIX.search(head) is not None)


def article(phrase: str) -> str:
    return "an" if phrase[:1].lower() in "aeiou" else "a"
