"""A roll's damage applied to the character it hit, recorded so that it is applied once.

The Apply damage button under a hit changes the target's hit points; two presses, or a press on a second
device, must not apply it twice. The roll's interaction id is the key.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "applied_damage",
        sa.Column("interaction_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("applied_by", sa.BigInteger(), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_applied_damage_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("interaction_id", name=op.f("pk_applied_damage")),
    )


def downgrade() -> None:
    op.drop_table("applied_damage")
