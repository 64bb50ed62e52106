"""When each identify bucket last identified, so that processes sharing the database space their IDENTIFYs.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "identify_buckets",
        sa.Column("bucket", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("identified_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("bucket", name=op.f("pk_identify_buckets")),
    )


def downgrade() -> None:
    op.drop_table("identify_buckets")
