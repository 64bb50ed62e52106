"""/stats: how lucky the dice have been, against the odds each roll showed when it was made."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot import offload
from bot.client import DiceBot
from bot.db.characters import CharacterRepository
from bot.db.rolls import LUCK_ROLLS, RollRepository, luck_tallies
from bot.rules import luck, rulesets
from bot.rules.audience import Viewer, reader
from bot.ui.chart import luck_chart
from bot.ui.embeds import ROLL_COLOUR, clip
from cogs._audience import viewer
from cogs._shared import Interaction, any_character_choices, find, guild_of

CHART = "luck.png"


def table(rows: list[luck.Row]) -> str:
    """Observed, expected and z per outcome, right-aligned for a code block; a column widens to its widest number."""
    header = ["", "observed", "expected", "z"]
    body = [
        [row.label, f"{row.observed:,.0f}", f"{row.expected:,.2f}", "n/a" if row.z is None else f"{row.z:+.2f}"]
        for row in rows
    ]
    least = [14, 8, 8, 5]  # the widths of a small table's columns; a wider number widens its column
    widths = [max(least[n], *(len(cells[n]) for cells in [header, *body])) for n in range(len(header))]
    lines = [
        cells[0].ljust(widths[0]) + "".join("  " + cells[n].rjust(widths[n]) for n in range(1, len(header)))
        for cells in [header, *body]
    ]
    return "```\n" + "\n".join(lines) + "\n```"


def verdicts(rows: list[luck.Row]) -> str:
    """One plain sentence per outcome."""
    out = []
    for row in rows:
        z = row.lucky_z
        said = luck.verdict(z)
        out.append(f"{row.label}: {said}" + ("" if row.z is None else f" (z = {row.z:+.2f}, {row.rolls} rolls)"))
    return "\n".join(out)


def luck_report(title: str, stored: list[bytes], shown_to: Viewer) -> tuple[int, list[luck.Row], bytes]:
    """How many rolls `shown_to` may see kept a tally (`stored` as `RollRepository.luck` read them), rows, chart."""
    tallies = luck_tallies(stored, shown_to)
    rows = luck.rows(tallies)
    return len(tallies), rows, luck_chart(title, rows) if rows else b""


class Stats(commands.Cog):
    """Luck, measured."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Characters of this server (of the chosen user, if one is)."""
        return await any_character_choices(self.bot, interaction, current)

    @app_commands.command(name="stats")
    @app_commands.guild_only()
    @app_commands.autocomplete(character=characters)
    @app_commands.choices(ruleset=[app_commands.Choice(name=key, value=key) for key in rulesets.registered_keys()])
    async def stats(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        ruleset: str | None = None,
        private: bool = False,
    ) -> None:
        """Observed against expected: hits, criticals, damage, natural 20s and 1s, with a verdict and a chart.

        Args:
            user: Whose rolls (default: everyone's in this server)
            character: Only the rolls made with this character
            ruleset: Only the rolls of one game
            private: Show the result to you only (about yourself, your private rolls count too)
        """
        guild_id = guild_of(interaction)
        # Your private rolls count only in a private answer about yourself; hidden rolls never count (only the GM
        # channel saw them, and the tallies are their outcomes). Rolls against a secret count only for a reader who
        # may see its numbers: a private answer to a game master or the secret's owner.
        about_yourself = user is not None and user.id == interaction.user.id
        shown_to = reader(await viewer(self.bot, interaction), private=private)
        record = None
        whose = user.display_name if user else "this server"
        async with self.bot.database.read() as session:
            if character is not None:
                record = await find(
                    CharacterRepository(session),
                    interaction,
                    character,
                    owner_id=user.id if user else None,
                    shown_to=shown_to,
                )
                whose = record.name
            stored = await RollRepository(session).luck(
                guild_id=guild_id,
                user_id=user.id if user else None,
                character=record,
                ruleset=ruleset,
                include_private_of=interaction.user.id if private and about_yourself else None,
            )
        scope = f" · {rulesets.get(ruleset).title}" if ruleset else ""
        title = clip(f"Luck of {whose}{scope}", 256)
        # Decoding and summing 20,000 tallies and drawing the chart take up to a second of CPU: in the worker
        # process, so that the event loop, which every server shares, stays free meanwhile (a thread would hold
        # the GIL, and the loop with it).
        counted, rows, png = await offload.in_process(luck_report, title, stored, shown_to)
        if not rows:
            embed = discord.Embed(
                title=title,
                description="No rolls with odds yet: attacks (`/dnd`, `/sf`, `/aliens`) and d20s rolled here count.",
                colour=ROLL_COLOUR,
            )
            await interaction.response.send_message(embed=embed, ephemeral=private)
            return
        headline = luck.overall(rows)
        said = luck.verdict(headline)
        embed = discord.Embed(
            title=title,
            description=f"**{said[0].upper() + said[1:]}** over {counted} rolls.\n{verdicts(rows)}\n{table(rows)}",
            colour=ROLL_COLOUR,
        )
        embed.set_image(url=f"attachment://{CHART}")
        note = (
            f"Expected values come from the exact odds shown with each roll. |z| < {luck.UNUSUAL:g} is ordinary luck."
        )
        if len(stored) >= LUCK_ROLLS:
            note += f" The latest {LUCK_ROLLS:,} rolls."
        embed.set_footer(text=note)
        chart = discord.File(io.BytesIO(png), filename=CHART)
        await interaction.response.send_message(embed=embed, file=chart, ephemeral=private)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Stats(bot))
