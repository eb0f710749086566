"""Alembic's environment: run on the connection classroom.database.migrate hands over (online mode only)."""

from alembic import context

from classroom.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
