"""Column widths that survive long values.

ResizeToContents lets one long entity or user id push every other column off screen
for every row.  Here a column takes its contents' width up to a cap (in average
characters), the view elides in the middle (both ends of an id or a path stay
readable), and the model's tooltip holds the whole value."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableView


def capped_columns(table: QTableView, caps: dict[int, int], stretch: int | None = None) -> None:
    """Fit ``caps``' columns to their contents, at most ``caps[col]`` characters wide,
    now and after every reset or insert; ``stretch`` takes the remaining width."""
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    header = table.horizontalHeader()
    for col in caps:
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
    if stretch is not None:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    char = table.fontMetrics().averageCharWidth()

    def fit() -> None:
        for col, cap in caps.items():
            table.resizeColumnToContents(col)
            table.setColumnWidth(col, min(table.columnWidth(col), cap * char + 16))

    model = table.model()
    model.modelReset.connect(fit)
    model.rowsInserted.connect(lambda *_: fit())
    model.layoutChanged.connect(fit)
    fit()
