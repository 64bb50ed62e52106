"""Lists page instead of clipping, wide tables keep their columns, and members are offered what they may use.

Every list the bot answers with (/character list, /macro list, /history) shows a page that fits a phone screen and
Page buttons for the rest, which are rebuilt from their custom id after a restart; a private list's pages turn
for its asker only.
"""

from __future__ import annotations

from bot.rules.luck import Row
from cogs.stats import table


def test_the_stats_table_keeps_its_columns_past_100000_expected_damage() -> None:
    rows = [
        Row("hit", observed=61_234, expected=60_000.5, variance=24_000.0, rolls=100_000),
        Row("damage", observed=412_345, expected=398_765.25, variance=9_000_000.0, rolls=100_000),
    ]
    lines = table(rows).strip("`\n").splitlines()
    header, *body = lines
    # Every cell is right-aligned to the end of its header, and two spaces at least part the columns.
    ends = [header.index(name) + len(name) for name in ("observed", "expected")] + [len(header)]
    for line in body:
        assert len(line) == len(header)
        for end, cell in zip(ends, line.split()[-3:], strict=True):
            assert line[end - len(cell) : end] == cell and line[end - len(cell) - 2 : end - len(cell)] == "  "
    assert "398,765.25" in body[1] and "412,345" in body[1]
