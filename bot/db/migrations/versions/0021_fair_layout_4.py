"""Fair sessions of layout 4: dice bound to the interaction, a log signed by a key the commitment covers.

An operator who knows a session's seed could grind seeds until the first rolls came out well, or give a roll a
second number (marking the first "failed") until it did; and anyone holding the revealed seed could edit the
log. A session now commits to a signing key too (`layout` 4, `signing_key`, its secret until it signs), draws
each roll's dice from the seed and the Discord id of the interaction (kept with each number taken, once per
session), rolls only for interactions made after the message that posted the commitment
(`commitment_message`), and signs its log once, when the rolls in flight at the reveal are settled
(`closed_at`, `signature`). Sessions from before keep layout 3 and are checked as before. `draws` counts the
draws a session's log holds, so that a session stops taking rolls before its log outgrows what a reveal can
post (bot.rules.fair_log.session_full).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("fair_sessions") as batch:
        batch.add_column(sa.Column("layout", sa.Integer(), nullable=False, server_default="3"))
        batch.add_column(sa.Column("signing_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("signing_secret", sa.String(64), nullable=True))
        batch.add_column(sa.Column("commitment_message", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("signature", sa.Text(), nullable=True))
        batch.add_column(sa.Column("draws", sa.BigInteger(), nullable=False, server_default="0"))
    with op.batch_alter_table("fair_rolls_taken") as batch:
        batch.add_column(sa.Column("interaction_id", sa.BigInteger(), nullable=True))
        batch.create_unique_constraint("uq_fair_rolls_taken_fair_session_id", ["fair_session_id", "interaction_id"])


def downgrade() -> None:
    with op.batch_alter_table("fair_rolls_taken") as batch:
        batch.drop_constraint("uq_fair_rolls_taken_fair_session_id", type_="unique")
        batch.drop_column("interaction_id")
    with op.batch_alter_table("fair_sessions") as batch:
        for column in (
            "draws",
            "signature",
            "closed_at",
            "commitment_message",
            "signing_secret",
            "signing_key",
            "layout",
        ):
            batch.drop_column(column)
