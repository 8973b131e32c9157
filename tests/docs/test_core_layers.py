"""Inside the core, packages import only downwards, and the write path reaches the guard
only through the guard's interface (pyproject.toml's "core-layers" and
"write-uses-guard-interface" contracts).

Checked on the real code, and on a throw-away copy of the core's shape that brings back
each loop the layering removed (the store importing the generic undo, the guard
importing the job queue, the worker importing the guard's origin module): each must be
reported, so a contract that checks nothing fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.layering import ROOT, lint_fake_tree, lint_imports

LAYERS = "memdesk.core's packages import only downwards"
GUARD = "the write path uses the guard only through memdesk.core.guard's interface"


def test_core_layer_contracts_hold_on_the_code() -> None:
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{LAYERS} KEPT" in r.stdout and f"{GUARD} KEPT" in r.stdout


PACKAGES = ("demo", "undo", "preview", "erasure", "curation", "delta", "read", "transfer",
            "write", "store")
MODULES = ("embeddings", "routing", "taxonomy", "ids", "errors", "onnx_encoder")
CLEAN = {
    "core/__init__.py": "",
    **{f"core/{p}/__init__.py": "" for p in PACKAGES},
    **{f"core/{m}.py": "" for m in MODULES},
    "core/undo/generic.py": "from fakedesk.core.undo import registry\n",
    "core/undo/registry.py": ("from fakedesk.core.write import jobs\n"
                              "from fakedesk.core.store import audit\n"),
    "core/store/audit.py": "from fakedesk.core import errors\n",
    "core/store/memory_store.py": "from fakedesk.core.store import audit\n",
    "core/write/jobs.py": "from fakedesk.core.store import audit\n",
    "core/write/worker.py": "from fakedesk.core.guard import screen_job_in\n",
    "core/guard/__init__.py": "from fakedesk.core.guard.screen import screen_job_in\n",
    "core/guard/screen.py": "from fakedesk.core.guard import origin\nscreen_job_in = None\n",
    "core/guard/origin.py": "from fakedesk.core.store import audit\n",
    "core/guard/agent_api.py": "", "core/guard/models.py": "", "core/guard/review.py": "",
    "core/guard/rules.py": "",
    "core/store/migrations/__init__.py": "",
    "core/store/migrations/env.py": "import fakedesk.core.write.models\n",
    "core/write/models.py": "",
}
BREAKS = {  # name -> (file, added line, what import-linter must report)
    "store-imports-undo": ("core/store/memory_store.py", "from fakedesk.core import undo",
                           "fakedesk.core.store.memory_store -> fakedesk.core.undo"),
    "guard-imports-jobs": ("core/guard/origin.py", "from fakedesk.core.write import jobs",
                           "fakedesk.core.guard.origin -> fakedesk.core.write.jobs"),
    "worker-imports-origin": ("core/write/worker.py", "from fakedesk.core.guard import origin",
                              "fakedesk.core.write is not allowed to import "
                              "fakedesk.core.guard.origin"),
    "delta-imports-curation": ("core/delta/__init__.py", "import fakedesk.core.curation",
                               "fakedesk.core.delta -> fakedesk.core.curation"),
    "unplaced-module": ("core/newthing.py", "", "newthing"),
}


@pytest.mark.parametrize("case", [None, *BREAKS])
def test_core_layer_contracts_catch_loops(tmp_path: Path, case: str | None) -> None:
    files = dict(CLEAN)
    if case is not None:
        name, line, _ = BREAKS[case]
        files[name] = files.get(name, "") + line + "\n"
    files.update({"ui/__init__.py": "", "app/__init__.py": ""})
    r = lint_fake_tree(tmp_path, files, ("core-layers", "write-uses-guard-interface"))
    if case is None:
        assert r.returncode == 0 and "2 kept, 0 broken" in r.stdout, r.stdout + r.stderr
        return
    assert r.returncode == 1, r.stdout + r.stderr
    assert BREAKS[case][2] in r.stdout + r.stderr, r.stdout + r.stderr
