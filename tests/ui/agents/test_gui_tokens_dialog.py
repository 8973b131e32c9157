"""File → Agent tokens…: the desk creates a token (secret shown once, never stored),
lists it, refuses bad input with a message, and revokes the selected token after
asking; each change is broadcast as history."""

from __future__ import annotations

from memdesk.core.guard import tokens
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed, Changes
from memdesk.ui.agents.tokens_dialog import TokensDialog


def rows(d: TokensDialog) -> list[list[str]]:
    return [[d.table.item(r, c).text() for c in range(d.table.columnCount())]
            for r in range(d.table.rowCount())]


def test_create_list_and_revoke_a_token_in_the_desk(qtbot, store: MemoryStore) -> None:
    seen: list[Changes] = []
    asked: list[str] = []
    d = TokensDialog(store, on_changed=seen.append,
                     confirm=lambda name: asked.append(name) or True)
    qtbot.addWidget(d)
    assert rows(d) == []
    d.name.setText("alices-assistant")
    d.users.setText("alice, alice2")
    d.rights["forget"].setChecked(True)
    d.create_button.click()
    secret = d.secret.text()
    assert secret.startswith("mdk_") and "cannot be shown again" in d.message.text()
    assert tokens.verify(store, secret).token.name == "alices-assistant"
    (row,) = rows(d)
    assert row[:4] == ["alices-assistant", "alice, alice2", "read, write, forget", "active"]
    assert seen and seen[-1].touches(Changed.HISTORY)

    d.table.selectRow(0)
    d.revoke_button.click()
    assert asked == ["alices-assistant"]
    assert rows(d)[0][3].startswith("revoked")
    assert tokens.verify(store, secret).revoked == "alices-assistant"
    assert len(seen) == 2


def test_bad_input_in_the_dialog_gets_a_message_and_writes_nothing(
        qtbot, store: MemoryStore) -> None:
    d = TokensDialog(store, confirm=lambda _n: True)
    qtbot.addWidget(d)
    d.name.setText("has space")
    d.users.setText("alice")
    d.create_button.click()
    assert "not usable" in d.message.text() and d.secret.text() == ""
    d.name.setText("ok-name")
    d.users.setText(" , ")
    d.create_button.click()
    assert "at least one user" in d.message.text()
    d.users.setText("alice")
    for box in d.rights.values():
        box.setChecked(False)
    d.create_button.click()
    assert "at least one right" in d.message.text()
    d.revoke_button.click()
    assert "Select a token" in d.message.text()
    assert tokens.list_tokens(store) == []


def test_a_declined_revocation_changes_nothing(qtbot, store: MemoryStore) -> None:
    tokens.add_token(store, "keep-me", ["bob"], ["read"])
    d = TokensDialog(store, confirm=lambda _n: False)
    qtbot.addWidget(d)
    d.table.selectRow(0)
    d.revoke_button.click()
    assert tokens.list_tokens(store)[0].active


def test_pause_and_resume_the_selected_token(qtbot, store: MemoryStore) -> None:
    """Pause keeps the secret and refuses its calls until Resume; both are audited and
    broadcast; a revoked token cannot be paused (the button is off)."""
    seen: list[Changes] = []
    secret = tokens.add_token(store, "bot", ["alice"], ["read"]).secret
    tokens.add_token(store, "old", ["alice"], ["read"])
    tokens.revoke_token(store, "old")
    d = TokensDialog(store, on_changed=seen.append, confirm=lambda _n: True)
    qtbot.addWidget(d)
    assert not d.pause_button.isEnabled()  # nothing selected
    d.table.selectRow(0)
    assert d.pause_button.text() == "Pause selected" and d.pause_button.isEnabled()
    d.pause_button.click()
    assert rows(d)[0][3].startswith("paused ") and "refused until" in d.message.text()
    assert tokens.verify(store, secret).token.paused  # same secret, paused
    assert d.pause_button.text() == "Resume selected"
    d.pause_button.click()
    assert rows(d)[0][3] == "active" and not tokens.verify(store, secret).token.paused
    assert [c.action.name for c in seen] == ["token_pause", "token_resume"]
    d.table.selectRow(1)  # the revoked one
    assert rows(d)[1][3].startswith("revoked") and not d.pause_button.isEnabled()


def test_the_dialog_takes_the_room_the_screen_has(qtbot, store: MemoryStore) -> None:
    d = TokensDialog(store, confirm=lambda _n: True)
    qtbot.addWidget(d)
    room = d.screen().availableGeometry()
    assert d.width() >= min(1000, room.width() - 40) > 640  # not its bare minimum
    assert d.width() <= room.width() and d.height() <= room.height()
