"""Alembic migrations for the memdesk store, run programmatically by memdesk.core.store.schema."""
