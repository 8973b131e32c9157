"""What the offline extractor keeps from a turn, by kind of statement: specific
attributes, corrections and switches, identity and diet, other people, abbreviations,
values trimmed to their object, reported speech and jokes, refusals and complaints,
hedges, decisions, hypotheticals, and other languages (said in the notes, not stored)."""

from __future__ import annotations

import pytest

from memdesk.core.write.extract_heuristic import HeuristicExtractor, clauses
from memdesk.core.write.units import Extraction, Turn, Unit

H = HeuristicExtractor()


def run(text: str) -> Extraction:
    return H.extract(Turn(text, "u"))


def triples(text: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return [(u.type, u.entity, u.attribute, u.value) for u in run(text).units]


@pytest.mark.parametrize(("turn", "attribute", "value"), [
    ("I prefer tabs over spaces.", "prefers_indentation", "tabs"),
    ("I generally prefer dark mode.", "prefers_theme", "dark mode"),
    ("I mostly code in Python.", "prefers_language", "Python"),
    ("I always use Neovim.", "prefers_editor", "Neovim"),
    ("I prefer PostgreSQL to MySQL.", "prefers_database", "PostgreSQL"),
    ("I use zsh.", "prefers_shell", "zsh"),
    # a kind no list knows: named after its head noun, still never a bare "prefers"
    ("I prefer short answers.", "prefers_answer", "short answers"),
    ("My favourite colour is teal.", "favorite_colour", "teal"),
])
def test_each_preference_names_its_kind(turn: str, attribute: str, value: str) -> None:
    assert triples(turn) == [("preference", "user", attribute, value)]


@pytest.mark.parametrize(("turn", "triple"), [
    ("Actually, I prefer light mode now.", ("user", "prefers_theme", "light mode")),
    ("Actually, I switched from Neovim to VS Code.", ("user", "prefers_editor", "VS Code")),
    ("No, actually I live in Porto, not Lisbon.", ("user", "lives_in", "Porto")),
    ("I switched to Rust for my side projects.", ("user", "prefers_language", "Rust")),
    ("I moved from Berlin to Munich last year.", ("user", "lives_in", "Munich")),
    ("I use Go now.", ("user", "prefers_language", "Go")),
    ("Correction: I work at Globex, not Initech.", ("user", "works_at", "Globex")),
    ("Actually my daughter is 8, not 7.", ("daughter", "age", "8")),
    # "I no longer use X, I use Y now": one correction with the new value
    ("I no longer use vim, I use Helix now.", ("user", "prefers_editor", "Helix")),
    # no new value: the correction still names what it ends
    ("I don't use Windows anymore.", ("user", "prefers_os", None)),
    ("I'm no longer vegetarian.", ("user", "diet", None)),
    ("I uninstalled Slack.", ("user", "prefers_chat_tool", None)),
])
def test_corrections_and_switches_name_what_they_correct(
        turn: str, triple: tuple[str, str, str | None]) -> None:
    [u] = run(turn).units
    assert (u.type, u.entity, u.attribute, u.value) == ("correction", *triple)
    assert u.confidence == 0.9 and u.importance >= 0.9


@pytest.mark.parametrize(("turn", "expected"), [
    ("I'm vegetarian.", [("fact", "user", "diet", "vegetarian")]),
    ("I am a vegan.", [("fact", "user", "diet", "vegan")]),
    ("I keep kosher.", [("fact", "user", "diet", "kosher")]),
    ("I'm lactose intolerant.", [("fact", "user", "intolerant_to", "lactose")]),
    ("I'm a nurse working night shifts at St. Mary's.", [
        ("fact", "user", "occupation", "nurse"),
        ("fact", "user", "work_schedule", "night shifts"),
        ("fact", "user", "works_at", "St. Mary's")]),
    ("I'm 34.", [("fact", "user", "age", "34")]),
    ("I speak Spanish and Italian.", [("fact", "user", "speaks", "Spanish"),
                                     ("fact", "user", "speaks", "Italian")]),
    ("I have a severe shellfish allergy.", [("fact", "user", "allergic_to", "shellfish")]),
])
def test_identity_and_diet(turn: str, expected: list[tuple[str, ...]]) -> None:
    assert triples(turn) == expected


@pytest.mark.parametrize(("turn", "expected"), [
    ("My daughter Emma is 7 and loves dinosaurs.", [
        ("fact", "Emma", "relation", "daughter"), ("fact", "Emma", "age", "7"),
        ("fact", "Emma", "likes", "dinosaurs")]),
    ("My wife is vegetarian.", [("fact", "wife", "diet", "vegetarian")]),
    ("My son Leo is allergic to peanuts.", [("fact", "Leo", "relation", "son"),
                                            ("fact", "Leo", "allergic_to", "peanuts")]),
    ("My daughter Mia is 4. She loves horses.", [
        ("fact", "Mia", "relation", "daughter"), ("fact", "Mia", "age", "4"),
        ("fact", "Mia", "likes", "horses")]),
    # another person's preference is a fact about them, not the user's preference
    ("My colleague Ravi prefers Kotlin.", [("fact", "Ravi", "relation", "colleague"),
                                           ("fact", "Ravi", "prefers_language", "Kotlin")]),
])
def test_other_people_are_the_entity_not_the_user(
        turn: str, expected: list[tuple[str, ...]]) -> None:
    assert triples(turn) == expected
    assert not run(turn).units[-1].text.startswith("The user ")


def test_abbreviations_do_not_end_a_sentence() -> None:
    assert clauses("I'm a nurse at St. Mary's. Dr. Lee is great, e.g. at night. "
                   "I moved to the U.S. in May.") == [
        "I'm a nurse at St. Mary's.", "Dr. Lee is great, e.g. at night.",
        "I moved to the U.S. in May."]
    assert triples("I work at Mt. Sinai. I'm a radiologist.") == [
        ("fact", "user", "works_at", "Mt. Sinai"), ("fact", "user", "occupation", "radiologist")]
    # a company suffix may end a sentence
    assert triples("I work at Acme Corp. I'm allergic to peanuts.") == [
        ("fact", "user", "works_at", "Acme Corp"), ("fact", "user", "allergic_to", "peanuts")]
    [u] = run("I live in the U.S.").units
    assert u.value == "the U.S." and u.text == "The user lives in the U.S."


@pytest.mark.parametrize(("turn", "expected", "text"), [
    ("I work at Siemens as a firmware engineer.", [
        ("fact", "user", "works_at", "Siemens"),
        ("fact", "user", "occupation", "firmware engineer")], "The user works at Siemens."),
    ("I realised I'm allergic to cashews after a scary dinner.",
     [("fact", "user", "allergic_to", "cashews")], "The user is allergic to cashews."),
    ("I live in Oslo with my partner and two cats.",
     [("fact", "user", "lives_in", "Oslo")], "The user lives in Oslo."),
    ("I found out I'm allergic to latex during a hospital visit.",
     [("fact", "user", "allergic_to", "latex")], "The user is allergic to latex."),
])
def test_values_are_trimmed_to_their_object(
        turn: str, expected: list[tuple[str, ...]], text: str) -> None:
    out = run(turn)
    assert triples(turn) == expected and out.units[0].text == text


@pytest.mark.parametrize(("turn", "reason"), [
    ('My friend said "I work at Google" but he was joking.', "quoted or reported speech"),
    ("My manager thinks we should use Kafka.", "quoted or reported speech"),
    ("I'm allergic to Mondays, haha.", "a joke"),
    ("Just kidding, I don't live in Antarctica.", "a joke"),
    ("I always forget my keys, it's so annoying.", "a complaint"),
    ("I keep losing my glasses.", "a complaint"),
    ("I hate it when the train is late.", "a complaint"),
])
def test_reported_speech_jokes_and_complaints_store_nothing(turn: str, reason: str) -> None:
    out = run(turn)
    assert out.units == [] and any(reason in n for n in out.notes)


def test_a_joke_object_is_not_an_allergy_even_without_a_laugh() -> None:
    assert run("I'm allergic to Mondays.").units == []


def test_preferring_not_to_talk_is_a_topic_to_avoid_not_a_value_not() -> None:
    [u] = run("I prefer not to talk about my health.").units
    assert (u.type, u.attribute, u.value) == ("preference", "avoids_topic", "health")
    assert u.text == "The user prefers not to discuss their health."


def test_a_topic_to_avoid_longer_than_a_short_phrase_stays_the_users_own_words() -> None:
    # Five words still name a topic; six are a story, kept as the request itself.
    assert ("preference", "user", "avoids_topic", "fight with my brother Tom") in triples(
        "Please don't mention my fight with my brother Tom.")
    [u] = run("Please don't mention my fight with my older brother Tom.").units
    assert u.attribute is None and "fight with my older brother Tom" in u.text


def test_hedges_lower_confidence() -> None:
    [w] = run("I think my wife might be lactose intolerant.").units
    assert (w.entity, w.attribute, w.value, w.confidence) == (
        "wife", "intolerant_to", "lactose", 0.5)
    [u] = run("I think I might prefer PostgreSQL.").units
    assert (u.attribute, u.value, u.confidence) == ("prefers_database", "PostgreSQL", 0.5)
    [d] = run("I'm considering switching to Rust.").units
    assert d.type == "decision" and d.confidence <= 0.5
    assert run("I prefer PostgreSQL.").units[0].confidence > 0.5


@pytest.mark.parametrize("turn", [
    "We decided to drop Python 3.9 support in the next release.",
    "We've decided to move the standup to 10am.",
    "The team agreed to freeze the API until March.",
    "We went with Kafka for the event bus.",
    "We've chosen Rust for the new parser.",
])
def test_decisions(turn: str) -> None:
    [u] = run(turn).units
    assert u.type == "decision" and u.entity is None and u.confidence >= 0.8
    assert u.text.startswith("The user's team") or u.text.startswith("The team")


@pytest.mark.parametrize(("turn", "triple"), [
    ("What if I were a doctor?", ("occupation", "doctor")),
    ("Imagine I'm allergic to gluten; plan a menu.", ("allergic_to", "gluten")),
    ("Hypothetically, if I were vegan, what would I eat for protein?", ("diet", "vegan")),
    ("I'm actually a doctor, so walk me through the mechanism more technically.",
     ("occupation", "doctor")),
])
def test_hypotheticals_are_framed_and_kept_below_belief(
        turn: str, triple: tuple[str, str]) -> None:
    [u] = run(turn).units
    assert (u.attribute, u.value, u.framing) == (*triple, "hypothetical")
    assert u.confidence <= 0.3 and u.text.startswith("Not asserted")


@pytest.mark.parametrize("turn", [
    "Ich bin Vegetarier und arbeite bei Siemens.",
    "Je suis infirmière et je travaille la nuit.",
    "Mi esposa es vegetariana.",
    "私はベジタリアンです。",
])
def test_other_languages_are_said_in_the_notes_and_nothing_is_stored(turn: str) -> None:
    out = run(turn)
    assert out.units == []
    assert out.notes == ["the offline extractor reads English only: skipped 1 sentence(s) "
                         "in another language (an Ollama model can read them)"]


def test_a_mixed_language_turn_keeps_the_english() -> None:
    out = run("Ich bin Vegetarier. I work at Bosch.")
    assert [(u.attribute, u.value) for u in out.units] == [("works_at", "Bosch")]
    assert "English only" in out.notes[0]


def test_the_text_says_what_is_stored() -> None:
    assert run("My daughter Emma is 7 and loves dinosaurs.").units == [
        Unit("Emma is the user's daughter.", "fact", 0.6, 0.85, "Emma", "relation", "daughter"),
        Unit("Emma is 7 years old.", "fact", 0.5, 0.85, "Emma", "age", "7"),
        Unit("Emma loves dinosaurs.", "fact", 0.6, 0.8, "Emma", "likes", "dinosaurs")]


@pytest.mark.parametrize(("turn", "expected"), [
    ("I'm not a fan of YAML.", [("preference", "user", "dislikes", "YAML")]),
    ("I'm allergic to both pollen and dust.", [("fact", "user", "allergic_to", "pollen"),
                                               ("fact", "user", "allergic_to", "dust")]),
    ("I have a cat named Luna.", [("fact", "Luna", "relation", "cat")]),
    ("Oh, correction: my son is 9, not 8.", [("correction", "son", "age", "9")]),
    # a generic noun after a known name is not part of it
    ("Actually, I'm using Fish shell now, not zsh.",
     [("correction", "user", "prefers_shell", "Fish")]),
    # a way of doing things has no object to store as a value
    ("I prefer working in the early morning.", [("preference", None, None, None)]),
    # a bare noun keeps the clause that narrows it
    ("I like languages with strong types.",
     [("preference", "user", "likes", "languages with strong types")]),
    ("I live on Baker St. in London.", [("fact", "user", "lives_in", "London")]),
    ("I'm diabetic, so watch the sugar.", [("fact", "user", "condition", "diabetic")]),
    ("I have ADHD.", [("fact", "user", "condition", "ADHD")]),
    ("Call me Sam.", [("fact", "user", "name", "Sam")]),
    ("My name's Jo.", [("fact", "user", "name", "Jo")]),
    ("I'm a student at MIT.", [("fact", "user", "occupation", "student"),
                               ("fact", "user", "studies_at", "MIT")]),
    ("I'm a huge Arsenal fan.", [("preference", "user", "likes", "Arsenal")]),
    ("I'm allergic to nothing, luckily.", []),
    ("I'm a physiotherapist.", [("fact", "user", "occupation", "physiotherapist")]),
    ("I'm 41 and I work at Volvo.", [("fact", "user", "age", "41"),
                                    ("fact", "user", "works_at", "Volvo")]),
    ("I'm vegan and gluten-free.", [("fact", "user", "diet", "vegan"),
                                    ("fact", "user", "diet", "gluten-free")]),
    ("My grandson Noah is 3.", [("fact", "Noah", "relation", "grandson"),
                                ("fact", "Noah", "age", "3")]),
    ("Actually I'm on macOS now.", [("correction", "user", "prefers_os", "macOS")]),
    ("I generally go for Vim keybindings everywhere.",
     [("preference", "user", "prefers_editor", "Vim")]),
])
def test_more_phrasings(turn: str, expected: list[tuple[str | None, ...]]) -> None:
    assert triples(turn) == expected


def test_an_imagined_move_corrects_nothing() -> None:
    [u] = run("Say I moved to Canada, would my pension transfer?").units
    assert (u.type, u.attribute, u.value, u.framing) == (
        "fact", "lives_in", "Canada", "hypothetical")


def test_the_month_may_is_not_a_hedge() -> None:
    [u] = run("I moved to Denver in May.").units
    assert (u.type, u.value, u.confidence) == ("correction", "Denver", 0.9)
    assert run("I may prefer Go.").units[0].confidence == 0.5


@pytest.mark.parametrize("turn", [
    "I'm an idiot, I forgot the semicolon.",  # banter, not identity
    "I work at night mostly.",  # a time, not an employer
    "I prefer the first option.",  # points into the conversation
    "I like your style.",
    "I'm using the free tier.",  # this conversation's setting
    "I'm trying to deploy my app to Heroku but it keeps failing.",
    "My wife thinks I work too much.",
    "I'm 100% sure.",
    "Actually, that's wrong, the function returns None.",
])
def test_everyday_chat_stores_nothing(turn: str) -> None:
    assert run(turn).units == []


def test_moving_office_is_an_event_not_a_home() -> None:
    # Was "stores nothing": with the dependency parser the move is kept as what happened
    # (a note); still never a place the user lives.
    units = run("I've moved to the new office.").units
    assert all(u.attribute is None and u.type == "note" for u in units)
    assert [u.text for u in units] in ([], ["The user has moved to the new office."])


def test_a_version_does_not_hide_the_language() -> None:
    assert triples("I'm using Python 3.12 these days.") == [
        ("preference", "user", "prefers_language", "Python 3.12")]


def test_a_pet_the_user_and_others_adopted_is_named_and_kept() -> None:
    assert triples("We adopted a cat called Miso.") == [("fact", "Miso", "relation", "cat")]


@pytest.mark.parametrize(("turn", "text"), [
    ("My birthday is March 3.", "The user has their birthday on March 3."),
    ("My birthday is in May.", "The user has their birthday in May."),
])
def test_a_birthday_is_on_a_date_and_in_a_month(turn: str, text: str) -> None:
    [u] = run(turn).units
    assert (u.attribute, u.text) == ("birthday", text)


@pytest.mark.parametrize(("turn", "expected"), [
    ("I'm a 34-year-old nurse.", [("fact", "user", "occupation", "nurse"),
                                 ("fact", "user", "age", "34")]),
    ("I'm a nurse from Leeds.", [("fact", "user", "occupation", "nurse"),
                                ("fact", "user", "from", "Leeds")]),
])
def test_a_role_with_an_age_or_where_the_user_is_from(
        turn: str, expected: list[tuple[str, ...]]) -> None:
    assert triples(turn) == expected


def test_a_preference_said_as_a_whole_sentence_keeps_it_without_the_exclamation() -> None:
    [u] = run("I prefer it when answers are short!").units
    assert u.type == "preference" and u.text == "The user prefers it when answers are short."
