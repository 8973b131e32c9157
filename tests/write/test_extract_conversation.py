"""A realistic 20-turn conversation through the agents' write path (``store_memory`` jobs,
the worker with the offline extractor, then ``maintain``) leaves the right memories in
the store, and no wrong ones: nothing about Emma or the wife is stored as the user's,
no joke, quote, complaint or German sentence becomes a fact, the hypothetical is kept
only at low confidence, and the corrected editor is superseded."""

from __future__ import annotations

from memdesk.core.read.maintain import maintain
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig

CONVERSATION = [
    "Guten Morgen! Ich bin Vegetarierin.",
    "I prefer tabs over spaces.",
    "I mostly code in Python.",
    "I'm vegetarian.",
    "My daughter Emma is 7 and loves dinosaurs.",
    "I realised I'm allergic to cashews after a scary dinner.",
    "My wife is a nurse working night shifts at St. Mary's.",
    "I work at Siemens as a firmware engineer.",
    "I use Neovim for everything.",
    "Actually, I switched from Neovim to VS Code.",
    'My friend said "I work at Google" but he was joking.',
    "I'm allergic to Mondays, haha.",
    "I prefer not to talk about my health.",
    "I always forget my keys, it's so annoying.",
    "I think I might prefer PostgreSQL.",
    "We decided to drop Python 3.9 support in the next release.",
    "What if I worked at Google? Would my pension move with me?",
    "My wife is vegetarian too.",
    "Thanks, that's helpful! Can you remind me what we said about releases?",
    "I no longer use Slack, I use Zulip now.",
]

BELIEVED = {
    ("user", "prefers_indentation", "tabs"), ("user", "prefers_language", "Python"),
    ("user", "diet", "vegetarian"), ("user", "allergic_to", "cashews"),
    ("user", "works_at", "Siemens"), ("user", "occupation", "firmware engineer"),
    ("user", "prefers_editor", "VS Code"), ("user", "avoids_topic", "health"),
    ("user", "prefers_database", "PostgreSQL"), ("user", "prefers_chat_tool", "Zulip"),
    ("Emma", "relation", "daughter"), ("Emma", "age", "7"), ("Emma", "likes", "dinosaurs"),
    ("wife", "occupation", "nurse"), ("wife", "work_schedule", "night shifts"),
    ("wife", "works_at", "St. Mary's"), ("wife", "diet", "vegetarian"),
}


def test_the_conversation_leaves_the_right_memories(store: MemoryStore) -> None:
    jobs = [JobQueue(store).enqueue(Turn(text, "sam", "chat-1")) for text in CONVERSATION]
    assert Worker(store, HeuristicExtractor(), WorkerConfig(embed=False)).run(
        drain=True) == len(CONVERSATION)
    maintain(store)
    q = JobQueue(store)
    assert {q.get(j).status for j in jobs} == {"done"}
    created = store.get_many([m for j in jobs for m in q.get(j).memory_ids])
    everything = store.active("sam")
    active = [m for m in everything if m.type != "episode"]
    # every turn is kept as said (an episode), the ones that gave no unit too
    assert sorted(m.text for m in everything if m.type == "episode") == sorted(CONVERSATION)
    believed = {(m.entity, m.attribute, m.value) for m in active if m.confidence > 0.3}
    assert believed - {(None, None, None)} == BELIEVED
    # the decision is kept, without a triple
    [decision] = [m for m in active if m.type == "decision"]
    assert "Python 3.9" in decision.text and decision.entity is None
    # the hypothetical is kept for the operator, never at a believable confidence
    doubtful = [m for m in created if m.confidence <= 0.3]
    assert [(m.attribute, m.value) for m in doubtful] == [("works_at", "Google")]
    # Neovim was corrected: stored, then superseded
    [neovim] = [m for m in created if m.value == "Neovim"]
    assert neovim.id not in {m.id for m in active}
    # texts read as memories, written from what is stored
    texts = {m.text for m in active}
    assert "The user is allergic to cashews." in texts
    assert "Emma is 7 years old." in texts and "The user's wife is vegetarian." in texts
    assert not any("realised" in t or "Mondays" in t or "keys" in t for t in texts)
    # the German sentence is reported, not stored
    first = q.get(jobs[0])
    assert not first.memory_ids
    assert any("English only" in entry["msg"] for entry in first.log)
