"""The rooms keep their order: the import circles the rooms layout broke stay broken
(pyproject.toml's "ui-rooms", "ui-sweep-layers", "app-rooms", "app-mcp-layers",
"core-undo-layers" and "read-recorder-below-retriever" contracts).

Checked on the real code, and on a throw-away copy of the rooms' shape that brings back
each circle: the MCP tools importing the server, the Review menu importing the main
window, the sweep's learning panel importing the sweep view, the recorder importing
the retriever, the action registry importing the generic undo, two rooms on one row
importing each other, and a room with no place.  Each must be reported, so a contract
that checks nothing fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.layering import ROOT, lint_fake_tree, lint_imports

CONTRACTS = ("ui-rooms", "ui-sweep-layers", "app-rooms", "app-mcp-layers", "core-undo-layers",
             "read-recorder-below-retriever")
NAMES = (
    "memdesk.ui's rooms import only downwards: the window, the rooms, the desk",
    "the sweep view's pages and learning panel never import the view",
    "memdesk.app imports only downwards: main, the CLI and GUI, the MCP server",
    "the MCP tools never import the server that registers them",
    "the generic undo sits on the action registry's face, never the other way",
    "the retrieval recorder never imports the retriever",
)


def test_room_contracts_hold_on_the_code() -> None:
    r = lint_imports(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in NAMES:
        assert f"{name} KEPT" in r.stdout, (name, r.stdout)


UI_ROOMS = ("window", "retrieval", "jobs", "review", "transfer", "agents", "browse",
            "contradictions", "duplicates", "delta", "checks", "sweep", "store_safety", "desk")
MCP = ("server", "tools_read", "tools_write", "tools_archive", "runtime", "auth", "common",
       "identity", "lines", "models", "pause")
CLEAN = {
    "core/__init__.py": "",
    "core/undo/__init__.py": "",
    "core/undo/generic.py": "from fakedesk.core.undo import registry\n",
    "core/undo/registry.py": "",
    "core/read/__init__.py": "",
    "core/read/result.py": "",
    "core/read/recorder.py": "from fakedesk.core.read import result\n",
    "core/read/retriever.py": "from fakedesk.core.read import recorder, result\n",
    "ui/__init__.py": "",
    **{f"ui/{room}/__init__.py": "" for room in UI_ROOMS},
    "ui/desk/window.py": "",
    "ui/window/main_window.py": ("from fakedesk.ui.review import menu\n"
                                 "from fakedesk.ui.desk import window\n"),
    "ui/review/menu.py": "from fakedesk.ui.desk import window\n",
    "ui/retrieval/view.py": "from fakedesk.ui.browse import browser\n",
    "ui/browse/browser.py": "from fakedesk.ui.sweep import learning\n",
    "ui/sweep/view.py": "from fakedesk.ui.sweep import pages\n",
    "ui/sweep/pages.py": "from fakedesk.ui.sweep import buttons, learning, models\n",
    "ui/sweep/learning.py": "from fakedesk.ui.sweep import host\n",
    "ui/sweep/buttons.py": "", "ui/sweep/models.py": "", "ui/sweep/host.py": "",
    "app/__init__.py": "",
    "app/main.py": "from fakedesk.app import gui, smoke\nfrom fakedesk.app.cli import main\n",
    "app/gui.py": "from fakedesk.app import display\n",
    "app/smoke.py": "", "app/display.py": "",
    "app/cli/__init__.py": "",
    "app/cli/main.py": "from fakedesk.app.mcp import server\n",
    "app/mcp/__init__.py": "",
    **{f"app/mcp/{m}.py": "" for m in MCP},
    "app/mcp/server.py": "from fakedesk.app.mcp import runtime, tools_read, tools_write\n",
    "app/mcp/tools_read.py": "from fakedesk.app.mcp import common, runtime\n",
    "app/mcp/runtime.py": "from fakedesk.app.mcp import identity\n",
}
BREAKS = {  # name -> (file, added line, what import-linter must report)
    "tools-import-server": ("app/mcp/tools_read.py", "from fakedesk.app.mcp import server",
                            "fakedesk.app.mcp.tools_read -> fakedesk.app.mcp.server"),
    "cli-imports-main": ("app/cli/main.py", "import fakedesk.app.main",
                         "fakedesk.app.cli.main -> fakedesk.app.main"),
    "menu-imports-window": ("ui/review/menu.py", "from fakedesk.ui.window import main_window",
                            "fakedesk.ui.review.menu -> fakedesk.ui.window.main_window"),
    "learning-imports-view": ("ui/sweep/learning.py", "from fakedesk.ui.sweep import view",
                              "fakedesk.ui.sweep.learning -> fakedesk.ui.sweep.view"),
    "desk-imports-a-room": ("ui/desk/window.py", "from fakedesk.ui.browse import browser",
                            "fakedesk.ui.desk.window -> fakedesk.ui.browse.browser"),
    "rooms-on-one-row": ("ui/contradictions/__init__.py", "import fakedesk.ui.duplicates",
                         "fakedesk.ui.contradictions -> fakedesk.ui.duplicates"),
    "recorder-imports-retriever": ("core/read/recorder.py",
                                   "from fakedesk.core.read import retriever",
                                   "fakedesk.core.read.recorder -> fakedesk.core.read.retriever"),
    "registry-imports-undo": ("core/undo/registry.py", "from fakedesk.core.undo import generic",
                              "fakedesk.core.undo.registry -> fakedesk.core.undo.generic"),
    "unplaced-room": ("ui/newroom/__init__.py", "", "newroom"),
}


@pytest.mark.parametrize("case", [None, *BREAKS])
def test_room_contracts_catch_circles(tmp_path: Path, case: str | None) -> None:
    files = dict(CLEAN)
    if case is not None:
        name, line, _ = BREAKS[case]
        files[name] = files.get(name, "") + line + "\n"
    r = lint_fake_tree(tmp_path, files, CONTRACTS)
    if case is None:
        assert r.returncode == 0 and f"{len(CONTRACTS)} kept, 0 broken" in r.stdout, (
            r.stdout + r.stderr)
        return
    assert r.returncode == 1, r.stdout + r.stderr
    assert BREAKS[case][2] in r.stdout + r.stderr, r.stdout + r.stderr
