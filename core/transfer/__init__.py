"""Moving memories in and out of a store: memdesk's JSON Lines (export and import),
and imports from Mem0's ``get_all`` export and from a Recall SQLite file.

Everything here is core (no Qt): the CLI (``memdesk export`` / ``memdesk import``) and
the GUI's File menu call the same functions, passing a progress callback and a
cancel check.  The field mapping of each source is in docs/import-export.md.
"""
