"""The message that answered each roll, and a one-line summary of it, for /history.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("summary", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.drop_column("summary")
        batch.drop_column("message_id")
