"""The offline extractor's output, unit by unit: for one clause per row of the write-phase
decision table the exact unit (text, type, scores, triple), how emphasis, uncertainty,
corrections and hedges change the scores, and the exact note for every skipped clause.

Changed with the specific attributes: a preference's attribute names its kind
(``prefers_indentation``, not one generic ``prefers`` that let one preference supersede
another), the text is written from the triple (so it says exactly what is stored), and
"I'm a backend engineer at Acme" gives the role and the employer."""

from __future__ import annotations

import pytest

from memdesk.core.write.extract_heuristic import (
    UNCERTAIN_CONFIDENCE,
    HeuristicExtractor,
    clauses,
    paraphrase,
)
from memdesk.core.write.extract_text import third_person_verb
from memdesk.core.write.units import Extraction, Turn, Unit

H = HeuristicExtractor()


def run(text: str) -> Extraction:
    return H.extract(Turn(text, "u"))


def one(text: str) -> Unit:
    [u] = run(text).units
    return u


@pytest.mark.parametrize(("turn", "unit"), [
    ("I work at Acme Corp.",
     Unit("The user works at Acme Corp.", "fact", 0.7, 0.85, "user", "works_at", "Acme Corp")),
    ("I live in Berlin",
     Unit("The user lives in Berlin.", "fact", 0.6, 0.85, "user", "lives_in", "Berlin")),
    ("My name is Ada.",
     Unit("The user's name is Ada.", "fact", 0.7, 0.9, "user", "name", "Ada")),
    ("I prefer tabs over spaces.",
     Unit("The user prefers tabs over spaces.", "preference", 0.8, 0.85, "user",
          "prefers_indentation", "tabs")),
    ("I always drink coffee",
     Unit("The user drinks coffee.", "preference", 0.8, 0.85, "user", "prefers_drink",
          "coffee")),
    ("I hate meetings.",
     Unit("The user hates meetings.", "preference", 0.6, 0.8, "user", "dislikes", "meetings")),
    ("I love jazz.",
     Unit("The user loves jazz.", "preference", 0.6, 0.8, "user", "likes", "jazz")),
    ("We went with Kafka.",
     Unit("The user's team went with Kafka.", "decision", 0.8, 0.85)),
    ("Please always answer in British English.",
     Unit("The user wants the assistant to: always answer in British English.",
          "preference", 0.85, 0.9)),
    ("Never use emojis!",
     Unit("The user wants the assistant to: never use emojis.", "preference", 0.8, 0.85)),
    ("My morning routine: check alerts, then review PRs.",
     Unit("The user's routine: check alerts, then review PRs.", "procedure", 0.7, 0.85)),
    # a procedure's text starts where its rule matched
    ("Every day, first I run the linter, then the tests.",
     Unit("First the user runs the linter, then the tests.", "procedure", 0.65, 0.8)),
])
def test_each_rule_gives_its_unit(turn: str, unit: Unit) -> None:
    assert one(turn) == unit


def test_the_answer_names_the_heuristic_and_no_model() -> None:
    out = run("I work at Acme.")
    assert (out.extractor, out.model, out.notes) == ("heuristic", None, [])


def test_a_role_at_an_employer_gives_both() -> None:
    assert run("I'm a backend engineer at Acme").units == [
        Unit("The user is a backend engineer.", "fact", 0.7, 0.85, "user", "occupation",
             "backend engineer"),
        Unit("The user works at Acme.", "fact", 0.7, 0.85, "user", "works_at", "Acme")]


def test_emphasis_adds_its_boost_capped_at_one() -> None:
    assert one("I work at Acme!!").importance == 0.8
    assert one("I'm severely allergic to nuts!!") == Unit(
        "The user is allergic to nuts.", "fact", 1.0, 0.9, "user", "allergic_to", "nuts")


def test_uncertainty_caps_confidence_only() -> None:
    assert one("I think I prefer Go.") == Unit(
        "The user prefers Go.", "preference", 0.8, UNCERTAIN_CONFIDENCE,
        "user", "prefers_language", "Go")


def test_a_correction_is_stripped_and_scored_as_one() -> None:
    assert one("No, I use pytest not unittest") == Unit(
        "Correction: the user uses pytest.", "correction", 0.9, 0.9, "user",
        "prefers_test_framework", "pytest")
    # emphasis raises a correction's importance too
    assert one("Actually, I'm severely vegan!!") == Unit(
        "Correction: the user is vegan.", "correction", 1.0, 0.9, "user", "diet", "vegan")


def test_actually_does_not_correct_an_attribute_held_with_several_values() -> None:
    # A correction supersedes every older value of its attribute: read as one, this
    # would drop the user's other allergies.  Changed from a correction on purpose.
    assert one("Actually, I'm severely allergic to cats") == Unit(
        "The user is allergic to cats.", "fact", 1.0, 0.9, "user", "allergic_to", "cats")


def test_a_hedged_clause_is_read_as_what_it_imagines_and_not_asserted() -> None:
    assert one("What if I worked at Google?") == Unit(
        "Not asserted (hypothetical): the user works at Google.", "fact", 0.3, 0.25,
        "user", "works_at", "Google", "hypothetical")
    assert one("I'm basically a wizard, so I fix everything.") == Unit(
        "Not asserted (rhetorical framing): the user is a wizard.", "fact", 0.3, 0.25,
        "user", "is_a", "wizard", "hypothetical")


def test_a_lead_in_is_not_part_of_the_statement() -> None:
    assert one("Honestly, I work at Acme.").text == "The user works at Acme."


def test_only_a_hedged_clause_is_read_in_the_subjunctive() -> None:
    out = run("I worked at Acme.")
    assert out.units == [] and out.notes == ["nothing recognised in 'I worked at Acme.'"]
    assert one("Imagine I WORKED at Google.").text == (
        "Not asserted (hypothetical): the user works at Google.")


def test_a_hedge_is_not_also_a_correction() -> None:
    u = one("No, imagine I lived in Rome.")
    assert u == Unit("Not asserted (hypothetical): the user lives in Rome.", "fact", 0.3,
                     0.25, "user", "lives_in", "Rome", "hypothetical")


@pytest.mark.parametrize(("turn", "note"), [
    ("I am so tired.", "skipped 'I am so tired.': transient state"),
    ("Oh great, another meeting.", "skipped 'Oh great, another meeting.': sarcasm"),
    ("Thanks a lot!", "skipped 'Thanks a lot!': pleasantry or acknowledgement"),
    ("Do you know Rust?", "skipped 'Do you know Rust?': a question asserts nothing"),
    ("The sky is blue.", "nothing recognised in 'The sky is blue.'"),
    ("Imagine the sky was green.",
     "nothing recognised in 'Imagine the sky was green.' (hypothetical)"),
    ("The weather here is mostly grey and quite cold in winter.",
     "nothing recognised in 'The weather here is mostly grey and quit'"),
    ("I am so tired after all these long meetings today.",
     "skipped 'I am so tired after all these long meeti': transient state"),
    ("Thanks, thank you, cheers, great, awesome, perfect!",
     "skipped 'Thanks, thank you, cheers, great, awesom': pleasantry or acknowledgement"),
    ("Do you know whether the staging server is up again?",
     "skipped 'Do you know whether the staging server i': a question asserts nothing"),
    ("...", "skipped '...': pleasantry or acknowledgement"),
    ("XX", "nothing recognised in 'XX'"),
])
def test_a_clause_that_gives_nothing_says_why(turn: str, note: str) -> None:
    out = run(turn)
    assert out.units == [] and out.notes == [note]


def test_a_pleasantry_before_a_statement_is_stripped() -> None:
    assert one("Thanks! I work at Acme.").text == "The user works at Acme."
    out = run("Thanks, I work at Acme.")
    assert [u.text for u in out.units] == ["The user works at Acme."] and out.notes == []


def test_clauses_of_a_turn_each_give_their_unit_once() -> None:
    out = run("I work at Acme Corp and I live in Berlin. I work at Acme Corp.")
    assert [(u.attribute, u.value) for u in out.units] == [
        ("works_at", "Acme Corp"), ("lives_in", "Berlin")]


def test_clauses_split_on_sentence_ends_lines_and_joined_first_person() -> None:
    assert clauses("I work at Acme. I live in Oslo!  Thanks\n\nI use vim; ok") == [
        "I work at Acme.", "I live in Oslo!", "Thanks", "I use vim;", "ok"]
    assert clauses("I like tea, and I like cats but my dog likes neither") == [
        "I like tea", "I like cats", "my dog likes neither"]
    assert clauses("bread and butter") == ["bread and butter"]
    assert clauses("  \n ") == []


@pytest.mark.parametrize(("clause", "expected"), [
    ("I use vim.", "The user uses vim."),
    ("My plan is simple", "The user's plan is simple."),
    ("i use VIM", "The user uses VIM."),
    ("I've moved to Oslo", "The user has moved to Oslo."),
    ("I'll write tests", "The user will write tests."),
    ("I'd rather not", "The user would rather not."),
    ("I am tired of my job", "The user is tired of their job."),
    ("Tell me about mine and myself", "Tell them about theirs and themselves."),
    ("we're hiring", "The user's team is hiring."),
    ("we've shipped", "The user's team has shipped."),
    ("we use Go for our services", "The user's team use Go for their team's services."),
    ("I do not like tabs", "The user does not like tabs."),
    ("I usually go home", "The user usually goes home."),
    ("  ", ""),
])
def test_paraphrase_reads_in_the_third_person(clause: str, expected: str) -> None:
    assert paraphrase(clause) == expected


def test_paraphrase_of_dont() -> None:
    assert paraphrase("I don't like tabs") == "The user doesn't like tabs."


@pytest.mark.parametrize(("verb", "third"), [
    ("is", "is"), ("can", "can"), ("chose", "chose"), ("picked", "picked"),
    ("needed", "needed"), ("have", "has"), ("do", "does"), ("go", "goes"),
    ("pass", "passes"), ("push", "pushes"), ("watch", "watches"), ("fix", "fixes"),
    ("buzz", "buzzes"), ("veto", "vetoes"), ("carry", "carries"), ("play", "plays"),
    ("y", "ys"), ("by", "bies"), ("employ", "employs"), ("run", "runs"), ("use", "uses"),
])
def test_third_person_verbs(verb: str, third: str) -> None:
    assert third_person_verb(verb) == third
