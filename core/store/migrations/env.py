"""Alembic environment: always run on the connection memdesk.core.store.schema hands in."""

from alembic import context

import memdesk.core.curation.models  # registers the curation tables on Base
import memdesk.core.delta.models  # registers the delta tables on Base
import memdesk.core.read.models  # noqa: F401  (registers the read-path tables on Base)
from memdesk.core.store.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
