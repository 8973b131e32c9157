"""The bearer tokens' façade on both backends: a token verifies until revoked, only its
hash is kept, names are not reused, bad requests are refused with a message and write
nothing, and creating and revoking are audited store-wide (never with the secret)."""

from __future__ import annotations

import pytest

from memdesk.core.guard import tokens
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore


def test_a_token_verifies_until_it_is_revoked(store: MemoryStore) -> None:
    assert tokens.verify(store, None).configured is False
    issued = tokens.add_token(store, "alice-agent", ["alice", "alice"], ["write", "read"])
    assert issued.token.users == ("alice",) and issued.token.rights == ("read", "write")
    v = tokens.verify(store, issued.secret)
    assert v.token is not None and v.token.name == "alice-agent" and v.configured
    assert tokens.verify(store, issued.secret + "x") == tokens.Verdict(None, None, True)
    assert tokens.verify(store, None).configured  # a store with tokens needs one
    tokens.revoke_token(store, "alice-agent")
    v = tokens.verify(store, issued.secret)
    assert (v.token, v.revoked, v.configured) == (None, "alice-agent", True)
    assert tokens.active_count(store) == 0 and not tokens.list_tokens(store)[0].active


def test_only_the_hash_is_kept_and_the_audit_names_no_secret(store: MemoryStore) -> None:
    issued = tokens.add_token(store, "bot", ["bob"], ["read"])
    tokens.revoke_token(store, "bot")
    evs = [e for e in store.events("*") if e.target == "bot"]
    assert {e.action for e in evs} == {acts.TOKEN_ADD.name, acts.TOKEN_REVOKE.name}
    assert all(e.actor == "operator" and e.memory_id is None for e in evs)
    add = next(e for e in evs if e.action == acts.TOKEN_ADD.name)
    assert add.after == {"token": "bot", "users": ["bob"], "rights": ["read"]}
    assert issued.secret not in repr([(e.before, e.after, e.note) for e in evs])
    with store.read() as conn:
        stored = [tuple(r) for r in conn.exec_driver_sql("SELECT * FROM mcp_tokens")]
    assert issued.secret not in repr(stored)
    assert tokens.digest(issued.secret) in repr(stored)


@pytest.mark.parametrize(("name", "users", "rights", "message"), [
    ("", ["a"], ["read"], "not usable"),
    ("has space", ["a"], ["read"], "not usable"),
    ("x" * 65, ["a"], ["read"], "not usable"),
    ("ok", [], ["read"], "at least one user"),
    ("ok", ["  "], ["read"], "not usable"),
    ("ok", ["a\x00b"], ["read"], "not usable"),
    ("ok", ["u" * 201], ["read"], "not usable"),
    ("ok", ["a"], [], "at least one right"),
    ("ok", ["a"], ["read", "admin"], "unknown right(s) admin"),
])
def test_bad_requests_are_refused_and_write_nothing(
        store: MemoryStore, name: str, users: list[str], rights: list[str],
        message: str) -> None:
    with pytest.raises(tokens.TokenError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tokens.add_token(store, name, users, rights)
    assert tokens.list_tokens(store) == []
    assert [e for e in store.events("*") if e.action == acts.TOKEN_ADD.name] == []


def test_names_are_not_reused_and_revoking_twice_or_unknown_is_refused(
        store: MemoryStore) -> None:
    tokens.add_token(store, "once", ["a"], ["read"])
    tokens.revoke_token(store, "once")
    with pytest.raises(tokens.TokenError, match="exists already"):
        tokens.add_token(store, "once", ["a"], ["read"])
    with pytest.raises(tokens.TokenError, match="revoked already"):
        tokens.revoke_token(store, "once")
    with pytest.raises(tokens.TokenError, match="no token named"):
        tokens.revoke_token(store, "never")
    assert [t.name for t in tokens.list_tokens(store)] == ["once"]


def test_a_paused_token_keeps_its_secret_until_resumed(store: MemoryStore) -> None:
    """Pause and resume on both backends: the same secret verifies throughout (paused
    in between), a paused token still locks a loopback server, each is audited
    store-wide, and a bad request (twice, unknown, revoked) writes nothing."""
    issued = tokens.add_token(store, "bot", ["alice"], ["read"])
    tokens.pause_token(store, "bot")
    v = tokens.verify(store, issued.secret)
    assert v.token is not None and v.token.paused and v.token.state == "paused"
    assert tokens.active_count(store) == 1  # paused is not revoked: the door stays shut
    message = tokens.paused_message("bot", v.token.paused_at)
    assert message.startswith("refused: this token (bot) is paused by the operator since ")
    with pytest.raises(tokens.TokenError, match="is paused already"):
        tokens.pause_token(store, "bot")
    tokens.resume_token(store, "bot")
    v = tokens.verify(store, issued.secret)
    assert v.token is not None and not v.token.paused and v.token.paused_at is None
    with pytest.raises(tokens.TokenError, match="is not paused"):
        tokens.resume_token(store, "bot")
    with pytest.raises(tokens.TokenError, match="no token named 'ghost'"):
        tokens.pause_token(store, "ghost")
    tokens.revoke_token(store, "bot")
    with pytest.raises(tokens.TokenError, match="a revoked token cannot be resumed"):
        tokens.resume_token(store, "bot")
    evs = [e.action for e in sorted(store.events("*"), key=lambda e: e.id) if e.target == "bot"]
    assert evs == ["token_add", "token_pause", "token_resume", "token_revoke"]
