"""A game master's secret characters, and each user's own choice of short or full roll answers.

`characters.secret` is a column, not a flag in the stat block: it says who may see the numbers, not what they
are, so lists and autocomplete read it without loading (and validating) every sheet, and an export or an
import of a sheet cannot turn it off. `user_preferences` holds what a user chose for themselves in every
server (`/settings me`); a user who chose nothing has no row and gets the server's choice.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("characters") as batch:
        batch.add_column(sa.Column("secret", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "user_preferences",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("answers", sa.String(length=16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_user_preferences")),
    )


def downgrade() -> None:
    op.drop_table("user_preferences")
    with op.batch_alter_table("characters") as batch:
        batch.drop_column("secret")
