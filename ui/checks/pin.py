""""Pin as a check" (the Retrieval inspector): the inspected query, its user and the
selected result rows become a recall check, after a dialog that lists what it will
expect.  The check replays the agents' default retrieval (all channels, preferences
injected, the top 10), whatever the inspector was set to; the dialog says so when the
inspection differed.  Adding is one undoable action of the desk (Ctrl+Z), and the new
check runs once at once so its first result is known.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from memdesk.core.read.checks import AddedCheck, K, RecallChecks
from memdesk.ui.desk.actions import Desk, Op
from memdesk.ui.desk.ops import TaskState
from memdesk.ui.desk.text import elide, isolate, plain_label


class PinDialog(QDialog):
    """Confirms a new check: user, query, and each memory it will expect."""

    def __init__(self, user: str, query: str, expect: Sequence[tuple[str, str]],
                 differs: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Pin as a check")
        lines = [f"User: {isolate(user)}", f"Query: {isolate(elide(query, 300))}", "",
                 f"The agents' default retrieval (top {K}) must return:"]
        lines += [f"  • {mid}  {isolate(elide(text, 120))}" for mid, text in expect]
        if differs:
            lines += ["", differs]
        self.summary = plain_label("\n".join(lines))
        self.summary.setWordWrap(True)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                               | QDialogButtonBox.StandardButton.Cancel)
        ok = box.button(QDialogButtonBox.StandardButton.Ok)
        if ok is not None:
            ok.setText("Pin check")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(box)


def pin(desk: Desk, user: str, query: str, expect: Sequence[tuple[str, str]],
        differs: str = "", parent: QWidget | None = None) -> PinDialog:
    """Open the confirmation (not blocking); on OK the check is added through the desk."""
    dialog = PinDialog(user, query, expect, differs, parent)
    store = desk.store
    ids = [mid for mid, _ in expect]

    def work(state: TaskState) -> AddedCheck:
        checks = RecallChecks(store)
        added = checks.add(user, query, ids)
        checks.run([added.check.id])  # its first verdict, so a later break is seen
        return added

    dialog.accepted.connect(lambda: desk.run(Op(
        f"Pin check: {elide(query, 40)}", work, background=True,
        changes=lambda added: added.changes)))
    dialog.open()
    return dialog
