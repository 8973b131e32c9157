"""Collapsing identical and near-identical results into one.

Agents repeat themselves: the same sentence is stored again in every session that
mentions it ("User formats code with autopep8." ten times in the demo store), and
without collapsing, one fact fills the whole top-k.  Two results are the *same* when

- their texts are equal once case, runs of white space and trailing punctuation are
  ignored ("User lives in  lisbon " and "User lives in Lisbon."), or
- their vectors are near-identical (cosine >= ``NEAR_COSINE``) **and** one text is the
  other with words added, none of which negates it ("Timeout connecting to Redis." and
  "Timeout connecting to Redis again.").

The second condition is there because a high cosine alone is not sameness for
all-MiniLM-L6-v2: "Prefer tabs over spaces." and "Prefer spaces over tabs." have a
cosine of 0.976, and "I use Redis" vs "I do not use Redis" differ by one word.  Word
order and negations are what the model is blind to, so they are what the text check
looks at.

The best-scored copy stays; the others are listed on it (``Hit.same_as``) and no
longer take a place in the top-k.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memdesk.core.read import terms as qt

if TYPE_CHECKING:
    import numpy as np

    from memdesk.core.read.fusion import Hit
    from memdesk.core.read.snapshot import UserSnapshot

NEAR_COSINE = 0.95
# Words that turn a sentence into its opposite when added ("don't" splits into "don", "t").
NEGATIONS = frozenset("""
no not never none nothing nobody neither nor without t cannot nt instead anymore
longer stopped quit formerly previously used except
""".split())  # noqa: SIM905 (a readable word list)
_TRAILING = re.compile(r"[\s.!?;:,…]+$")


def same_text(text: str) -> str:
    """The text as compared for identity: case, spacing and final punctuation ignored."""
    return _TRAILING.sub("", " ".join(qt.normalise(text).split()))


def _adds_only(short: list[str], long: list[str]) -> bool:
    """Whether ``long`` is ``short`` with words inserted, none of them a negation."""
    if len(short) > len(long):
        return False
    extra: list[str] = []
    i = 0
    for w in long:
        if i < len(short) and w == short[i]:
            i += 1
        else:
            extra.append(w)
    return i == len(short) and not NEGATIONS.intersection(extra)


def near_same(a: str, b: str) -> bool:
    """The text half of near-identity: one is the other with non-negating words added."""
    wa, wb = qt.words(a), qt.words(b)
    return _adds_only(wa, wb) or _adds_only(wb, wa)


def vector_rows(snap: UserSnapshot) -> np.ndarray:
    """For each snapshot row, its row in ``snap.vectors`` (-1: none); memoised."""
    import numpy as np

    pos = snap.memo.get("vector_pos")
    if pos is None:
        pos = np.full(len(snap), -1, dtype=np.int64)
        pos[snap.vec_rows] = np.arange(len(snap.vec_rows))
        snap.memo["vector_pos"] = pos
    return pos


def gram(vecs: np.ndarray) -> np.ndarray:
    """``vecs @ vecs.T`` on one thread (torch when loaded; see channels.cosines for why
    numpy's threaded BLAS costs milliseconds of waiting on a busy machine)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        t = torch.from_numpy(vecs)
        out: np.ndarray = (t @ t.T).numpy()
        return out
    product: np.ndarray = vecs @ vecs.T
    return product


def collapse(ranked: list[Hit], snap: UserSnapshot | None,
             near_cosine: float = NEAR_COSINE) -> list[Hit]:
    """``ranked`` (best first) without repeats; each repeat is listed on the copy kept.

    One matrix product over the candidates' vectors (a few hundred at most), so the
    cost does not grow with the user's memories.
    """
    import numpy as np

    if len(ranked) < 2:
        return ranked
    # close[i]: the candidates whose vectors are near-identical to candidate i's
    # (a few hundred at most: one product, and no numpy call per candidate).
    close: list[set[int]] = [set() for _ in ranked]
    if snap is not None and len(snap.vec_rows):
        pos = vector_rows(snap)
        rows = [snap.row_of.get(h.seq) for h in ranked]
        slot = np.array([pos[r] if r is not None else -1 for r in rows], dtype=np.int64)
        have = np.nonzero(slot >= 0)[0]
        if len(have) > 1:
            vecs = snap.vectors[slot[have]]
            near = np.argwhere(np.triu(gram(vecs) >= near_cosine, 1))
            for a, b in near.tolist():
                i, j = int(have[a]), int(have[b])
                close[i].add(j)
                close[j].add(i)
    kept: list[int] = []
    kept_set: set[int] = set()
    by_text: dict[str, int] = {}
    for j, h in enumerate(ranked):
        key = same_text(h.text)
        rep = by_text.get(key)
        if rep is None and close[j]:
            rep = next((i for i in sorted(close[j] & kept_set)
                        if near_same(ranked[i].text, h.text)), None)
        if rep is None:
            kept.append(j)
            kept_set.add(j)
            by_text.setdefault(key, j)
        else:
            ranked[rep].same_as.append(h)
    return [ranked[i] for i in kept]
