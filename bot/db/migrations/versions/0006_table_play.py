"""Table play: what each roll needs for its buttons and /stats, and the users' saved rolls.

The roll log learns which character a roll used and its ruleset (for /history and /stats filters), the
luck tally each roll showed (observed against expected), and the full answer when the channel was shown
the compact one (for the Details button). Buttons find their roll by the interaction that made it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.add_column(sa.Column("character_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("ruleset", sa.String(length=20), nullable=True))
        batch.add_column(sa.Column("luck", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("details", sa.JSON(), nullable=True))
    op.create_index("ix_roll_log_interaction", "roll_log", ["interaction_id"])
    op.create_index("ix_roll_log_character", "roll_log", ["character_id", "id"])
    op.create_table(
        "macros",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("name_key", sa.String(length=32), nullable=False),
        sa.Column("command", sa.String(length=100), nullable=False),
        sa.Column("line", sa.String(length=1000), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_macros")),
        sa.UniqueConstraint("guild_id", "user_id", "name_key", name=op.f("uq_macros_guild_id")),
    )


def downgrade() -> None:
    op.drop_table("macros")
    op.drop_index("ix_roll_log_character", table_name="roll_log")
    op.drop_index("ix_roll_log_interaction", table_name="roll_log")
    with op.batch_alter_table("roll_log") as batch:
        batch.drop_column("details")
        batch.drop_column("luck")
        batch.drop_column("ruleset")
        batch.drop_column("character_id")
