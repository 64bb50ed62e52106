"""A roll's one-line summary, from the rules core's result: its /history line and its fair log's `summary`.

One function per kind of roll (`bot.rules.replay.KINDS`), and one entry point, `summary`, which `answer_roll`
(cogs/_shared.py) logs for every roll it is given the proof of, and which the verifier calls on the replayed
result: what the log says a roll showed and what its outcome gives cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.rules import dice, encounter, replay
from bot.ui import rulesets
from bot.ui.dice import roll_history
from bot.ui.embeds import history_text
from bot.ui.encounter import dying_line, initiative_line


def _dice(result: dice.RollResult, secret: bool) -> str:
    return roll_history(result)


def _initiative(result: encounter.Initiative, secret: bool) -> str:
    return initiative_line(result)  # the tracker shows every check to the channel: nothing in it is secret


def _dying(result: encounter.DyingFaces, secret: bool) -> str:
    return dying_line(result)  # the turn message shows each face to the channel (a hidden creature's too)


def summaries() -> dict[str, Callable[[Any, bool], str]]:
    """Each kind of roll's summary: /roll's, each ruleset's (`Presenters.summaries`), initiative's, the dying's."""
    found: dict[str, Callable[[Any, bool], str]] = {replay.DICE.name: _dice}
    for presenters in rulesets.every():
        found.update(presenters.summaries)
    found.update((kind.name, _initiative) for kind in replay.INITIATIVE.values())
    found[replay.DYING.name] = _dying
    return found


def __getattr__(name: str) -> Any:
    """`SUMMARIES`: `summaries()`, as the registry holds the rulesets now."""
    if name == "SUMMARIES":
        return summaries()
    raise AttributeError(name)


def summary(kind_name: str, result: Any, *, secret: bool) -> str:
    """The line the bot logs (and /history shows) for a roll of kind `kind_name` whose rules core gave `result`.

    Args:
        kind_name: The roll's kind, as the log names it (`bot.rules.replay.KINDS`).
        result: The rules core's result (`Proof.result`; `Replayed.result` for a replayed roll).
        secret: The roll was against a game master's secret defender, so the channel's answer left its numbers
            out (`Answer.secret` was made): a Star Frontiers hit then says the damage before its defenses.

    Raises:
        KeyError: A kind with no summary (every kind of `KINDS` has one; a test checks it).
    """
    return history_text(summaries()[kind_name](result, secret))


def accepted(kind_name: str, result: Any, *, sealed: bool) -> frozenset[str]:
    """The summaries a log may give a roll of this kind and result: what a checker compares the log's with.

    A roll against a game master's secret is always sealed (its input holds the secret's numbers), so an unsealed
    roll's summary is `summary(..., secret=False)`. A sealed one may have been against a secret or only against
    a creature that hides its hit points, which the log does not tell apart: either line is a true account of
    the same result (the secret one says less), so either is accepted, and nothing else.
    """
    return frozenset(summary(kind_name, result, secret=secret) for secret in ((False, True) if sealed else (False,)))


def accepted_by_kind(kind_name: str, result: Any, sealed: bool) -> frozenset[str]:
    """`accepted`, as `bot.rules.fair_log.check_log` calls it: the summaries a logged roll may have."""
    return accepted(kind_name, result, sealed=sealed)
