"""Predict, then train (issue 68): the task a class is asked about after the lesson, and the run of the model the
teacher trains on it, which every screen of the class follows, whichever replica serves it.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN only: 0004 says why a table is never rebuilt.
    op.add_column("classes", sa.Column("task", sa.String(400), nullable=True))
    op.add_column("classes", sa.Column("training", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("training")
        batch.drop_column("task")
