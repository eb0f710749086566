"""Which browser started each class (issue 65): its teacher gets the class back after a reload, a sleep or a
replica's death, on the same browser, without the private link. Kept as a keyed digest, as a seat's browser is.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN and CREATE INDEX only: 0004 says why a table is never rebuilt.
    op.add_column("classes", sa.Column("teacher_digest", sa.String(64), nullable=True))
    op.create_index("ix_classes_teacher_digest", "classes", ["teacher_digest"])


def downgrade() -> None:
    op.drop_index("ix_classes_teacher_digest", "classes")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("teacher_digest")
