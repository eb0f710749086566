"""Classes, their seats and the votes cast in them.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "classes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(6), nullable=False, unique=True),
        sa.Column("secret_digest", sa.String(64), nullable=False),
        sa.Column("text", sa.String(64), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("voting", sa.Boolean, nullable=False),
        sa.Column("spread_shown", sa.Boolean, nullable=False),
        sa.Column("revealed", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("changed_at", sa.Float, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("token_digest", sa.String(64), nullable=False, unique=True),
        sa.Column("nickname", sa.String(24), nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
        sa.UniqueConstraint("class_id", "number", name="uq_seat_number"),
    )
    op.create_index("ix_seats_class_id", "seats", ["class_id"])
    op.create_table(
        "votes",
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("seat_id", sa.Integer, sa.ForeignKey("seats.id", ondelete="CASCADE"), nullable=False),
        sa.Column("option", sa.String(120), nullable=False),
        sa.Column("voted_at", sa.Float, nullable=False),
        sa.UniqueConstraint("class_id", "step", "round", "seat_id", name="uq_one_vote"),
    )


def downgrade() -> None:
    op.drop_table("votes")
    op.drop_index("ix_seats_class_id", "seats")
    op.drop_table("seats")
    op.drop_table("classes")
