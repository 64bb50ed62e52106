"""Encounters: one fight per channel, its state as compact JSON with a version for compare-and-set changes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "encounters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("gm_id", sa.BigInteger(), nullable=False),
        sa.Column("ruleset", sa.String(length=20), nullable=False),
        # JSON through bot.db.codec.CompactJSON: zlib-compressed when that is smaller.
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("undo", sa.LargeBinary(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_encounters")),
        sa.UniqueConstraint("channel_id", name=op.f("uq_encounters_channel_id")),
    )


def downgrade() -> None:
    op.drop_table("encounters")
