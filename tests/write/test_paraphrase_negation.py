"""The offline extractor's paraphrase of negated clauses (a bug wrote "doesns't").

The verb after "the user" is conjugated to the third person; a contraction is one word,
so "don't" becomes "doesn't" and "haven't" "hasn't", and the other negated auxiliaries
(already third-person forms) stay as they are."""

from __future__ import annotations

import pytest

from memdesk.core.write.extract_heuristic import paraphrase


@pytest.mark.parametrize(("said", "stored"), [
    ("I don't like tabs", "The user doesn't like tabs."),
    ("I always don't run the linter", "The user always doesn't run the linter."),
    ("I haven't tried Rust", "The user hasn't tried Rust."),
    ("I won't use tabs", "The user won't use tabs."),
    ("I didn't test it", "The user didn't test it."),
    ("I can't stand tabs", "The user can't stand tabs."),
    ("I doesn't matter", "The user doesn't matter."),
    # Unchanged around it: plain verbs are still conjugated, a team is plural.
    ("I like tabs", "The user likes tabs."),
    ("We don't use tabs", "The user's team don't use tabs."),
])
def test_a_negated_verb_is_conjugated_as_one_word(said: str, stored: str) -> None:
    assert paraphrase(said) == stored
