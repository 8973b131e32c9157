"""The offline extractor reads the same facts through many phrasings, not one pattern per
sentence: lists of values, chat style in lower case, facts inside questions, a correction
announced in a clause of its own, an ended value and its replacement in one turn, verb
and complement lexicons per attribute, people named with "'s", "my partner and I", and
it still stores nothing for questions, complaints and other languages.

The sentences here are not in the benchmark's set: they check the rules, not its turns.
"""

from __future__ import annotations

import pytest

from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.units import Extraction, Turn

H = HeuristicExtractor()


def run(text: str) -> Extraction:
    return H.extract(Turn(text, "u"))


def triples(text: str) -> set[tuple[str, str | None, str | None, str | None]]:
    return {(u.type, u.entity, u.attribute, u.value) for u in run(text).units}


@pytest.mark.parametrize(("turn", "attribute", "values"), [
    ("I'm allergic to shrimp, lobster and crab.", "allergic_to", {"shrimp", "lobster", "crab"}),
    ("I enjoy chess, tennis, and sailing.", "likes", {"chess", "tennis", "sailing"}),
    ("I like Ruby, Go and Elixir.", "likes", {"Ruby", "Go", "Elixir"}),
    ("I can't stand olives or anchovies.", "dislikes", {"olives", "anchovies"}),
])
def test_every_item_of_a_list_is_its_own_unit(turn: str, attribute: str,
                                               values: set[str]) -> None:
    units = run(turn).units
    assert {u.value for u in units} == values
    assert {(u.entity, u.attribute) for u in units} == {("user", attribute)}


def test_a_list_stops_at_a_verb() -> None:
    # "and drink it daily" is another predicate, not an item of the list
    assert triples("I like green tea and drink it daily.") == {
        ("preference", "user", "likes", "green tea")}


@pytest.mark.parametrize(("turn", "triple"), [
    ("i use zsh", ("preference", "user", "prefers_shell", "zsh")),
    ("i'm allergic to kiwi btw", ("fact", "user", "allergic_to", "kiwi")),
    ("i live in Turin", ("fact", "user", "lives_in", "Turin")),
])
def test_lower_case_chat_style_reads_like_prose(turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {triple}


@pytest.mark.parametrize(("turn", "triple"), [
    ("Since I'm vegan, what should I cook tonight?", ("fact", "user", "diet", "vegan")),
    ("As a pharmacist, how would you read this label?",
     ("fact", "user", "occupation", "pharmacist")),
    ("Can you remember that I prefer Firefox?",
     ("preference", "user", "prefers_browser", "Firefox")),
    ("My son Ilan is 9 — what books would he like?", ("fact", "Ilan", "age", "9")),
])
def test_a_question_that_states_a_fact_keeps_the_fact(turn: str,
                                                        triple: tuple[str, ...]) -> None:
    assert triple in triples(turn)


@pytest.mark.parametrize("turn", [
    "Do I prefer tabs or spaces?", "What's a good editor for Rust?",
    "Is my wife allowed to join?", "Should I move to Berlin?",
])
def test_a_real_question_gives_nothing(turn: str) -> None:
    out = run(turn)
    assert out.units == [] and any("question" in n for n in out.notes)


def test_a_statement_said_as_a_question_is_only_a_guess() -> None:
    [u] = run("Maybe I'm allergic to latex?").units
    assert (u.attribute, u.value) == ("allergic_to", "latex") and u.confidence <= 0.5


@pytest.mark.parametrize(("turn", "statement"), [
    ("Since I'm vegan, what should I cook tonight?", "I'm vegan."),
    ("Can you remember that I prefer Firefox?", "I prefer Firefox."),
])
def test_a_reason_or_a_request_to_remember_in_a_question_is_stated_not_guessed(
        turn: str, statement: str) -> None:
    [u] = run(turn).units
    [s] = run(statement).units
    assert (u.attribute, u.value, u.confidence) == (s.attribute, s.value, s.confidence)


@pytest.mark.parametrize(("turn", "triple"), [
    ("Not Porto — Braga. I live in Braga.", ("user", "lives_in", "Braga")),
    ("Scratch that. I work at Umbrella.", ("user", "works_at", "Umbrella")),
    ("My mistake: my daughter is 6.", ("daughter", "age", "6")),
])
def test_a_clause_that_announces_a_correction_makes_the_next_one_a_correction(
        turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {("correction", *triple)}


@pytest.mark.parametrize(("turn", "triple"), [
    ("I ditched Windows and went to Ubuntu.", ("user", "prefers_os", "Ubuntu")),
    ("I quit using Chrome, I'm back on Safari.", ("user", "prefers_browser", "Safari")),
    ("I'm not at Initech any more; I joined Globex.", ("user", "works_at", "Globex")),
    ("I've switched my shell from bash to nushell.", ("user", "prefers_shell", "nushell")),
])
def test_an_ended_value_and_its_replacement_give_one_correction(
        turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {("correction", *triple)}


def test_a_duration_with_now_is_not_a_correction() -> None:
    assert triples("I've lived in Ghent for six years now.") == {
        ("fact", "user", "lives_in", "Ghent")}


@pytest.mark.parametrize(("turn", "triple"), [
    ("I'm really into pottery.", ("preference", "user", "likes", "pottery")),
    ("I'm not into crossword puzzles.", ("preference", "user", "dislikes", "crossword puzzles")),
    ("I grew up in Lagos.", ("fact", "user", "from", "Lagos")),
    ("I just turned 30.", ("fact", "user", "age", "30")),
    ("I'm fluent in Dutch.", ("fact", "user", "speaks", "Dutch")),
    ("I'm intolerant to histamine.", ("fact", "user", "intolerant_to", "histamine")),
    ("I'm a coffee person.", ("preference", "user", "prefers_drink", "coffee")),
    ("My default browser is Vivaldi.", ("preference", "user", "prefers_browser", "Vivaldi")),
    ("Please don't mention my divorce.", ("preference", "user", "avoids_topic", "divorce")),
])
def test_verb_and_complement_lexicons(turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {triple}


def test_a_role_and_where_the_user_is_based() -> None:
    assert triples("I'm a data engineer based in Leeds.") == {
        ("fact", "user", "occupation", "data engineer"), ("fact", "user", "lives_in", "Leeds")}


def test_a_role_held_at_an_organisation_is_an_occupation() -> None:
    assert ("fact", "user", "occupation", "postdoc") in triples("I'm a postdoc at Caltech.")


@pytest.mark.parametrize(("turn", "triple"), [
    ("My dad's a plumber.", ("fact", "dad", "occupation", "plumber")),
    ("My sister's 19.", ("fact", "sister", "age", "19")),
    ("My parents live in Goa.", ("fact", "parents", "lives_in", "Goa")),
])
def test_people_of_the_user_said_with_an_apostrophe_or_in_plural(
        turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {triple}


def test_my_partner_and_i_gives_both_and_the_pronoun_only_the_partner() -> None:
    got = triples("My partner and I are both pescatarian, but he's allergic to mussels.")
    assert got == {("fact", "user", "diet", "pescatarian"),
                   ("fact", "partner", "diet", "pescatarian"),
                   ("fact", "partner", "allergic_to", "mussels")}


@pytest.mark.parametrize(("turn", "word"), [
    ("We're going with Redis for the cache.", "Redis"),
    ("We'll ship on Tuesdays, that's settled.", "Tuesdays"),
    ("Final decision: we keep the monolith.", "monolith"),
])
def test_decisions_said_with_contractions_or_markers(turn: str, word: str) -> None:
    [u] = run(turn).units
    assert u.type == "decision" and word in u.text


def test_a_routine_in_first_then_form_is_a_procedure() -> None:
    [u] = run("Each evening I tidy my desk, then plan tomorrow, then log off.").units
    assert u.type == "procedure" and "plan tomorrow" in u.text


@pytest.mark.parametrize("turn", [
    "I left my charger at home again, typical me.",
    "My cousin says she's allergic to work.",
    "Mi hija tiene cinco años.",
    "Jestem nauczycielką w Krakowie.",
])
def test_mishaps_reports_and_other_languages_store_nothing(turn: str) -> None:
    assert run(turn).units == []


def test_other_languages_are_named_in_the_notes() -> None:
    out = run("Vivo a Torino con mia moglie.")
    assert out.units == [] and any("English only" in n for n in out.notes)


def test_picture_me_as_is_a_hypothetical() -> None:
    [u] = run("Picture me as a film director for a second.").units
    assert (u.attribute, u.value, u.framing) == ("occupation", "film director", "hypothetical")
    assert u.confidence <= 0.3


@pytest.mark.parametrize(("turn", "triple"), [
    ("My older twin brother Karl is a baker.", ("fact", "Karl", "occupation", "baker")),
    ("I'm 22 and studying physics at Uppsala.", ("fact", "user", "studies_at", "Uppsala")),
    ("I've moved back to Cardiff.", ("correction", "user", "lives_in", "Cardiff")),
    ("I'm 61, not 60.", ("correction", "user", "age", "61")),
    ("I work at Nokia instead of Ericsson these days.",
     ("correction", "user", "works_at", "Nokia")),
    ("I usually go with Prettier for formatting.",
     ("preference", "user", "prefers_formatter", "Prettier")),
])
def test_kin_modifiers_studies_moves_back_and_contrasts(turn: str,
                                                      triple: tuple[str, ...]) -> None:
    assert triple in triples(turn)


def test_i_go_with_is_a_habit_but_we_will_go_with_is_a_decision() -> None:
    assert [u.type for u in run("We'll go with Prettier for the new repo.").units] == [
        "decision"]
    assert all(u.type != "decision" for u in run("I go with Prettier every time.").units)


def test_may_be_keeps_the_fact_at_a_guess() -> None:
    [u] = run("I may be intolerant to fructose.").units
    assert (u.attribute, u.value) == ("intolerant_to", "fructose") and u.confidence <= 0.5


@pytest.mark.parametrize(("turn", "triple"), [
    ("Helix is my editor on every machine.", ("preference", "user", "prefers_editor", "Helix")),
    ("Coffee is my drink of choice.", ("preference", "user", "prefers_drink", "Coffee")),
    ("Python is my language of choice for data work.",
     ("preference", "user", "prefers_language", "Python")),
    ("My browser of choice is Vivaldi.", ("preference", "user", "prefers_browser", "Vivaldi")),
])
def test_a_pick_said_the_other_way_round(turn: str, triple: tuple[str, ...]) -> None:
    assert triples(turn) == {triple}


@pytest.mark.parametrize("turn", ["Sam is my brother.", "Mondays are my day off."])
def test_my_something_that_is_no_kind_of_tool_is_no_pick(turn: str) -> None:
    assert not any((a or "").startswith("prefers_") for _, _, a, _ in triples(turn))


def test_a_retired_anything_is_what_they_worked_as() -> None:
    assert triples("My uncle is a retired welder.") == {
        ("fact", "uncle", "occupation", "retired welder")}


def test_a_place_abbreviated_fort_or_port_is_one_name() -> None:
    assert triples("I live in Ft. Myers with my kids.") == {
        ("fact", "user", "lives_in", "Ft. Myers")}


def test_a_decision_said_with_probably_is_a_decision_at_a_guess() -> None:
    [u] = run("We're probably going with Kafka for the queue.").units
    assert u.type == "decision" and "Kafka" in u.text and u.confidence <= 0.5


def test_steps_said_for_each_time_are_a_procedure() -> None:
    [u] = run("Before every deploy I bump the version, run the tests, and then tag it.").units
    assert u.type == "procedure" and "the version" in u.text and "tag it" in u.text


@pytest.mark.parametrize("turn", ["I never got back to the landlord about the lease.",
                                  "I always hated maths at school."])
def test_a_past_tense_after_never_or_always_is_no_standing_preference(turn: str) -> None:
    assert not any(u.type == "preference" for u in run(turn).units)
