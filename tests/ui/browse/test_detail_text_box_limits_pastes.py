"""Pasting into the detail pane's Text box: over the store's limit it is refused at
once, saying why (the window froze 15–19 s laying out 200,000 characters, refused only
on Apply); up to the limit it is laid out quickly even without a single space."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QMimeData

from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.taxonomy import MAX_TEXT_CHARS
from memdesk.ui.browse.browser import BrowserView

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("isolated_settings")]


@pytest.fixture
def view(qtbot, store: MemoryStore, desk_for) -> BrowserView:
    store.add(user_id="ana", text="User prefers tea.", type="fact", importance=0.5)
    v = BrowserView(desk_for(store))
    qtbot.addWidget(v)
    v.resize(1280, 700)
    v.show()
    qtbot.waitUntil(lambda: v.detail.record is not None, timeout=10_000)
    return v


def paste(view: BrowserView, text: str) -> float:
    box = view.detail.text
    box.selectAll()
    data = QMimeData()
    data.setText(text)
    start = time.perf_counter()
    box.insertFromMimeData(data)
    box.repaint()  # the layout happens here
    return time.perf_counter() - start


def test_a_paste_over_the_limit_is_refused_with_the_reason(qtbot, view: BrowserView) -> None:
    took = paste(view, "x" * 200_000)
    assert took < 2.0
    assert view.detail.text.toPlainText() == "User prefers tea."
    note = view.detail.input_note
    assert note.isVisibleTo(view) and "200,000" in note.text() and "100,000" in note.text()


def test_a_long_text_without_spaces_is_laid_out_quickly(qtbot, view: BrowserView) -> None:
    took = paste(view, "x" * (MAX_TEXT_CHARS - 10))
    assert len(view.detail.text.toPlainText()) == MAX_TEXT_CHARS - 10
    assert took < 2.5, f"{took:.1f} s to lay out the pasted text"
    assert not view.detail.input_note.isVisibleTo(view)
