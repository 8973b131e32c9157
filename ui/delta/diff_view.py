"""Diff view: one memory transition — candidate deltas (coloured by change type),
source influence bars, the health figures with the risk formula filled in, warnings,
the decision and the search bias.  Shows a DeltaDiff it is given; computing it is the
caller's job (off the GUI thread)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from memdesk.core.delta.contracts import DeltaDiff
from memdesk.core.delta.health import formula_text
from memdesk.core.delta.snapshots import DiffRecord
from memdesk.ui.delta.models import HEALTH_COLOURS, SORT_ROLE, CandidateDeltaModel, source_colour
from memdesk.ui.desk.text import plain_label


class InfluenceBars(QWidget):
    """Horizontal bars: each source's share of the change (attribution)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.influence: dict[str, float] = {}
        self.has_diff = False  # nothing chosen yet: say nothing rather than "no influence"
        self.setMinimumHeight(24)

    def set_influence(self, influence: dict[str, float], *, has_diff: bool = True) -> None:
        self.has_diff = has_diff
        self.influence = dict(sorted(influence.items(), key=lambda kv: -kv[1]))
        self.setMinimumHeight(max(24, 22 * len(self.influence) + 4))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(260, max(24, 22 * len(self.influence) + 4))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = p.fontMetrics()
        if not self.influence:
            message = ("nothing changed: no influence to attribute" if self.has_diff
                       else "–")
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       message)
            p.end()
            return
        label_w = max(fm.horizontalAdvance(s) for s in self.influence) + 8
        value_w = fm.horizontalAdvance("100%") + 8
        bar_w = max(10, self.width() - label_w - value_w - 4)
        names = list(self.influence)
        for i, (name, v) in enumerate(self.influence.items()):
            y = 2 + i * 22
            p.setPen(self.palette().text().color())
            p.drawText(QRectF(0, y, label_w, 18),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
            p.fillRect(QRectF(label_w, y + 2, bar_w, 14), QColor(235, 235, 235))
            p.fillRect(QRectF(label_w, y + 2, bar_w * max(0.0, min(1.0, v)), 14),
                       source_colour(name, names))
            p.drawText(QRectF(label_w + bar_w + 4, y, value_w, 18),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"{v:.0%}")
        p.end()


class DiffView(QWidget):
    """Shows one diff it is given; reads nothing itself."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff: DeltaDiff | None = None
        self.title = plain_label("Select a snapshot or a queued change to see its diff.")
        self.title.setWordWrap(True)
        f = self.title.font()
        f.setBold(True)
        self.title.setFont(f)

        self.model = CandidateDeltaModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(True)
        # Figures as wide as their values, the memory's text takes the rest (it was
        # cut at about 25 characters with fixed widths in a narrow pane).
        for col in range(5):
            hh.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)

        self.bars = InfluenceBars()
        self.fig = {k: plain_label("–") for k in (
            "dominant", "aggregate", "cause", "dominance", "volatility", "drift",
            "contradiction", "confidence",
        )}
        self.status = plain_label("")
        self.formula = plain_label("")
        self.warnings = plain_label("")
        self.decision = plain_label("")
        self.bias = plain_label("")
        self.review = plain_label("")

        health = QGroupBox("Health")
        form = QFormLayout(health)
        form.addRow("Status", self.status)
        for key, label in (("dominance", "Dominance"), ("volatility", "Volatility"),
                           ("drift", "Drift"), ("contradiction", "Contradiction"),
                           ("confidence", "Confidence")):
            form.addRow(label, self.fig[key])
        risk = QGroupBox("Risk")
        rform = QFormLayout(risk)
        rform.addRow(self.formula)
        rform.addRow("Warnings", self.warnings)

        change = QGroupBox("Change")
        cform = QFormLayout(change)
        cform.addRow("Dominant source", self.fig["dominant"])
        cform.addRow("Aggregate Δ", self.fig["aggregate"])
        cform.addRow("Primary cause", self.fig["cause"])
        cform.addRow("Source influence", self.bars)

        # A box layout (not a form) so these long, wrapping labels get their height.
        gov = QGroupBox("Decision")
        glay = QVBoxLayout(gov)
        for wrapped in (self.decision, self.bias, self.review):
            wrapped.setWordWrap(True)
            wrapped.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            glay.addWidget(wrapped)
        glay.addStretch(1)

        side = QWidget()
        side_l = QVBoxLayout(side)
        side_l.setContentsMargins(0, 0, 0, 0)
        # Verdict first, side by side: in a short (240 px) pane Health and Decision are
        # above the fold; the risk formula and the change's details come after.
        verdict = QHBoxLayout()
        verdict.addWidget(health, 1)
        verdict.addWidget(gov, 1)
        side_l.addLayout(verdict)
        side_l.addWidget(risk)
        side_l.addWidget(change)
        side_l.addStretch(1)

        # Labels do not word-wrap (QFormLayout does not honour heightForWidth, so wrapped
        # rows overlap); long lines are broken explicitly and the panel scrolls instead.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(side)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        lay.addLayout(top)
        lay.addWidget(split, 1)

    def clear(self, message: str = "Select a snapshot or a queued change to see its diff.") -> None:
        self.diff = None
        self.title.setText(message)
        self.model.set_rows([])
        self.bars.set_influence({}, has_diff=False)

    def show_diff(self, d: DeltaDiff, record: DiffRecord | None = None,
                  title: str | None = None) -> None:
        self.diff = d
        self.title.setText(title or f"Diff {d.before_id[:12]} → {d.after_id[:12]}")
        self.model.set_rows(d.candidate_deltas)
        # Keep the core's order (largest change first) until the operator sorts.
        self.proxy.sort(-1)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        h = d.health
        self.fig["dominant"].setText(
            f"{d.before_dominant_source or '-'} → {d.after_dominant_source or '-'}"
            + ("  (changed)" if d.changed_dominant_source else "")
        )
        self.fig["aggregate"].setText(f"{d.aggregate_score_delta:+.3f}")
        self.fig["cause"].setText(d.attribution.primary_cause_source or "-")
        self.bars.set_influence(d.attribution.source_influence)
        for key, v in (("dominance", h.dominance_score), ("volatility", h.volatility_score),
                       ("drift", h.drift_score), ("contradiction", h.contradiction_score),
                       ("confidence", h.confidence_score)):
            self.fig[key].setText(f"{v:.3f}")
        self.status.setText(f"{h.status.value} (risk {h.risk_score:.3f})")
        colour = HEALTH_COLOURS[h.status.value]
        self.status.setStyleSheet(f"color: {colour.name()}; font-weight: bold")
        self.formula.setText(formula_text(h).replace(" (healthy", "\n(healthy"))
        self.warnings.setText("\n".join(h.warnings) or "none")
        dec = d.decision
        text = f"Recommended: {dec.action.value} — {dec.reason}"
        if dec.source_to_review:
            text += f"\nreview source: {dec.source_to_review}"
        if dec.recommended_weight_adjustments:
            text += "\nweight change: " + ", ".join(
                f"{s} {v:+.2f}" for s, v in dec.recommended_weight_adjustments.items())
        self.decision.setText(text)
        b = d.bias
        parts = [f"depth {b.depth_hint}"]
        if b.should_rerun:
            parts.append("rerun")
        if b.should_stop:
            parts.append("stop")
        if b.preferred_sources:
            parts.append("prefer " + ", ".join(b.preferred_sources))
        if b.suppressed_sources:
            parts.append("suppress " + ", ".join(b.suppressed_sources))
        if b.query_expansions:
            parts.append("expand: " + ", ".join(b.query_expansions))
        self.bias.setText("Search bias: " + "; ".join(parts) + f". {b.reason}")
        if record is None:
            self.review.setText("Review: not stored (computed on demand)")
        elif record.review == "none":
            self.review.setText("Review: healthy, not queued")
        else:
            note = f" — {record.review_note}" if record.review_note else ""
            self.review.setText(f"Review: {record.review}{note}")

