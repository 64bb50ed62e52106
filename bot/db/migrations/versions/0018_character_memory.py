"""What a character used last: its weapon per kind of roll, and each laser's dial.

A Star Frontiers laser's SEU dial had to be typed on every shot, and a character with several weapons named
one every time. The character's last choices are kept apart from its stat block, so that remembering one
never collides with an edit of the sheet (and an export carries the sheet, not the habits).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "character_memory",
        sa.Column("character_id", sa.Integer(), nullable=False),
        sa.Column("memory", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["characters.id"],
            name=op.f("fk_character_memory_character_id_characters"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("character_id", name=op.f("pk_character_memory")),
    )


def downgrade() -> None:
    op.drop_table("character_memory")
