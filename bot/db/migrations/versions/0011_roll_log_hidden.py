"""Hidden rolls logged as hidden, not just private; and an index to find a fair session's rolls.

Hidden rolls were logged as private, and a private roll counts in `/stats` about yourself: a player's hidden
rolls showed in the channel through their luck. Now `hidden` says which rolls the game master alone sees.
Rolls logged before this revision cannot be told apart (both were private); they stay private.

A hidden roll draws from the GM channel's fair session but is logged where it was made, so a session's rolls
are found by session, not by channel: the index on (fair_session_id, fair_roll) serves `/fair verify` and the
session log.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("roll_log") as batch:
        batch.add_column(sa.Column("hidden", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_roll_log_fair", "roll_log", ["fair_session_id", "fair_roll"])


def downgrade() -> None:
    op.drop_index("ix_roll_log_fair", table_name="roll_log")
    with op.batch_alter_table("roll_log") as batch:
        batch.drop_column("hidden")
