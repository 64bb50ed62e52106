"""An index to find a server's characters by name, whoever owns them.

A character typed by name is looked up among the player's own first, then among everyone's in the server (the
game master's ogre as `target:Ogre`). The unique constraint leads with the owner, so that second lookup read
every character of the server; the index on (guild_id, name_key) finds them directly.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_characters_name", "characters", ["guild_id", "name_key"])


def downgrade() -> None:
    op.drop_index("ix_characters_name", table_name="characters")
