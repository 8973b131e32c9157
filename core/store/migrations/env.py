"""Alembic environment: always run on the connection memdesk.core.store.schema hands in."""

from alembic import context

# Each feature's tables register on Base when their models module is imported.
import memdesk.core.curation.models
import memdesk.core.delta.models
import memdesk.core.guard.models
import memdesk.core.read.models
import memdesk.core.write.models  # noqa: F401
from memdesk.core.store.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
