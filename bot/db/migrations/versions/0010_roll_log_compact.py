"""The roll log's JSON columns become compact bytes (bot/db/codec.py), and rolls are found by age for pruning.

Rows already logged keep their JSON text, now as bytes: the codec reads plain JSON as well as its own forms,
so nothing is rewritten on upgrade. JSON `null` becomes SQL NULL. Downgrade decodes every row back to text.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.db.codec import decode

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("inputs", "result", "draws", "luck", "details", "proof")
NULLABLE = ("draws", "luck", "details", "proof")


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for column in NULLABLE:
        if postgres:
            op.execute(f"UPDATE roll_log SET {column} = NULL WHERE {column}::text = 'null'")
        else:
            op.execute(f"UPDATE roll_log SET {column} = NULL WHERE {column} = 'null'")
    if postgres:
        for column in COLUMNS:
            op.alter_column(
                "roll_log",
                column,
                type_=sa.LargeBinary(),
                existing_nullable=column in NULLABLE,
                postgresql_using=f"convert_to({column}::text, 'UTF8')",
            )
    else:
        with op.batch_alter_table("roll_log") as batch:
            for column in COLUMNS:
                batch.alter_column(column, type_=sa.LargeBinary(), existing_nullable=column in NULLABLE)
        # SQLite keeps each value's own type: JSON text stays text unless cast (the BLOB reader wants bytes).
        for column in COLUMNS:
            op.execute(f"UPDATE roll_log SET {column} = CAST({column} AS BLOB) WHERE typeof({column}) = 'text'")
    op.create_index("ix_roll_log_created_at", "roll_log", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_roll_log_created_at", table_name="roll_log")
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    table = sa.table("roll_log", sa.column("id", sa.Integer()), *(sa.column(c, sa.LargeBinary()) for c in COLUMNS))
    last = 0
    while True:
        rows = bind.execute(sa.select(table).where(table.c.id > last).order_by(table.c.id).limit(1000)).all()
        if not rows:
            break
        for row in rows:
            plain = {c: None if row._mapping[c] is None else _plain(row._mapping[c]) for c in COLUMNS}
            bind.execute(sa.update(table).where(table.c.id == row.id).values(**plain))
        last = rows[-1].id
    if postgres:
        for column in COLUMNS:
            op.alter_column(
                "roll_log",
                column,
                type_=sa.JSON(),
                existing_nullable=column in NULLABLE,
                postgresql_using=f"convert_from({column}, 'UTF8')::json",
            )
    else:
        for column in COLUMNS:
            op.execute(f"UPDATE roll_log SET {column} = CAST({column} AS TEXT) WHERE typeof({column}) = 'blob'")
        with op.batch_alter_table("roll_log") as batch:
            for column in COLUMNS:
                batch.alter_column(column, type_=sa.JSON(), existing_nullable=column in NULLABLE)


def _plain(data: bytes) -> bytes:
    return json.dumps(decode(bytes(data))).encode()
