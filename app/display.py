"""Before the GUI starts: is there a display, and can Qt's platform plugin load?

Without either, Qt aborts the process (exit 134) with a misleading hint ("xcb-cursor0
is needed") whatever is really missing.  ``platform_problem`` finds out first and says
what to do: run headless, or install the libraries ``ldd`` reports missing.  It costs a
dlopen of the plugin Qt would load anyway, and runs only on Linux with X11.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

# The Debian/Ubuntu package of each library the xcb plugin links (checked with ldd).
DEB_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libfreetype.so.6": "libfreetype6",
    "libxkbfile.so.1": "libxkbfile1",
}

# What a minimal Debian 12 lacks for the window to open (measured there with ldd and
# QT_DEBUG_PLUGINS=1 under Xvfb).  Said whole: naming only what ldd reports first sends
# the operator round the install-and-retry loop once per library.
MINIMAL_DEBIAN_12 = (
    "libxcb-cursor0", "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1",
    "libxcb-render-util0", "libxcb-shape0", "libxcb-xinerama0", "libxcb-xkb1",
    "libxcb-randr0", "libxkbcommon-x11-0", "libegl1", "libgl1", "libglib2.0-0",
    "libfontconfig1", "libdbus-1-3",
)

HEADLESS = (
    "To run without a display:\n"
    "  QT_QPA_PLATFORM=offscreen memdesk --demo   (renders nothing on screen; for scripts)\n"
    "  xvfb-run memdesk --demo                    (a virtual X display)\n"
    "The command-line interface needs no display: memdesk --help"
)


def xcb_plugin() -> Path | None:
    """PySide6's X11 platform plugin, if this PySide6 ships one."""
    try:
        import PySide6
    except ImportError:
        return None
    path = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return path if path.exists() else None


def missing_libraries(plugin: Path) -> list[str]:
    """Shared libraries ``plugin`` needs that the loader cannot find (empty: it loads)."""
    try:
        ctypes.CDLL(str(plugin))
        return []
    except OSError as exc:
        first = str(exc)
    try:
        out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return [first]
    missing = [line.split("=>")[0].strip() for line in out.splitlines()
               if "not found" in line]
    return list(dict.fromkeys(missing)) or [first]


def platform_problem(env: Mapping[str, str] | None = None) -> str | None:
    """None when the GUI can start here; otherwise what is wrong and what to do."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return None
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith(("xcb", "wayland")):
        return None  # offscreen, vnc, eglfs…: the operator chose it
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return "memdesk: no display found (DISPLAY and WAYLAND_DISPLAY are not set).\n" + HEADLESS
    if platform.startswith("wayland") or not env.get("DISPLAY"):
        return None  # Qt's Wayland plugin reports its own problems clearly
    plugin = xcb_plugin()
    if plugin is None:
        return None
    missing = missing_libraries(plugin)
    if not missing:
        return None
    packages = sorted({DEB_PACKAGES[m] for m in missing if m in DEB_PACKAGES})
    lines = [f"memdesk: Qt's X11 platform plugin cannot load ({plugin.name}); "
             "these libraries are missing:"]
    lines += [f"  {m}" for m in missing]
    if packages:
        lines.append("On Debian or Ubuntu, these provide them: sudo apt-get install "
                     + " ".join(packages))
    lines.append("On a minimal Debian 12, the whole set the window needs (as README.md "
                 "lists it):\n  sudo apt-get install " + " ".join(MINIMAL_DEBIAN_12))
    lines.append(HEADLESS)
    return "\n".join(lines)
