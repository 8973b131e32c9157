"""The browser's table shows an override or an invisible character in a cell as
⟨U+XXXX⟩ instead of obeying it, and leaves genuine writing as it is (offscreen Qt)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from memdesk.core.store.memory_store import MemoryStore
from memdesk.ui.browse.browser import BrowserView
from memdesk.ui.browse.browser_model import COLUMN_KEYS

pytestmark = pytest.mark.gui


def test_cells_reveal_overrides_and_keep_real_writing(qtbot, store: MemoryStore,
                                                      desk_for) -> None:  # type: ignore[no-untyped-def]
    store.add(user_id="\u202eevil-user.exe", text="Invoice: report\u202egpj.exe", type="note",
              topic="pay\u200broll", source_session="s\nplit")
    store.add(user_id="ana", text="המשפחה שלי 👨\u200d👩\u200d👧", type="note")
    view = BrowserView(desk_for(store))
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: not view.model.loading and view.model.total == 2, timeout=10_000)
    m = view.model
    rows = {m.row_at(r).user_id: r for r in range(m.rowCount())}

    def cell(user: str, key: str) -> str:
        return m.index(rows[user], COLUMN_KEYS.index(key)).data(Qt.ItemDataRole.DisplayRole)

    tricky = "\u202eevil-user.exe"
    assert cell(tricky, "user_id") == "⟨U+202E⟩evil-user.exe"
    assert cell(tricky, "text") == "Invoice: report⟨U+202E⟩gpj.exe"
    assert cell(tricky, "topic") == "pay⟨U+200B⟩roll"
    assert cell(tricky, "source_session") == "s⟨U+000A⟩plit"  # one row, one line
    assert cell("ana", "text") == "המשפחה שלי 👨\u200d👩\u200d👧"
    tip = m.index(rows[tricky], COLUMN_KEYS.index("text")).data(Qt.ItemDataRole.ToolTipRole)
    assert "report⟨U+202E⟩gpj.exe" in tip and "\u202e" not in tip  # the whole value, shown
