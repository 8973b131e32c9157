"""The default demo reads as many people's memories, not a few sentences stamped out:
under 5 % of rows repeat another user's text word for word, and no template is behind
more than 5 % of the rows.  A template is a text with its names masked (every
capitalised word and every number), and, stricter, with the demo's lower-case
vocabulary masked too (the tools, reasons and work words its sentences are filled with).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from datetime import datetime

import pytest

from memdesk.core import demo
from memdesk.core.demo.store import DEMO_SIZE

END = datetime(2026, 11, 1)
SHARE = 0.05
NAMES = re.compile(r"\b(?:[A-Z][\w'’-]*|\d[\d.,:]*\w*)")
VOCABULARY = re.compile("|".join(re.escape(w) for w in sorted(
    {*demo.TOOLS, *demo.REASONS, *demo.NOISE_WORDS}, key=len, reverse=True)))


@pytest.fixture(scope="module")
def texts() -> list[tuple[str, str]]:
    return [(r.user_id, r.text) for r in demo.DemoGenerator(7, END).rows(DEMO_SIZE)]


def test_few_rows_repeat_another_users_text(texts: list[tuple[str, str]]) -> None:
    users = defaultdict(set)
    for user, text in texts:
        users[text].add(user)
    repeated = sum(len(users[text]) > 1 for _, text in texts)
    assert repeated / len(texts) < SHARE, repeated


@pytest.mark.parametrize("mask", [
    lambda t: NAMES.sub("#", t),
    lambda t: NAMES.sub("#", VOCABULARY.sub("#", t)),
], ids=["names", "names-and-vocabulary"])
def test_no_template_is_behind_more_than_5_percent(texts, mask) -> None:  # type: ignore[no-untyped-def]
    templates = Counter(mask(text) for _, text in texts)
    [(top, count)] = templates.most_common(1)
    assert count / len(texts) < SHARE, (top, count)
    assert len(templates) > 200
