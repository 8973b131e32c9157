"""Planted ground truth for the duplicates benchmark: per user, facts restated exactly
(case, spacing and punctuation vary), reworded (other sentences, same fact), and
near-misses that are NOT duplicates (same topic and wording, another value: "User works
at Acme." / "User works at Globex."), among unrelated memories.

Every planted memory carries its fact key (topic, value): two memories are true
duplicates exactly when their keys are equal.  Half the memories also carry an
entity/attribute/value triple (the write path's extractor gives one to most facts, not
to all), so the benchmark measures both the triple check and the wording check.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# topic -> (attribute, values, wordings); a wording's {v} is the value.
TOPICS: dict[str, tuple[str, list[str], list[str]]] = {
    "employer": ("works_at", ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"], [
        "User works at {v}.", "The user is employed by {v}.", "User's employer is {v}.",
        "{v} is where the user works."]),
    "city": ("lives_in", ["Lisbon", "Porto", "Berlin", "Madrid", "Oslo", "Denver"], [
        "User lives in {v}.", "The user is based in {v}.", "User's home city is {v}.",
        "User resides in {v}."]),
    "formatter": ("formatter", ["black", "yapf", "autopep8", "ruff"], [
        "User formats code with {v}.", "The user runs {v} to format their code.",
        "User's code formatter is {v}.", "User prefers {v} for code formatting."]),
    "editor": ("editor", ["vim", "emacs", "VS Code", "Zed", "Helix"], [
        "User edits code in {v}.", "The user's editor is {v}.", "User writes code using {v}.",
        "User prefers {v} as their editor."]),
    "pet": ("pet_name", ["Rex", "Miso", "Biscuit", "Luna", "Pixel"], [
        "User's dog is called {v}.", "The user has a dog named {v}.",
        "User's dog's name is {v}.", "User owns a dog, {v}."]),
    "age": ("age", ["29", "34", "41", "42", "57"], [
        "User is {v} years old.", "The user's age is {v}.", "User is aged {v}.",
        "User turned {v} this year."]),
    "tests": ("test_framework", ["pytest", "unittest", "nose2", "ward"], [
        "User writes tests with {v}.", "The user tests their code using {v}.",
        "User's test framework is {v}.", "User runs their tests in {v}."]),
    "language": ("backend_language", ["Python", "Go", "Rust", "Kotlin", "Elixir"], [
        "User prefers {v} for backend work.", "The user writes backends in {v}.",
        "User's backend language of choice is {v}.", "For backend work the user uses {v}."]),
    "diet": ("diet", ["vegetarian", "vegan", "pescatarian", "keto"], [
        "User is {v}.", "The user follows a {v} diet.", "User eats a {v} diet.",
        "User has been {v} for years."]),
    "coffee": ("coffee", ["espresso", "flat white", "cold brew", "filter coffee"], [
        "User drinks {v} every morning.", "The user's morning coffee is {v}.",
        "User starts the day with {v}.", "Every morning the user has {v}."]),
}

FILLER = [
    "Deploy of {p} failed on Friday because of a missing migration.",
    "Meeting about the {p} roadmap moved to Tuesday.",
    "Reminded the user to rotate the {p} API keys.",
    "Discussed caching strategies for the {p} service.",
    "The {p} build takes about twelve minutes on CI.",
    "Suggested splitting the {p} module into smaller files.",
]
PROJECTS = ["ledger", "orchard", "harbor", "atlas", "beacon", "quarry", "meadow", "summit"]


@dataclass(frozen=True)
class Planted:
    user_id: str
    text: str
    key: tuple[str, str]  # (topic, value); a filler's: ("filler", its text)
    triple: tuple[str, str, str] | None
    kind: str  # exact | reworded | near-miss | single | filler


def _variant(text: str, rng: random.Random) -> str:
    """An exact restatement as agents write them: case, spacing, punctuation vary."""
    return rng.choice([text, text.lower(), text.rstrip("."), "  " + text.replace(" ", "  "),
                       text.rstrip(".") + "!", text.upper()])


def plant(users: int, seed: int = 11) -> list[Planted]:
    rng = random.Random(seed)
    out: list[Planted] = []
    for u in range(users):
        uid = f"user-{u:04d}"
        for topic in rng.sample(sorted(TOPICS), 7):
            attr, values, wordings = TOPICS[topic]
            value, other = rng.sample(values, 2)
            kind = rng.choice(["exact", "reworded", "reworded", "single"])

            def mem(v: str, wording: str, kind: str, exact_of: str | None = None,
                    uid: str = uid, attr: str = attr, topic: str = topic) -> Planted:
                text = exact_of if exact_of is not None else wording.format(v=v)
                if exact_of is not None:
                    text = _variant(exact_of, rng)
                triple = ("user", attr, v) if rng.random() < 0.5 else None
                return Planted(uid, text, (topic, v), triple, kind)

            first = rng.choice(wordings)
            out.append(mem(value, first, kind))
            if kind == "exact":
                out += [mem(value, first, kind, exact_of=first.format(v=value))
                        for _ in range(rng.randint(1, 3))]
            elif kind == "reworded":
                for w in rng.sample([w for w in wordings if w != first], rng.randint(1, 2)):
                    out.append(mem(value, w, kind))
            # A near-miss of this fact: same wording as one of its members, other value.
            if rng.random() < 0.7:
                out.append(mem(other, first, "near-miss"))
        for _ in range(6):
            text = rng.choice(FILLER).format(p=rng.choice(PROJECTS))
            out.append(Planted(uid, text, ("filler", text), None, "filler"))
    return out
