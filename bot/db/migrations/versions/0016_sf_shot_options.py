"""Saved `/sf shoot` rolls in the options it takes now: `distance` for `range`, `hands` for the hand flags.

`/sf shoot` had reached Discord's 25 options. The range band joined `distance` (metres, or a band in quick
mode), `wrong_hand` and `two_weapons` became one `hands` choice, careful aim became a way of standing
(`attacker_movement:aiming`), and a laser's `seu` dial became the `setting` (which also takes `stun`). A saved
roll that still says `range:short`, `wrong_hand:true`, `aim:true` or `seu:2` is rewritten to mean the same (a
logged roll's Roll again reads the old names itself). This migration keeps its own copy of the rewrite, as a
migration must not change when the code does.

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-01
"""

import shlex
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRUE = {"true", "yes", "1", "on"}
OLD = {"range", "wrong_hand", "two_weapons", "aim", "seu"}
HANDS = {(True, False): "wrong_hand", (False, True): "two_weapons", (True, True): "two_weapons_wrong_hand"}


def rewritten(line: str) -> str:
    """A saved `/sf shoot` line with today's option names (unchanged if it has none of the old ones)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return line  # a line that cannot be read is refused when run, as before
    options = {w.partition(":")[0]: w.partition(":")[2] for w in words if ":" in w and not w.startswith("/")}
    if not OLD & options.keys():
        return line
    kept = [w for w in words if w.partition(":")[0] not in OLD]
    if "range" in options and "distance" not in options:
        kept.append(f"distance:{options['range']}")
    flags = (options.get("wrong_hand", "").lower() in TRUE, options.get("two_weapons", "").lower() in TRUE)
    if flags in HANDS and "hands" not in options:
        kept.append(f"hands:{HANDS[flags]}")
    if "seu" in options and "setting" not in options:
        kept.append(f"setting:{options['seu']}")
    if options.get("aim", "").lower() in TRUE and options.get("attacker_movement", "standing") == "standing":
        kept = [w for w in kept if not w.startswith("attacker_movement:")]
        kept.append("attacker_movement:aiming")
    return shlex.join(kept)


def upgrade() -> None:
    macros = sa.table(
        "macros", sa.column("id", sa.Integer), sa.column("command", sa.String), sa.column("line", sa.String)
    )
    connection = op.get_bind()
    for row in connection.execute(sa.select(macros.c.id, macros.c.line).where(macros.c.command == "sf shoot")):
        line = rewritten(row.line)
        if line != row.line:
            connection.execute(sa.update(macros).where(macros.c.id == row.id).values(line=line))


def downgrade() -> None:
    pass  # the new lines read the same under the new options; the old options are gone
