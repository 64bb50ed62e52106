"""Ids are never reused: SQLite's AUTOINCREMENT for every table whose id something else keeps.

SQLite gives a new row the largest rowid plus one, so after a delete of the newest row its id came back: an old
"Apply 95 damage to Goblin" button hit another member's new character, and /history and /stats showed the
deleted character's rolls under the new one. An AUTOINCREMENT table never hands out an id it handed out before
(it keeps the largest in `sqlite_sequence`); SQLite cannot add that to a table, so the tables are rebuilt
(Alembic's batch copy), every row with its id. PostgreSQL's sequences never went back: nothing to do there.

The tables: characters (buttons, forms, the roll log, memory, fights and macros name them by id), fair
sessions (the roll log and the numbers given out name them), encounters (a change is a compare-and-set on id
and version) and macros. The roll log is left as it is: nothing keeps a roll's row id (buttons name the
interaction, which Discord never reuses), and rebuilding it would copy every logged roll.

Where the next id starts: after the largest id still in the table, or named by a row that outlives its
character (the roll log's `character_id`, applied damage, habits, active characters). An id that was handed
out and deleted before this upgrade, with nothing left that names it, cannot be recovered; since nothing names
it any more, handing it out again can mislead nobody.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Each table, with the columns of other tables that keep its ids (the next id starts after all of them).
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "characters": (
        ("roll_log", "character_id"),
        ("applied_damage", "character_id"),
        ("character_memory", "character_id"),
        ("active_characters", "character_id"),
    ),
    "fair_sessions": (("roll_log", "fair_session_id"), ("fair_rolls_taken", "fair_session_id")),
    "encounters": (),
    "macros": (),
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    # bot.db.migrate.upgrade turns SQLite's foreign keys off around the migrations: dropping the old `characters`
    # would otherwise delete, by ON DELETE CASCADE, every row that names a character.
    for table, keepers in TABLES.items():
        with op.batch_alter_table(table, recreate="always", table_kwargs={"sqlite_autoincrement": True}):
            pass
        used = ((table, "id"), *keepers)
        largest = ", ".join(f"(SELECT COALESCE(MAX({column}), 0) FROM {name})" for name, column in used)
        op.execute(f"DELETE FROM sqlite_sequence WHERE name = '{table}'")
        # MAX of one argument would be the aggregate; 0 makes it the scalar one for a table nothing else names.
        op.execute(f"INSERT INTO sqlite_sequence (name, seq) SELECT '{table}', MAX(0, {largest})")


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in reversed(TABLES):
        with op.batch_alter_table(table, recreate="always"):
            pass
