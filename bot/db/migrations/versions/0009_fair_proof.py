"""Fair rolls that prove their command: each roll's replayable inputs and outcome, and every number's fate.

`roll_log.proof` keeps a fair roll's kind, inputs and outcome (bot.rules.replay), so that `python -m bot
verify` can run it again. `fair_rolls_taken` keeps every fair roll number given out and, for one that was
never answered, why; so a log accounts for every number.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.add_column(sa.Column("proof", sa.JSON(), nullable=True))
    op.create_table(
        "fair_rolls_taken",
        sa.Column("fair_session_id", sa.Integer(), nullable=False),
        sa.Column("roll_number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("command", sa.String(length=100), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=False),
        sa.ForeignKeyConstraint(
            ["fair_session_id"],
            ["fair_sessions.id"],
            name=op.f("fk_fair_rolls_taken_fair_session_id_fair_sessions"),
        ),
        sa.PrimaryKeyConstraint("fair_session_id", "roll_number", name=op.f("pk_fair_rolls_taken")),
    )


def downgrade() -> None:
    op.drop_table("fair_rolls_taken")
    with op.batch_alter_table("roll_log") as batch:
        batch.drop_column("proof")
