"""The message that shows a channel's encounter, so that a hit or a change by hand can edit it.

A tracker showed the fight as of its last Next press: an attack's hit, `/encounter hp` or a placement were
said in a note, but the tracker kept the old hit points until someone pressed Next. The tracker's message
id is kept beside the fight (no version: which message shows the fight is not part of the fight).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("encounters") as batch:
        batch.add_column(sa.Column("tracker_message_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("encounters") as batch:
        batch.drop_column("tracker_message_id")
