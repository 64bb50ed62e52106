"""Provably fair sessions, and the fair roll number and draws of each logged roll.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "fair_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("next_roll", sa.Integer(), nullable=False),
        sa.Column("started_by", sa.BigInteger(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revealed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fair_sessions")),
        sa.UniqueConstraint("commitment", name=op.f("uq_fair_sessions_commitment")),
    )
    op.create_index("ix_fair_sessions_channel", "fair_sessions", ["channel_id", "id"])
    with op.batch_alter_table("roll_log") as batch:
        batch.add_column(sa.Column("fair_session_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("fair_roll", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("draws", sa.JSON(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_roll_log_fair_session_id_fair_sessions"), "fair_sessions", ["fair_session_id"], ["id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.drop_constraint(op.f("fk_roll_log_fair_session_id_fair_sessions"), type_="foreignkey")
        batch.drop_column("draws")
        batch.drop_column("fair_roll")
        batch.drop_column("fair_session_id")
    op.drop_index("ix_fair_sessions_channel", table_name="fair_sessions")
    op.drop_table("fair_sessions")
