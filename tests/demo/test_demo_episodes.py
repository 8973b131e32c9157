"""The demo store's conversations: every hand-shaped user's turns are episodes with a
speaker, a session time and (where the turn names one) an event date; the scenario's
statements link to the turns that said them; and old turns nobody needs are there for
"Prune old episodes" to find."""

from __future__ import annotations

from datetime import datetime

from memdesk.core import demo
from memdesk.core.curation.episodes import EpisodePruning
from memdesk.core.demo.texts import USERS
from memdesk.core.store.episodes import Episodes
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.write.provenance import provenance

END = datetime(2026, 11, 1)


def test_every_scenario_user_has_conversations_with_linked_units(
        demo_store: MemoryStore) -> None:
    s, episodes = demo_store, Episodes(demo_store)
    turns = s.page(MemoryFilter(types=("episode",)), limit=None)
    assert {t.user_id for t in turns} == set(USERS)
    infos = episodes.infos(t.id for t in turns)
    assert set(infos) == {t.id for t in turns}  # each has its side row
    assert all(i.said_at is not None and i.speaker for i in infos.values())
    assert {i.speaker for i in infos.values()} == {u.capitalize() for u in USERS} | {
        "assistant"}
    dated = [i for i in infos.values() if i.event_date is not None]
    noted = [i for i in infos.values() if i.event_date is None and i.date_note]
    assert len(dated) >= 2 * len(USERS) and noted  # "the other day" cannot be dated
    for user in USERS:
        [lives] = [r for r in s.page(MemoryFilter(user_ids=(user,), text="lives in"),
                                     limit=None) if r.text.startswith("User lives in ")
                   and r.text.endswith(".")]
        source = episodes.source_of(lives.id)
        assert source is not None and source.speaker == user.capitalize()
        city = lives.value
        assert city and city in s.get(source.id).text
        assert source.session_id == lives.source_session
        assert lives.id in episodes.units_of(source.id)
        p = provenance(s, lives.id)
        assert p is not None and p.extractor == "demo"
        [fix] = [r for r in s.page(MemoryFilter(user_ids=(user,), types=("correction",)),
                                   limit=None) if r.text == "No, I use pytest not unittest."]
        said = episodes.source_of(fix.id)
        assert said is not None and s.get(said.id).text.startswith(fix.text)


def test_old_turns_nobody_needs_are_there_to_prune(demo_store: MemoryStore) -> None:
    pruning = EpisodePruning(demo_store)
    default = pruning.plan(90, now=END)
    wider = pruning.plan(90, now=END, include_recalled=True, include_with_units=True)
    assert 0 < default.count < wider.count
    assert {demo_store.get(i).type for i in wider.ids} == {"episode"}


def test_a_small_demo_links_only_what_it_wrote(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The conversations come after every other row: a size that leaves room for only
    a few turns writes those, with their side rows and links, and no link to a row
    never written (the foreign keys would refuse it; the desk would show nothing)."""
    for size, turns_written in ((40, 0), (64, 4)):
        s = MemoryStore.open(tmp_path / f"small{size}.db")
        try:
            assert demo.generate(s, size, seed=3, end=END) == size
            turns = s.page(MemoryFilter(types=("episode",)), limit=None)
            assert len(turns) == turns_written
            infos = Episodes(s).infos(t.id for t in turns)
            assert set(infos) == {t.id for t in turns}
            units = [u for t in turns for u in Episodes(s).units_of(t.id)]
            assert len(units) == (2 if turns_written else 0)  # unittest, and the city
            assert all(s.get(u).id == u for u in units)
        finally:
            s.close()
