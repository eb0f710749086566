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
    with op.batch_alter_table("classes") as batch:
        batch.add_column(sa.Column("revealed_steps", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_classes_text", "classes", ["text"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("browser_digest", sa.String(64), nullable=True))
        batch.add_column(sa.Column("address_digest", sa.String(64), nullable=True))
        batch.create_unique_constraint("uq_seat_browser", ["class_id", "browser_digest"])
    op.create_index("ix_seats_address", "seats", ["class_id", "address_digest"])


def downgrade() -> None:
    op.drop_index("ix_seats_address", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_constraint("uq_seat_browser", type_="unique")
        batch.drop_column("address_digest")
        batch.drop_column("browser_digest")
    op.drop_index("ix_classes_text", "classes")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("revealed_steps")
