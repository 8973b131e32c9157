"""The calibrated cosine floor: what "similar" means for this query and this user.

all-MiniLM-L6-v2's cosines are not on one scale across queries.  A short, generic
question ("What is my job?") sits at 0.05–0.10 against everything a user wrote; a
specific one ("How old is my kid?") near 0.  The answer to a paraphrase can have a
cosine of 0.16 while an unrelated memory of another query has 0.30, so an absolute
floor (0.30 until now) both dropped true paraphrases and let topical neighbours of a
no-answer question through.

What is stable is how far an answer stands out from the *rest of the user's
memories for the same query*: the answers measured sit 4.6–12 robust deviations above
the median, the best candidate of a no-answer question 1.6–5.4.  So the floor is

    floor = median + z × 1.4826 × MAD

of the query's cosines over the user's eligible memories except its 10 best (those
may be the answers; the median and the median absolute deviation resist any further
ones), each shrunk towards a prior for
unrelated text (``floor_prior_median``, ``floor_prior_scale``) with the weight of
``floor_prior_weight`` memories: a store of three memories has no distribution to
speak of (ten memories or fewer: nothing is left once the best ten are left out)
and gets the prior's floor, 0.02 + 4.5 × 0.07 ≈ 0.34, near the old absolute floor (0.30).
The floor never exceeds ``floor_cap`` (0.5): a few widely spread cosines in a tiny
store would otherwise put it above 1.

Two refinements, measured on the recall benchmark (docs/retrieval.md): the cosines are
centred on the user's mean memory vector first (channels.centred: the direction every
memory of one person shares lifts all of them alike), and the query's single best
candidate needs only ``floor_best_z`` deviations (``Background.best``), because a
question usually has one answer and it is most often the best candidate.

What a floor cannot do: rank.  A paraphrase whose cosine does not stand out from the
user's other memories ("What do I do for a living?" vs "works at Acme Robotics", 0.16,
when "User lives in Lisbon." has 0.17) is below any floor that keeps no-answer
questions empty; only a better model or a reranker can bring it back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

from memdesk.core.read.config import ReadConfig

if TYPE_CHECKING:
    import numpy as np

_NORMAL = NormalDist()
MAD_TO_SIGMA = 1.4826  # a normal distribution's sigma per median absolute deviation
BEST_LEFT_OUT = 10  # the query's best cosines are left out of its background


@dataclass(frozen=True)
class Background:
    """The query's cosines over the user's memories, summarised."""

    median: float
    scale: float
    n: int
    floor: float  # what a result needs
    inject: float  # what a preference needs to be injected first (a looser bar)
    best: float  # what the query's single best candidate needs (floor_best_z)
    episode: float = 0.0  # what an episode needs (floor_z_episode)

    def describe(self) -> str:
        return (f"this query's floor: median {self.median:.2f} + z × {self.scale:.2f} "
                f"over {self.n} memories")


def background(sims: np.ndarray, cfg: ReadConfig) -> Background:
    """The calibrated floor from ``sims`` (the query's cosine with each eligible vector)."""
    import numpy as np

    total = len(sims)
    # The best candidates may be the answers: the background is everything else.
    if len(sims) > BEST_LEFT_OUT:
        sims = np.partition(sims, len(sims) - BEST_LEFT_OUT - 1)[: len(sims) - BEST_LEFT_OUT]
    else:
        sims = sims[:0]
    n = len(sims)
    w = cfg.floor_prior_weight
    if n:
        med = float(np.median(sims))
        mad = MAD_TO_SIGMA * float(np.median(np.abs(sims - med)))
    else:
        med, mad = cfg.floor_prior_median, cfg.floor_prior_scale
    median = (n * med + w * cfg.floor_prior_median) / (n + w) if n + w else med
    scale = math.sqrt((n * mad * mad + w * cfg.floor_prior_scale ** 2) / (n + w)) \
        if n + w else mad
    def at(z: float) -> float:
        return min(median + z * scale, cfg.floor_cap)

    floor_z = for_size(cfg.floor_z, total, cfg.floor_reference_n)
    best_z = for_size(cfg.floor_best_z, total, cfg.floor_reference_n)
    episode_z = for_size(cfg.floor_z_episode, total, cfg.floor_reference_n)
    return Background(median, scale, n, at(floor_z), at(cfg.inject_z),
                      min(at(best_z), at(floor_z)), min(at(episode_z), at(floor_z)))


def for_size(z: float, n: int, reference_n: int) -> float:
    """``z`` for a user with ``n`` memories, when ``z`` was set for ``reference_n``.

    The more memories a user has, the higher the best of the unrelated ones reaches by
    chance: at 2,000 memories a no-answer question's best candidate stands out further
    than at 250, where the bars were chosen.  So a bar is moved to keep the number of
    unrelated memories expected above it the same: ``n · P(Z > z')`` =
    ``reference_n · P(Z > z)`` (normal tails, as the robust scale assumes).  Only
    raised, never lowered: a small store keeps the bars it was tuned with.
    """
    if n <= reference_n or reference_n <= 0:
        return z
    tail = (1.0 - _NORMAL.cdf(z)) * reference_n / n
    return max(z, _NORMAL.inv_cdf(1.0 - max(tail, 1e-15)))
