"""The sweep's decisions as buttons, for an operator who reviews with the mouse.

Each button does what its key does (the key is in its label and tooltip).  The buttons
take no focus, so after a click the keys go on working in the review pane."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from memdesk.ui.desk.flow_layout import FlowLayout
from memdesk.ui.desk.text import plain_label


def decision_buttons(review: Any) -> tuple[FlowLayout, dict[str, QPushButton]]:
    """A row of buttons for ``review`` (the sweep's review pane: ``view.decide``,
    ``view.undo``, ``view.pause`` and its ``note`` field).  The row wraps in a narrow
    window (a one-line row made the window at least 1,070 px wide)."""
    row = FlowLayout()
    made: dict[str, QPushButton] = {}

    def button(name: str, text: str, tip: str, fn: Callable[[], object]) -> None:
        b = QPushButton(text)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.setToolTip(tip)
        b.clicked.connect(lambda _=False: fn())
        made[name] = b
        row.addWidget(b)

    def note() -> None:
        review.note.show()
        review.note.setFocus()

    button("keep", "Keep  (K)", "Keep the importance as it is",
           lambda: review.view.decide("keep"))
    row.addWidget(plain_label("Importance:"))
    for d in range(1, 11):
        value = d / 10
        b_name = f"revalue {value:.1f}"
        button(b_name, f"{value:.1f}", f"Revalue to {value:.1f} (key {d % 10})",
               partial(review.view.decide, "revalue", value))
        made[b_name].setMaximumWidth(made[b_name].fontMetrics().horizontalAdvance("0.00") + 18)
    button("skip", "Skip  (S)", "Decide later: skip this item",
           lambda: review.view.decide("skip"))
    button("note", "Note…  (N)", "Write a note for the next decision", note)
    button("undo", "Undo  (U)", "Undo the latest decision", lambda: review.view.undo())
    button("pause", "Pause  (Esc)", "Pause the sweep (resume it later)",
           lambda: review.view.pause())
    return row, made
