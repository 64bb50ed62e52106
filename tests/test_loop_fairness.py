"""What a hostile member can send within the rate limit is answered cleanly and holds no one else up (#29).

- Autocomplete counts toward a limit of its own (AUTOCOMPLETE_RATE_LIMIT); past it the menu offers nothing.
- Option values Discord's client never sends (integers past their range, strings past their length, choices
  the option does not offer, crafted by a script) are refused with an ephemeral "Bad option", never "Sorry":
  every command of the synced tree is tried (tests/test_fuzz.py sends only what the client would).
- Crafted button ids far past any id (2^64 and more) are answered cleanly.
- Every expression the parser accepts rolls through /roll in a fair session, each taking the next number.
- /character import parses and checks its file in the worker process, with the same answers.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.client import DiceBot
from bot.config import DEFAULT_AUTOCOMPLETE_RATE_LIMIT, RateLimit, Settings, SettingsError
from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord, local_discord
from bot.local.limits import INTEGER, NUMBER, STRING
from bot.local.payloads import APPLICATION_COMMAND, COMPONENT, Snowflakes, button_data, command_data, interaction
from bot.rules.dice import MAX_EXPRESSION_LENGTH, DiceError, parse
from bot.rules.sheets.base import Ruleset
from tests.conftest import Clock
from tests.helpers import BOB, COMMANDS, answered_cleanly
from tests.strategies import _EXPRESSION_TEXT, _OTHER_TEXT, EXPRESSIONS


@pytest.fixture
def make_limited(settings: Settings, database: Database, dice: random.Random, clock: Clock) -> Callable[[], DiceBot]:
    """The bot with at most 3 commands and 5 autocomplete requests per user in 10 seconds."""
    limited = replace(settings, rate_limit=RateLimit(3, 10), autocomplete_rate_limit=RateLimit(5, 10))
    return lambda: DiceBot(settings=limited, database=database, dice=dice, clock=clock)


@pytest_asyncio.fixture
async def limited(make_limited: Callable[[], DiceBot]) -> AsyncIterator[LocalDiscord]:
    async with local_discord(make_limited, ids=Snowflakes(1767225600000)) as driver:
        yield driver


# -- autocomplete has a rate limit of its own --------------------------------------------------------------
async def suggest(local: LocalDiscord, typed: str = "Va", *, actor: Any = None) -> Exchange:
    return await local.autocomplete("character show", {"character": typed}, "character", actor=actor)


async def test_autocomplete_past_its_own_limit_offers_no_choices_never_an_error(
    limited: LocalDiscord, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    await limited.command("character create", {"ruleset": "aliensrl", "name": "Vasquez"})
    offered = (await suggest(limited)).choices
    assert len(offered) == 1
    for _ in range(4):
        assert (await suggest(limited)).choices == offered
    refused = await suggest(limited)
    assert refused.response["type"] == 8  # an autocomplete result, as Discord expects
    assert refused.choices == []
    assert refused.rejected == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("bot")]

    await limited.command("character create", {"ruleset": "aliensrl", "name": "Vasko"}, actor=limited.as_user(BOB))
    assert (await suggest(limited, actor=limited.as_user(BOB))).choices  # a limit of each user's own
    clock.advance(10)
    assert (await suggest(limited)).choices == offered


async def test_autocomplete_never_spends_the_command_limit(limited: LocalDiscord) -> None:
    for _ in range(5):
        await suggest(limited)
    for _ in range(3):
        answer = await limited.command("roll", {"expression": "1d6"})
        assert not (answer.ephemeral and answer.embed["title"] == "Slow down")


async def test_commands_never_spend_the_autocomplete_limit(limited: LocalDiscord) -> None:
    await limited.command("character create", {"ruleset": "aliensrl", "name": "Vasquez"})
    for _ in range(4):
        await limited.command("roll", {"expression": "1d6"})  # the last one is slowed down
    for _ in range(5):
        assert (await suggest(limited)).choices


def test_the_autocomplete_limit_is_a_setting_with_a_generous_default() -> None:
    default = Settings.from_env({}).autocomplete_rate_limit
    assert default == RateLimit.parse(DEFAULT_AUTOCOMPLETE_RATE_LIMIT) == RateLimit(60, 10)
    assert Settings.from_env({"AUTOCOMPLETE_RATE_LIMIT": "20/5"}).autocomplete_rate_limit == RateLimit(20, 5)
    assert Settings.from_env({"AUTOCOMPLETE_RATE_LIMIT": "0"}).autocomplete_rate_limit is None
    with pytest.raises(SettingsError, match="AUTOCOMPLETE_RATE_LIMIT"):
        Settings.from_env({"AUTOCOMPLETE_RATE_LIMIT": "lots"})
    assert Settings().autocomplete_rate_limit is None  # built directly (tests, benchmarks): no limit


# -- option values crafted outside Discord's client ----------------------------------------------------------
def crafted_values(option: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Values of `option` that Discord's client would refuse to send, with what is wrong with each."""
    kind = option["type"]
    if option.get("choices"):
        yield "an unknown choice", "not-a-choice" if kind == STRING else 987_654_321
    if kind in (INTEGER, NUMBER):
        if "max_value" in option:
            yield "past its maximum", option["max_value"] + 1
        if "min_value" in option:
            yield "below its minimum", option["min_value"] - 1
        yield "past Discord's integers", 2**64
    if kind == STRING:
        yield "past its length", "x" * (option.get("max_length", 6000) + 1)
        if option.get("min_length", 0) > 0:
            yield "below its length", ""


CRAFTED = [
    pytest.param(name, option, value, id=f"{name} {option['name']} {why}")
    for name, schema in COMMANDS.items()
    for option in schema["options"]
    for why, value in crafted_values(option)
]


def test_every_kind_of_crafted_value_is_tried() -> None:
    assert len(CRAFTED) > 100
    assert any(param.values[1].get("choices") for param in CRAFTED)
    assert any("max_value" in param.values[1] for param in CRAFTED)


@pytest_asyncio.fixture
async def quiet(local: LocalDiscord, caplog: pytest.LogCaptureFixture) -> LocalDiscord:
    caplog.set_level(logging.WARNING)
    await local.command("character create", {"ruleset": "dnd35", "name": "Regis"})
    return local


async def test_a_crafted_option_value_is_refused_cleanly_for_every_command(
    quiet: LocalDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    """One test for all of them: each payload is refused before its command runs, so they are quick."""
    wrong = []
    for param in CRAFTED:
        name, option, value = param.values
        data = command_data(name, [{"name": option["name"], "type": option["type"], "value": value}])
        answer = await answered_cleanly(quiet, interaction(quiet.ids, quiet.actor, APPLICATION_COMMAND, data), caplog)
        embed = answer.embed
        if not (answer.ephemeral and embed["title"] == "Bad option" and option["name"] in embed["description"]):
            wrong.append(f"{param.id}: {answer.embed.get('title')}")
    assert wrong == []


async def test_an_expression_longer_than_the_option_allows_is_refused_naming_the_limit(quiet: LocalDiscord) -> None:
    """Discord's client stops at the option's 200 characters; a crafted longer one is refused before parsing."""
    options = [{"name": "expression", "type": STRING, "value": "1+" * 100 + "1"}]
    answer = await quiet.send(interaction(quiet.ids, quiet.actor, APPLICATION_COMMAND, command_data("roll", options)))
    assert answer.ephemeral and answer.embed["title"] == "Bad option"
    assert "`expression` must be text of 1 to 200 characters" in answer.embed["description"]


async def test_values_inside_the_range_still_run(quiet: LocalDiscord) -> None:
    options = [{"name": "expression", "type": STRING, "value": "1d6"}]
    answer = await quiet.send(interaction(quiet.ids, quiet.actor, APPLICATION_COMMAND, command_data("roll", options)))
    assert answer.embed["title"] != "Bad option"


# Every button's custom id, with {} where a crafted number goes; the ids of the roll's buttons have no length
# bound in their template, the lists' ids at most 20 digits (longer ones match no button: Discord shows its own
# "interaction failed", as for any unknown button).
UNBOUNDED = ["again:{}", "details:{}:full", "page:{}:1", "hurt:{}", "strike:{}", "encounter:next:1:{}", "sheet:{}:1"]
UNBOUNDED += ["encounter:next:{}:0", "encounter:attack:{}:1:0:0:0000abcd", "encounter:attack:1:{}:0:0:0000abcd"]
BOUNDED = [
    "sheet:1:1:{}",
    "characters:{}:1:1",
    "characters:1:1:{}",
    "macros:{}:1",
    "history:{}:1:10:1:0",
    "history:1:1:10:{}:0",
    "history:1:1:10:1:{}",
]


def crafted_press(quiet: LocalDiscord, shown: Exchange, custom_id: str) -> dict[str, Any]:
    """Bob pressing a button of `custom_id` on the answer `shown`, as a script crafts it (the message carrying it)."""
    component = {"type": 2, "style": 2, "label": "Crafted", "custom_id": custom_id}
    message = {**quiet.original(shown), "components": [{"type": 1, "components": [component]}]}
    return interaction(quiet.ids, quiet.as_user(BOB), COMPONENT, button_data(custom_id), message=message)


@pytest.mark.parametrize(
    "custom_id",
    [button.format(big) for button in UNBOUNDED for big in (2**63, 2**64, 10**30)]
    + [button.format(big) for button in BOUNDED for big in (2**63, 2**64, 10**20 - 1)],
)
async def test_a_crafted_button_id_far_past_any_id_is_answered_cleanly(
    quiet: LocalDiscord, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    shown = await quiet.command("roll", {"expression": "1d6"})
    payload = crafted_press(quiet, shown, custom_id)
    answer = await answered_cleanly(quiet, payload, caplog)
    assert answer.embed.get("title") != "Sorry" if answer.messages else True


# -- every expression the parser accepts rolls in a fair session, each taking the next number ------------------
@pytest_asyncio.fixture
async def fair(local: LocalDiscord, caplog: pytest.LogCaptureFixture) -> LocalDiscord:
    """A channel with a fair session running (kept across Hypothesis' examples: numbers go on from example to
    example, so each example checks that its own rolls take consecutive numbers)."""
    caplog.set_level(logging.WARNING)
    started = await local.command("fair start")
    assert not started.ephemeral
    return local


FAIR_ROLLS = settings(
    max_examples=3,
    phases=[Phase.generate],  # no shrinking: its hundreds of runs would fill the session up to its cap
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TYPED = st.one_of(EXPRESSIONS, _EXPRESSION_TEXT, _OTHER_TEXT).filter(lambda t: 1 <= len(t) <= MAX_EXPRESSION_LENGTH)


@FAIR_ROLLS
@given(texts=st.lists(TYPED, min_size=12, max_size=12))
async def test_in_a_fair_session_a_roll_that_reads_takes_the_next_number_and_answers(
    fair: LocalDiscord, caplog: pytest.LogCaptureFixture, texts: list[str]
) -> None:
    taken = []
    for text in texts:
        options = [{"name": "expression", "type": STRING, "value": text}]
        payload = interaction(fair.ids, fair.actor, APPLICATION_COMMAND, command_data("roll", options))
        answer = await answered_cleanly(fair, payload, caplog)
        embed = answer.embed
        assert embed.get("title") != "Sorry", (text, embed)
        try:
            parse(text)
        except DiceError:
            # Text that does not read is refused with a caret; it is rolled all the same, so that the session's
            # log says why its number went unanswered (docs/fair.md).
            assert answer.ephemeral
            number = re.search(r"Fair roll #(\d+) went to this command", embed["description"])
        else:
            number = re.search(r"Fair roll #(\d+) ·", embed["footer"]["text"])
        assert number is not None, (text, embed)
        taken.append(int(number[1]))
    assert taken == list(range(taken[0], taken[0] + len(texts)))  # one number each, none skipped


# -- an import is parsed and checked in the worker process --------------------------------------------------
async def test_an_import_is_parsed_and_checked_off_the_loop(
    local: LocalDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Validating 50 blocks of 16 KB held the loop for 263-310 ms, and the confirmation 127-150 ms: no block is
    validated in the bot's process, and the characters come out as they went in."""
    for ruleset, name in [("aliensrl", "Vasquez"), ("dnd35", "Regis"), ("sf", "Dralasite")]:
        await local.command("character create", {"ruleset": ruleset, "name": name})
    data = (await local.command("character export")).files["characters.json"]
    await local.command("character create", {"ruleset": "aliensrl", "name": "Hicks"})
    loaded: list[str] = []
    load = Ruleset.load

    def counted(self: Ruleset, data: Any, *, stored: bool = False) -> Any:
        loaded.append(self.key)
        return load(self, data, stored=stored)

    monkeypatch.setattr(Ruleset, "load", counted)
    value, resolved = local.upload("characters.json", data)
    planned = await local.command("character import", [{"name": "file", "type": 11, "value": value}], resolved=resolved)
    assert loaded == []  # neither the file's blocks nor the user's own were validated here
    summary = local.original(planned)["embeds"][0]["description"]
    assert summary.startswith("**Replace 3**")
    done = await local.click(local.original(planned), "confirm")
    assert done.response["data"]["embeds"][0]["description"] == "Created 0, replaced 3."
    assert loaded == []  # the confirmation writes the checked blocks; it does not read them back either
    monkeypatch.undo()
    again = (await local.command("character export")).files["characters.json"]
    names = [c["name"] for c in json.loads(again)["characters"]]
    assert sorted(names) == ["Dralasite", "Hicks", "Regis", "Vasquez"]
    strip = lambda raw: [c for c in json.loads(raw)["characters"] if c["name"] != "Hicks"]  # noqa: E731
    assert strip(again) == strip(data)


async def test_a_refused_import_file_is_refused_from_the_worker_with_its_reason(local: LocalDiscord) -> None:
    value, resolved = local.upload("characters.json", b'{"format": "rules-dice-bot/characters", "version": 7}')
    refused = await local.command("character import", [{"name": "file", "type": 11, "value": value}], resolved=resolved)
    assert refused.ephemeral
    assert refused.embed["title"] == "Can't import that file"
    assert refused.embed["description"] == "This bot reads export version 1, not 7."


@pytest.mark.parametrize(
    "custom_id",
    [
        *(f"characters:{BOB}:1:{big}" for big in (2**63, 10**20 - 1)),
        *(f"history:{BOB}:1:10:{big}:0" for big in (2**63, 10**20 - 1)),
        *(f"history:{BOB}:1:10:0:{big}" for big in (2**63, 10**20 - 1)),
    ],
)
async def test_a_list_page_naming_an_id_past_any_is_refused_cleanly_to_its_own_asker(
    quiet: LocalDiscord, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    """Pressed by whoever the id names as the asker, the number reached the database, which refused it: "Sorry"."""
    shown = await quiet.command("roll", {"expression": "1d6"})
    payload = crafted_press(quiet, shown, custom_id)
    answer = await answered_cleanly(quiet, payload, caplog)
    assert answer.ephemeral and answer.embed["title"] == "No such list", answer.embed


async def test_a_history_page_asking_more_rolls_than_the_command_allows_lists_as_many_as_it_does(
    quiet: LocalDiscord,
) -> None:
    """`/history count:` takes at most 25; a crafted page id may say up to 99."""
    for _ in range(30):
        await quiet.command("roll", {"expression": "1d6"}, actor=quiet.as_user(BOB))
    shown = await quiet.command("roll", {"expression": "1d6"})
    listed: list[str] = []
    page, pages = 1, 1
    while page <= pages:
        embed = (await quiet.send(crafted_press(quiet, shown, f"history:{BOB}:{page}:99:0:0"))).embed
        listed += embed["description"].splitlines()
        pages = int(embed["title"].rpartition("/")[2]) if "/" in embed["title"] else 1
        page += 1
    assert len(listed) == 25, listed
