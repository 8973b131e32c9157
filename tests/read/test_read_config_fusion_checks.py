"""ReadConfig refuses fusion and floor settings that would make ranking meaningless,
naming the field; the accepted ones change what ``retrieve`` does."""

from __future__ import annotations

import pytest

from memdesk.core.errors import ValidationError
from memdesk.core.read.config import ReadConfig


def refused(**kw: object) -> ValidationError:
    with pytest.raises(ValidationError) as e:
        ReadConfig().with_(**kw)
    return e.value


def test_an_unknown_fusion_method_is_refused() -> None:
    err = refused(fusion="borda")
    assert err.field == "fusion"
    assert str(err) == "fusion: unknown method 'borda'; use scores, rrf"


@pytest.mark.parametrize("weights", [(1.0, 1.0), (1.0, -0.1, 1.0), (1, 1, 1, 1)])
def test_channel_weights_are_three_and_not_negative(weights: tuple[float, ...]) -> None:
    err = refused(channel_weights=weights)
    assert err.field == "channel_weights"
    assert "three weights (fts, vector, graph), none negative" in str(err)


def test_the_floor_prior_needs_a_positive_scale_and_a_weight() -> None:
    assert refused(floor_prior_scale=0.0).field == "floor_prior_scale"
    assert refused(floor_prior_weight=-1.0).field == "floor_prior_scale"
    assert ReadConfig().with_(floor_prior_weight=0.0).floor_prior_weight == 0.0


def test_relevant_injection_slots_may_be_zero_not_negative() -> None:
    assert refused(inject_relevant_max=-1).field == "inject_relevant_max"
    assert ReadConfig().with_(inject_relevant_max=0).inject_relevant_max == 0
