"""The store: opening and migrating the database, the memories table and its audit log,
filters, full-text search and paging.  Everything else in core/ reads and writes through
:class:`memdesk.core.store.memory_store.MemoryStore`."""
