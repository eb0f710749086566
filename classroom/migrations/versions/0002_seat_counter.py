"""A counter of seats given on each class: a seat's number is taken by one UPDATE … RETURNING, so students
joining at once never race for the same number.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.add_column(sa.Column("seats_given", sa.Integer, nullable=False, server_default="0"))
    op.execute("UPDATE classes SET seats_given = (SELECT COALESCE(MAX(seats.number), 0) FROM seats "
               "WHERE seats.class_id = classes.id)")


def downgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("seats_given")
