"""The main window: sidebar, menus, status bar, palette, settings, about, and creating the
demo store."""
