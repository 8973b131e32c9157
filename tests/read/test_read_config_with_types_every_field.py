"""``ReadConfig.with_`` declares each field's type to the type checker (ReadConfigChanges).

The declaration is written out beside the dataclass, so a field added to one and not the
other would leave ``with_(new_field=…)`` unchecked, or rejected by mypy for no reason.
"""

from __future__ import annotations

import typing
from dataclasses import fields

from memdesk.core.read.config import ReadConfig, ReadConfigChanges


def test_with_declares_every_field_with_its_type() -> None:
    config = typing.get_type_hints(ReadConfig)
    declared = typing.get_type_hints(ReadConfigChanges)
    assert declared == {f.name: config[f.name] for f in fields(ReadConfig)}

