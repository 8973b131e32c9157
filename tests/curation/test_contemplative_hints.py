"""core/curation/contemplative: which pattern matched where, the excerpt shown, and the
option-A figure (the V4 retriever proposal, change 4: importance + 0.2, capped at 1, shown as a
hint)."""

from __future__ import annotations

import pytest

from memdesk.core.curation import contemplative as cp
from memdesk.core.curation.contemplative import contemplative_hint


def test_patterns_and_boost_are_seed_002s() -> None:
    assert [label for label, _ in cp.PATTERNS] == [
        "chose not to", "sat with", "practiced", "honestly", "for the first time"]
    assert cp.OPTION_A_BOOST == 0.2


@pytest.mark.parametrize(("text", "label"), [
    ("I CHOSE  NOT\tTO push.", "chose not to"),
    ("She sat\nwith the grief.", "sat with"),
    ("We practice daily.", "practiced"),
    ("Practicing scales.", "practiced"),
    ("Practiced it.", "practiced"),
    ("To be honest, no.", "honestly"),
    ("HONESTLY fine.", "honestly"),
    ("For the first time ever.", "for the first time"),
])
def test_each_pattern_matches_its_forms(text: str, label: str) -> None:
    h = contemplative_hint(text, 0.3)
    assert h is not None and h.labels == (label,)


@pytest.mark.parametrize("text", [
    "", "He chose to stay.", "The unsat withdrawal.", "Practical matters.",
    "Honesty matters.", "first time for the", "practices", "dishonestly",
])
def test_no_hint_without_a_whole_word_match(text: str) -> None:
    assert contemplative_hint(text, 0.3) is None


def test_matches_are_in_text_order_with_offsets_and_labels_deduplicated() -> None:
    text = "Honestly, for the first time I practiced; honest work."
    h = contemplative_hint(text, 0.4)
    assert h is not None
    assert [(m.label, m.start, m.end) for m in h.matches] == [
        ("honestly", 0, 8), ("for the first time", 10, 28), ("practiced", 31, 40),
        ("honestly", 42, 48)]
    assert h.labels == ("honestly", "for the first time", "practiced")
    assert h.importance == 0.4


def test_short_text_excerpt_is_the_whole_text_and_explain_reads_in_full() -> None:
    h = contemplative_hint("I chose not to force it.", 0.3)
    assert h is not None
    assert h.matches == (cp.PatternMatch("chose not to", 2, 14, "I chose not to force it."),)
    assert h.option_a == 0.5
    assert h.explain() == (
        'Contemplative pattern "chose not to" matched in “I chose not to force it.”. '
        "The write-time boost proposed for such memories (+0.2) would raise this to 0.50; "
        "a hint only, your call.")


def test_explain_lists_every_label_and_quotes_the_first_match() -> None:
    h = contemplative_hint("Sat with it. Honestly.", 0.333)
    assert h is not None
    assert h.explain() == (
        'Contemplative pattern "sat with", "honestly" matched in “Sat with it. Honestly.”. '
        "The write-time boost proposed for such memories (+0.2) would raise this to 0.53; "
        "a hint only, your call.")


@pytest.mark.parametrize(("importance", "option_a"), [
    (0.0, 0.2), (0.35, 0.55), (0.333, 0.53), (0.8, 1.0), (0.85, 1.0), (1.0, 1.0)])
def test_option_a_adds_the_boost_capped_at_one(importance: float, option_a: float) -> None:
    h = contemplative_hint("sat with", importance)
    assert h is not None and h.option_a == option_a


def test_excerpt_keeps_thirty_characters_either_side_when_they_end_on_spaces() -> None:
    # Blocks of 5: the match starts at 50, so 30 back is 20 (just after a space) and
    # 30 past its end (58) is 88 (a space): exactly six blocks either side.
    text = "aaaa " * 10 + "sat with" + " bbbb" * 10
    h = contemplative_hint(text, 0.3)
    assert h is not None and (h.matches[0].start, h.matches[0].end) == (50, 58)
    assert h.matches[0].excerpt == "aaaa " * 6 + "sat with" + " bbbb" * 6


def test_excerpt_widens_to_whole_words() -> None:
    # Blocks of 8: the match starts at 48; 30 back is 18, inside the block at 16..22,
    # so the excerpt starts at 16.  30 past the end (56) is 86, inside 81..87: ends at 88.
    text = "aaaaaaa " * 6 + "sat with" + " bbbbbbb" * 6
    h = contemplative_hint(text, 0.3)
    assert h is not None and (h.matches[0].start, h.matches[0].end) == (48, 56)
    assert h.matches[0].excerpt == "aaaaaaa " * 4 + "sat with" + " bbbbbbb" * 4


def test_excerpt_collapses_whitespace() -> None:
    h = contemplative_hint("so  I\n\nchose not to\tgo", 0.3)
    assert h is not None and h.matches[0].excerpt == "so I chose not to go"


def test_excerpt_widens_back_to_the_start_and_on_to_the_end() -> None:
    # 30 before the match (at 42) is 12, inside the first word: the excerpt starts at 0.
    head = "a" * 20 + " " + "b" * 20 + " sat with"
    h = contemplative_hint(head, 0.3)
    assert h is not None and h.matches[0].excerpt == head
    # 30 past the match's end (8) is 38, inside the last word: it runs to the end.
    tail = "sat with " + "c" * 40
    h = contemplative_hint(tail, 0.3)
    assert h is not None and h.matches[0].excerpt == tail


def test_excerpt_widens_one_character_at_a_time() -> None:
    # Match at 47: 30 back is 17, one past the word start 16 (a space at 15); 30 past
    # the end (55) is 85, one before the space at 86.  Odd distances either side.
    text = ("aaaaaaa " * 5 + "aaaaaa " + "sat with" + " bbbbbbb" * 3 + " bbbbbb"
            + " bbbbbbb" * 2)
    h = contemplative_hint(text, 0.3)
    assert h is not None and (h.matches[0].start, h.matches[0].end) == (47, 55)
    assert h.matches[0].excerpt == (
        "aaaaaaa aaaaaaa aaaaaaa aaaaaa sat with bbbbbbb bbbbbbb bbbbbbb bbbbbb")
