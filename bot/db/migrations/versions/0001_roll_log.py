"""The roll log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "roll_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interaction_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("command", sa.String(length=100), nullable=False),
        sa.Column("inputs", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_log")),
    )
    op.create_index("ix_roll_log_channel", "roll_log", ["channel_id", "id"])
    op.create_index("ix_roll_log_user", "roll_log", ["guild_id", "user_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_roll_log_user", table_name="roll_log")
    op.drop_index("ix_roll_log_channel", table_name="roll_log")
    op.drop_table("roll_log")
