"""A correction of one preference leaves the others alone, through the real write path.

With one generic ``prefers`` attribute, "Actually, I prefer light mode now." plus
``maintain`` superseded the tabs and the Python preferences too (a correction supersedes
every older active memory with the same entity and attribute).  Each preference now names
its kind, so only the theme is corrected."""

from __future__ import annotations

from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig


def said(store: MemoryStore, *texts: str) -> None:
    for text in texts:
        JobQueue(store).enqueue(Turn(text, "alice", "s1"))
    Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(drain=True)


def active(store: MemoryStore) -> set[tuple[str | None, str | None]]:
    return {(m.attribute, m.value) for m in store.active("alice") if m.type != "episode"}


def test_a_theme_correction_supersedes_the_theme_only(store: MemoryStore) -> None:
    said(store, "I prefer tabs over spaces.", "I mostly code in Python.",
         "I prefer dark mode.")
    said(store, "Actually, I prefer light mode now.")
    maintain(store)
    assert active(store) == {("prefers_indentation", "tabs"), ("prefers_language", "Python"),
                             ("prefers_theme", "light mode")}


def test_a_switch_supersedes_the_tool_it_replaces_and_nothing_else(
        store: MemoryStore) -> None:
    said(store, "I use Neovim for everything.", "I prefer tabs over spaces.",
         "I'm allergic to peanuts.")
    said(store, "I no longer use vim, I use Helix now.")
    maintain(store)
    assert active(store) == {("prefers_editor", "Helix"), ("prefers_indentation", "tabs"),
                             ("allergic_to", "peanuts")}


def test_a_second_allergy_does_not_supersede_the_first(store: MemoryStore) -> None:
    said(store, "I'm allergic to peanuts.")
    said(store, "Actually, I'm allergic to cats too.")
    maintain(store)
    assert active(store) == {("allergic_to", "peanuts"), ("allergic_to", "cats")}
