"""Read channel rules checked directly: what the entity graph reaches (direct triples,
one hop through their other end, never through a missing value) and how it says so;
and the channel list an operator may isolate."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.core.embeddings import DIM
from memdesk.core.errors import ValidationError
from memdesk.core.read import channels, snapshot
from memdesk.core.read.config import ReadConfig, parse_channels
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.read import put


def test_graph_reaches_direct_triples_then_one_hop_never_through_a_missing_value(
        store: MemoryStore) -> None:
    ids = put(store, [
        {"text": "Alice works at Acme.", "entity": "Alice", "attribute": "works_at",
         "value": "Acme Corp", "importance": 0.9},
        {"text": "Alice has a birthday.", "entity": "Alice", "attribute": "birthday",
         "importance": 0.8},  # no value: "" must not become a node
        {"text": "Acme is in Berlin.", "entity": "Acme Corp", "attribute": "located_in",
         "value": "Berlin", "importance": 0.5},
        {"text": "A note with no triple at all.", "importance": 0.7},
        {"text": "Bob works at Initech.", "entity": "Bob", "attribute": "works_at",
         "value": "Initech", "importance": 0.6},
    ], embed=False)
    seq = [store.get(i).seq for i in ids]
    with store.read() as conn:
        snap = snapshot.build(conn, "u", snapshot.store_version(conn), DIM)
    ok = np.ones(len(snap), dtype=bool)
    got = channels.graph_channel(snap, "where does alice work", ReadConfig(), ok)
    assert got.ranked == [seq[0], seq[1], seq[2]]
    assert got.via == {
        seq[0]: "Alice · works_at · Acme Corp",
        seq[1]: "Alice · birthday · ",
        seq[2]: "one hop: Acme Corp · located_in · Berlin",
    }
    # From the other end: Acme's two rows directly, then Alice's other row via "alice".
    acme = channels.graph_channel(snap, "acme corp", ReadConfig(), ok)
    assert acme.ranked == [seq[0], seq[2], seq[1]]
    assert acme.via == {
        seq[0]: "Alice · works_at · Acme Corp",
        seq[2]: "Acme Corp · located_in · Berlin",
        seq[1]: "one hop: Alice · birthday · ",
    }


@pytest.mark.parametrize("spec", ["", " , ", []])
def test_an_empty_channel_list_is_refused(spec: str | list[str]) -> None:
    with pytest.raises(ValidationError) as e:
        parse_channels(spec)
    assert e.value.field == "channels"
    assert str(e.value) == "channels: name at least one of fts, vector, graph"


def test_channel_lists() -> None:
    assert parse_channels(" Vector,fts,fts ") == ("fts", "vector")
    assert parse_channels("graph,vector,fts") is None
    with pytest.raises(ValidationError) as e:
        parse_channels("fts,bm25")
    assert str(e.value) == "channels: unknown channel 'bm25'; use fts, vector, graph"
