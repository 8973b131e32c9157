"""Operator settings persisted with QSettings, and the Settings dialog that edits them.

``Settings`` is a thin typed view over one QSettings object (no cached state, so two
windows never disagree): the store opened at start-up, the Ollama host, the
low-confidence threshold, recent stores and the user's saved browser filters (JSON, see
memdesk.ui.browse.filters).  Every setting here is read somewhere; the delta-memory dominance
threshold is a setting of each store (Drift review → sources), not of the desk.

``Settings()`` uses the organisation and application name "memdesk" explicitly, so it
never depends on (or falls back from) QApplication's names; ``MEMDESK_CONFIG_DIR``
moves the file elsewhere (scripts, demos and tests keep the operator's profile clean).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, SupportsFloat
from urllib.parse import urlsplit

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from memdesk.core.taxonomy import LOW_CONFIDENCE
from memdesk.ui.desk.text import plain_label

DEFAULT_OLLAMA_HOST = "http://localhost:11434"
MAX_RECENT = 8
CONFIG_DIR_ENV = "MEMDESK_CONFIG_DIR"


def default_qsettings() -> QSettings:
    """The operator's settings file (or one in ``$MEMDESK_CONFIG_DIR``)."""
    folder = os.environ.get(CONFIG_DIR_ENV)
    if folder:
        return QSettings(str(Path(folder) / "memdesk.ini"), QSettings.Format.IniFormat)
    return QSettings("memdesk", "memdesk")


class Settings:
    """Typed accessors over QSettings; every getter falls back to a sane default when
    the stored value is missing or garbage (a hand-edited ini must not crash the app)."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self.q = qsettings if qsettings is not None else default_qsettings()

    # -- scalars --------------------------------------------------------------
    def _float(self, key: str, default: float) -> float:
        raw = self.q.value(key, default)  # typed object: an ini holds strings
        if not isinstance(raw, (str, bytes, SupportsFloat)):
            return default
        try:
            v = float(raw)
        except (TypeError, ValueError):
            return default
        return v if math.isfinite(v) and 0.0 <= v <= 1.0 else default

    def _str(self, key: str, default: str) -> str:
        v = self.q.value(key, default)
        return v if isinstance(v, str) and v.strip() else default

    @property
    def store_path(self) -> str:
        return self._str("store/path", "")

    @store_path.setter
    def store_path(self, v: str) -> None:
        self.q.setValue("store/path", v)

    @property
    def ollama_host(self) -> str:
        return self._str("ollama/host", DEFAULT_OLLAMA_HOST)

    @ollama_host.setter
    def ollama_host(self, v: str) -> None:
        self.q.setValue("ollama/host", v)

    @property
    def low_confidence(self) -> float:
        return self._float("thresholds/low_confidence", LOW_CONFIDENCE)

    @low_confidence.setter
    def low_confidence(self, v: float) -> None:
        self.q.setValue("thresholds/low_confidence", float(v))

    # -- lists ----------------------------------------------------------------
    def _json(self, key: str, default: Any) -> Any:
        raw = self.q.value(key, "")
        if not isinstance(raw, str) or not raw:
            return default
        try:
            return json.loads(raw)
        except ValueError:
            return default

    @property
    def recent_stores(self) -> list[str]:
        v = self._json("store/recent", [])
        return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []

    def add_recent(self, path: str) -> None:
        items = [p for p in self.recent_stores if p != path]
        items.insert(0, path)
        self.q.setValue("store/recent", json.dumps(items[:MAX_RECENT]))

    @property
    def saved_filters(self) -> dict[str, dict[str, Any]]:
        v = self._json("browser/saved_filters", {})
        return {k: d for k, d in v.items() if isinstance(d, dict)} if isinstance(v, dict) else {}

    def save_filter(self, name: str, data: dict[str, Any]) -> None:
        items = self.saved_filters
        items[name] = data
        self.q.setValue("browser/saved_filters", json.dumps(items, ensure_ascii=False))

    def delete_filter(self, name: str) -> None:
        items = self.saved_filters
        items.pop(name, None)
        self.q.setValue("browser/saved_filters", json.dumps(items, ensure_ascii=False))

    def sync(self) -> None:
        self.q.sync()


class SettingsDialog(QDialog):
    """Edits Settings; nothing is written unless the operator presses OK."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.store_path = QLineEdit(settings.store_path)
        self.store_path.setPlaceholderText("(the default store in the user data folder)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._pick)
        path_row = QHBoxLayout()
        path_row.addWidget(self.store_path, 1)
        path_row.addWidget(browse)
        self.ollama_host = QLineEdit(settings.ollama_host)
        self.low_conf = self._unit(settings.low_confidence)
        form = QFormLayout(self)
        form.addRow("Store opened at start", path_row)
        form.addRow("Ollama host", self.ollama_host)
        form.addRow("Low confidence below", self.low_conf)
        from memdesk.core.store.backup import backup_root

        self.backups = plain_label(str(backup_root()))  # automatic backups (docs/sqlite.md)
        self.backups.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Backups folder", self.backups)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.message = plain_label("")
        self.message.setObjectName("settings-message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #a40000")
        self.message.hide()
        form.addRow(self.message)
        form.addRow(buttons)

    @staticmethod
    def _unit(value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(0.0, 1.0)
        box.setSingleStep(0.05)
        box.setDecimals(2)
        box.setValue(value)
        return box

    def _pick(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Default store", self.store_path.text(), "memdesk stores (*.db);;All files (*)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.store_path.setText(path)

    def problem(self) -> tuple[QLineEdit, str] | None:
        """What is wrong with the form, and in which box (None: nothing)."""
        path = self.store_path.text().strip()
        if path and "://" not in path:  # a database URL is checked when it is opened
            where = Path(path).expanduser()
            if where.is_dir():
                return self.store_path, (f"{path} is a folder; name the store's file in it "
                                         "(e.g. memories.db).")
            if not where.parent.is_dir():
                return self.store_path, (f"The folder {where.parent} does not exist; "
                                         "create it first or choose another place.")
        host = self.ollama_host.text().strip()
        if host:
            url = urlsplit(host)
            if (url.scheme not in ("http", "https") or not url.hostname
                    or any(c.isspace() or c in "<>\"'" for c in host)):
                return self.ollama_host, ("The Ollama host must be a web address such as "
                                          f"{DEFAULT_OLLAMA_HOST}, not {host!r}.")
        return None

    def accept(self) -> None:
        wrong = self.problem()
        if wrong is not None:  # said in the dialog, which stays open with the input
            box, message = wrong
            self.message.setText(message)
            self.message.show()
            box.setFocus()
            box.selectAll()
            return
        s = self.settings
        s.store_path = self.store_path.text().strip()
        s.ollama_host = self.ollama_host.text().strip() or DEFAULT_OLLAMA_HOST
        s.low_confidence = self.low_conf.value()
        s.sync()
        super().accept()
