"""The before and after quizzes: where the class is in them, the seed its two quizzes are built from, and each
student's answers, one row per item.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.add_column(sa.Column("quiz_stage", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("quiz_seed", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "quiz_answers",
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("form", sa.String(6), nullable=False),
        sa.Column("seat_id", sa.Integer, sa.ForeignKey("seats.id", ondelete="CASCADE"), nullable=False),
        sa.Column("item", sa.Integer, nullable=False),
        sa.Column("option", sa.String(120), nullable=False),
        sa.Column("answered_at", sa.Float, nullable=False),
        sa.UniqueConstraint("class_id", "form", "seat_id", "item", name="uq_one_answer"),
    )


def downgrade() -> None:
    op.drop_table("quiz_answers")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("quiz_seed")
        batch.drop_column("quiz_stage")
