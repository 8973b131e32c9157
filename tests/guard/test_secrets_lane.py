"""The secrets lane through its façades: what it recognises (and leaves alone), the
store's policy per category (hold, mask, store: audited, undoable), and every write path
— a direct add, a queued turn and the worker (its episode and its units), an import, an
agent's correction — with recall never returning an unreviewed secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text as sql

from memdesk.core.errors import ValidationError
from memdesk.core.guard import SecretAction, SecretCategory
from memdesk.core.guard.agent_actions import correct, history
from memdesk.core.guard.review import Review
from memdesk.core.guard.secret_lane import SecretPolicy, apply_policy
from memdesk.core.guard.secrets import find_secrets
from memdesk.core.read.retriever import Retriever
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import Status
from memdesk.core.transfer.importer import Importer
from memdesk.core.transfer.jsonl import JsonlSource
from memdesk.core.undo.generic import undo_changes
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.secrets_lane import SecretsLane
from memdesk.core.write.units import Extraction, Turn, Unit
from memdesk.core.write.worker import Worker, WorkerConfig

PASSWORD = "Tr0ub4dor&3x"
CARD = "4242 4242 4242 4242"
KEY = "sk-proj-Qm9vYmFyQmF6UXV4Q29yZ2VHcmF1bHRHYXJwbHk"
EMAIL = "anna.keller@example.com"


class EchoExtractor:
    """One unit per turn: the turn's text, as an extractor that keeps the words would."""

    name, model = "echo", None

    def extract(self, turn: Turn) -> Extraction:
        return Extraction([Unit(f"The user said: {turn.text}", "fact", 0.6, 0.8)], "echo")


def work(store: MemoryStore) -> None:
    Worker(store, EchoExtractor(), WorkerConfig(embed=False)).run(drain=True)


def everything_stored(store: MemoryStore) -> str:
    """Every table's every text, as one string (what a leak would be found in)."""
    with store.read() as conn:
        return json.dumps([
            [list(map(str, r)) for r in conn.execute(sql(f"SELECT * FROM {t}"))]
            for t in ("memories", "memory_events", "jobs", "quarantine_reasons")],
            ensure_ascii=False)


# -- recognising ------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "category"), [
    (f"my openai key is {KEY}", "api_key"),
    ("github token ghp_16C7e42F292c6912E7710c838347Ae178B4a", "api_key"),
    ("the aws key AKIAIOSFODNN7EXAMPLE is for staging", "api_key"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
     "private_key"),
    (f"my password is {PASSWORD}", "password"),
    ("pw: hunter22", "password"),
    ("the wifi password is BlueFalcon77", "password"),
    (f"charge my card {CARD}", "card"),
    ("my IBAN is DE89 3704 0044 0532 0130 00", "iban"),
    ("call me at 415-555-2671", "phone"),
    ("my number is +44 20 7946 0958", "phone"),
    (f"mail me at {EMAIL}", "email"),
    ("my SSN is 123-45-6789", "government_id"),
    ("my passport number is X12345678", "government_id"),
])
def test_each_category_is_recognised(text: str, category: str) -> None:
    assert category in {h.category.value for h in find_secrets(text)}


@pytest.mark.parametrize("text", [
    "the fix landed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "request 123e4567-e89b-12d3-a456-426614174000 timed out",
    "we upgraded to 2.14.3-rc1", "ISBN 978-0-306-40615-7",
    "card number 4242 4242 4242 4241 was declined",  # fails the Luhn check
    "order #416-9637844-2469758 never arrived", "SKU 800-555-0199 comes in blue",
    "tracking 1Z999AA10123456784", "rent is $1,299.99 from 2026-05-01",
    "my password is too short", "I forgot my password again",
])
def test_look_alikes_are_left_alone(text: str) -> None:
    assert find_secrets(text) == []


def test_masks_show_enough_to_recognise_and_nothing_to_use() -> None:
    screened = apply_policy(f"key {KEY}, card {CARD}, pw: {PASSWORD}, mail {EMAIL}",
                            SecretPolicy(dict.fromkeys(SecretCategory, SecretAction.MASK)))
    assert screened.text == "key sk-proj-…wbHk, card •••• 4242, pw: ••••••, mail a…@example.com"
    assert find_secrets(screened.text) == []  # a masked text is not recognised again


def test_a_secret_split_across_two_turns_is_caught() -> None:
    assert find_secrets("BlueFalcon77") == []
    [hit] = find_secrets("BlueFalcon77", preceding="and the wifi password is")
    assert (hit.category.value, hit.value) == ("password", "BlueFalcon77")
    assert find_secrets("sure, thanks", preceding="my password is") == []


# -- the policy ---------------------------------------------------------------------------
def test_the_default_policy_holds_credentials_and_masks_contacts(store: MemoryStore) -> None:
    policy = SecretsLane(store).policy().to_json()
    assert policy["password"] == policy["api_key"] == policy["card"] == "hold"
    assert policy["phone"] == policy["email"] == "mask"


def test_a_policy_change_is_audited_and_undone(store: MemoryStore) -> None:
    lane = SecretsLane(store)
    changes = lane.set_action("email", "store")
    assert lane.policy().action(SecretCategory.EMAIL).value == "store"
    assert lane.set_action("email", "store").event_ids == ()  # already so: nothing
    undo_changes(store, changes)
    assert lane.policy().action(SecretCategory.EMAIL).value == "mask"


@pytest.mark.parametrize(("category", "action", "words"), [
    ("passwords", "hold", "not a category of secret"),
    ("password", "shred", "is not hold, mask or store"),
])
def test_a_bad_policy_is_refused_with_a_clear_message(store: MemoryStore, category: str,
                                                      action: str, words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        SecretsLane(store).set_action(category, action)
    assert SecretsLane(store).policy() == SecretPolicy()


# -- direct adds ---------------------------------------------------------------------------
def test_a_direct_add_holds_masks_or_stores_by_policy(store: MemoryStore) -> None:
    lane = SecretsLane(store)
    held, screened = lane.add(user_id="u", type="fact", text=f"my password is {PASSWORD}")
    assert held.status is Status.QUARANTINED and screened.held_categories == ("password",)
    masked, screened = lane.add(user_id="u", type="fact", text=f"my email is {EMAIL}")
    assert masked.status is Status.ACTIVE and masked.text == "my email is a…@example.com"
    assert screened.masked_categories == ("email",)
    lane.set_action("password", "store")
    kept, screened = lane.add(user_id="u", type="fact", text=f"the vault password is {PASSWORD}")
    assert kept.status is Status.ACTIVE and PASSWORD in kept.text
    assert EMAIL not in everything_stored(store)  # not in the row, not in its audit row
    [item] = Review(store).inbox(lane="secrets")
    assert item.memory.id == held.id and PASSWORD not in json.dumps(item.to_json())
    assert item.shown_text() == "my password is ••••••"
    assert item.shown_text(reveal=True) == f"my password is {PASSWORD}"


# -- the queue and the worker ----------------------------------------------------------------
def test_the_worker_holds_the_turn_and_its_units_and_recall_never_returns_them(
        store: MemoryStore) -> None:
    queue = JobQueue(store)
    with store.write() as conn:
        _, screened = queue.enqueue_screened_in(
            conn, Turn(f"My password is {PASSWORD}. I like tea.", "u", "s1"))
    assert screened.note() is not None and PASSWORD not in screened.note()
    queue.enqueue(Turn("I like green tea a lot.", "u", "s1"))
    work(store)
    held = Review(store).inbox(lane="secrets")
    assert len(held) == 2  # the episode (the turn as said) and the unit with the value
    assert {i.secret_categories for i in held} == {(SecretCategory.PASSWORD,)}
    assert Review(store).secret_categories([i.memory.id for i in held]) == ["password"]
    for item in held:
        assert PASSWORD not in " ".join(f.reason + f.evidence for f in item.findings)
    result = Retriever(store).retrieve("password tea", "u", 20, ["fts", "graph"],
                                       floor=False)
    assert result.results and all(PASSWORD not in h.text for h in result.results)
    assert all(PASSWORD not in p.text for p in result.preferences)
    assert all(PASSWORD not in r.text for r in store.page(None, limit=100)
               if r.status is not Status.QUARANTINED)
    approved = Review(store).approve([held[0].memory.id])
    assert store.get(held[0].memory.id).status is Status.ACTIVE
    undo_changes(store, approved)  # approving is undone like any review decision
    assert store.get(held[0].memory.id).status is Status.QUARANTINED


def test_masked_turns_leave_no_copy_anywhere(store: MemoryStore) -> None:
    SecretsLane(store).set_action("card", "mask")
    with store.write() as conn:
        JobQueue(store).enqueue_screened_in(
            conn, Turn(f"Use my card {CARD} for the hotel, mail {EMAIL}", "u", "s1"))
    work(store)
    stored = everything_stored(store)
    assert CARD not in stored and EMAIL not in stored and "•••• 4242" in stored
    assert Review(store).held_count() == 0


def test_a_policy_changed_after_queueing_is_applied_by_the_worker(store: MemoryStore) -> None:
    JobQueue(store).enqueue(Turn(f"my card is {CARD}", "u"))
    SecretsLane(store).set_action("card", "mask")
    work(store)
    assert CARD not in everything_stored(store)  # the queued turn too


def test_the_value_of_a_secret_announced_in_the_previous_turn_is_held(
        store: MemoryStore) -> None:
    queue = JobQueue(store)
    queue.enqueue(Turn("and the wifi password is", "u", "s9"))
    queue.enqueue(Turn("BlueFalcon77", "u", "s9"))
    queue.enqueue(Turn("BlueFalcon77", "u", "another session"))
    work(store)
    held = Review(store).inbox(lane="secrets")
    assert {i.memory.source_session for i in held} == {"s9"}
    assert all("BlueFalcon77" not in i.shown_text() for i in held)


# -- imports and corrections -----------------------------------------------------------------
def test_an_import_holds_and_masks_by_policy(store: MemoryStore, tmp_path: Path) -> None:
    lines = [{"id": "m1", "user_id": "u", "type": "fact", "text": f"my password is {PASSWORD}"},
             {"id": "m2", "user_id": "u", "type": "fact", "text": f"my email is {EMAIL}"},
             {"id": "m3", "user_id": "u", "type": "fact", "text": "I like tea"}]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with path.open("rb") as fh:
        report = Importer(store).run(JsonlSource(fh))
    assert (report.imported, dict(report.secrets_held), dict(report.secrets_masked)) == (
        3, {"password": 1}, {"email": 1})
    assert "held for review for a secret 1" in report.summary()
    assert store.get("m1").status is Status.QUARANTINED
    assert store.get("m2").text == "my email is a…@example.com"
    assert EMAIL not in everything_stored(store)
    store.undo_group(report.group_id)  # the import is still one undoable group
    assert store.get("m1").status is Status.DELETED


def test_an_agents_correction_goes_through_the_lane(store: MemoryStore) -> None:
    old = store.add(user_id="u", type="fact", text="my wifi is open", actor="agent").id
    out = correct(store, old, f"the wifi password is {PASSWORD}", lambda u: True,
                  note="test", secrets=SecretsLane(store).policy())
    assert out.status == "held_for_review" and any("password" in r for r in out.reasons)
    assert all(PASSWORD not in r for r in out.reasons)
    assert store.get(old).status is Status.ACTIVE


def test_history_shows_an_agent_no_secret(store: MemoryStore) -> None:
    rec, _ = SecretsLane(store).add(user_id="u", type="fact", text=f"my password is {PASSWORD}",
                                    actor="agent")
    Review(store).edit(rec.id, text="the user has a password")  # taken out in review
    Review(store).approve([rec.id])
    events = history(store, rec.id, lambda u: True)
    assert PASSWORD not in json.dumps(events)
    assert any(e["changed"].get("text", {}).get("from") == "my password is ••••••"
               for e in events)


def test_the_inbox_refuses_an_unknown_lane(store: MemoryStore) -> None:
    with pytest.raises(ValidationError, match="not a lane"):
        Review(store).inbox(lane="passwords")
