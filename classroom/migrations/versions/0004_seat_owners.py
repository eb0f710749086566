"""Whose each seat is, and which answers a class has revealed (issue 63).

A seat keeps keyed digests of the browser that took it (one seat per browser in a class, handed back to any of
its tabs) and of its address (seats from one network are capped), never the raw address. A class keeps the
steps whose answer its teacher has revealed, and its text is indexed: the Lesson page asks whether a live class
on its text still holds a step's answer back.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN and CREATE INDEX, never a batch that rebuilds a table: on SQLite a rebuild drops
    # the old table, and with foreign keys on (classroom.database) that deletes every vote and quiz answer of its
    # seats through their ON DELETE CASCADE. The one seat a browser is a unique index for the same reason.
    op.add_column("classes", sa.Column("revealed_steps", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_classes_text", "classes", ["text"])
    op.add_column("seats", sa.Column("browser_digest", sa.String(64), nullable=True))
    op.add_column("seats", sa.Column("address_digest", sa.String(64), nullable=True))
    op.create_index("uq_seat_browser", "seats", ["class_id", "browser_digest"], unique=True)
    op.create_index("ix_seats_address", "seats", ["class_id", "address_digest"])


def downgrade() -> None:
    op.drop_index("ix_seats_address", "seats")
    op.drop_index("uq_seat_browser", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("address_digest")
        batch.drop_column("browser_digest")
    op.drop_index("ix_classes_text", "classes")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("revealed_steps")
