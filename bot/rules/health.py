"""How a player writes hit points (Star Frontiers: Stamina), read the same way by every command that changes them.

`+5` adds 5 (a heal stops at the maximum), `-13` takes 13 off, `=28` sets 28 (`=-3` sets -3: D&D's dying),
`=28/30` sets the value and the maximum together. A number without a sign (`28`, `28/30`) sets too, where a
command asks for the field's value (`/character set`, the edit form). Where a command asks for a change
(`/character hp change:`, `/encounter hp amount:`) a number without a sign is refused with the forms spelled out:
`/encounter hp amount:5` used to heal 5 while `/character hp change:5` set 5, and a guess either way would
silently do the wrong thing to someone used to the other.

A maximum never follows the `+` or `-` forms (`+5/30` would be a change of one and a setting of the other).

Setting a maximum without saying the value (`max_hp=35`, Star Frontiers `sta=50`): a character at its maximum
or above (unhurt, as a new one is) stays at the maximum, so it gets the new one; a hurt character keeps its value,
no higher than the new maximum (`follow_maximum`). On the sheet, a value set above the maximum raises the maximum
with it (`settle`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from bot.errors import UserError

MAX_DIGITS: Final = 6  # the fields' ranges refuse what is too large; this only keeps the text short


class HealthInputError(UserError):
    """Hit points (Stamina) written in a way the bot does not read; the message spells out the forms."""

    title = "Hit points"


class Op(StrEnum):
    """What a written number does: add to the value, take from it, or set it."""

    ADD = "+"
    SUBTRACT = "-"
    SET = "="


@dataclass(frozen=True, slots=True)
class HealthChange:
    """One change as written: `op` with `amount` (for SET the value itself, which may be negative).

    `maximum`: the new maximum, given with `/` after a value that is set. `signed`: written with its sign (`=28`
    rather than `28`).
    """

    op: Op
    amount: int
    maximum: int | None = None
    signed: bool = True

    def of(self, value: int) -> int:
        """The value after this change, plain arithmetic (no maximum): what a change of the maximum itself does."""
        if self.op is Op.ADD:
            return value + self.amount
        if self.op is Op.SUBTRACT:
            return value - self.amount
        return self.amount

    def healed(self, value: int, maximum: int) -> int:
        """The current value after this change, against the maximum.

        A heal stops at the maximum, and never lowers a value already above it (temporary hit points set with
        `=`); a loss or a setting is taken as it is.
        """
        after = self.of(value)
        if self.op is Op.ADD:
            after = min(after, max(value, maximum))
        return after

    def text(self) -> str:
        """The change written back in its signed form: `+5`, `-13`, `=28`, `=28/30`, `=-3`."""
        top = f"/{self.maximum}" if self.maximum is not None else ""
        return f"{self.op.value}{self.amount}{top}"


_FORM = re.compile(
    rf"\s*(?P<sign>[-+=]?)\s*(?P<negative>-?)\s*(?P<number>\d{{1,{MAX_DIGITS}}})"
    rf"\s*(?:/\s*(?P<top>\d{{1,{MAX_DIGITS}}})\s*)?"
)


def forms(what: str) -> str:
    """The forms, in words, for an error about `what` (a field or an option, as the player named it)."""
    return f"{what} is `+5` (add 5), `-13` (lose 13), `=28` (set 28) or `=28/30` (the value and the maximum)"


def read_change(text: str, *, what: str, signed: bool = False, with_maximum: bool = True) -> HealthChange:
    """Read hit points as a player wrote them; `what` names the option or field in errors.

    `signed`: the command asks for a change, so a number without a sign is refused (see the module docstring).
    `with_maximum`: `=28/30` is allowed (not for a maximum itself).
    """
    shown = _clip(text)
    match = _FORM.fullmatch(text)
    if match is None or (match["negative"] and match["sign"] != "="):
        raise HealthInputError(f"{forms(what)}, not `{shown}`.")
    sign, number, top = match["sign"], int(match["number"]), match["top"]
    if sign == "" and signed:
        raise HealthInputError(
            f"`{shown}` alone could mean heal or set: write `+{number}` to add {number}, `-{number}` to lose "
            f"{number}, or `={text.strip()}` to set it.",
            title="Which one?",
        )
    if top is not None and not with_maximum:
        raise HealthInputError(f"{what} takes one number: `+5`, `-2` or `=30`, not `{shown}`.")
    if top is not None and sign in ("+", "-"):
        raise HealthInputError(
            f"A maximum goes with a value that is set, not changed: `={number}/{top}`, not `{shown}`."
        )
    if sign in ("", "="):
        value = -number if match["negative"] else number
        return HealthChange(Op.SET, value, None if top is None else int(top), signed=sign == "=")
    return HealthChange(Op(sign), number)


def follow_maximum(current: int, maximum: int, new_maximum: int) -> int:
    """The current value when only the maximum changes.

    Unhurt (at the maximum or above) stays at the maximum, hurt keeps its value, no higher than the new maximum.
    An unchanged maximum changes nothing.
    """
    if new_maximum == maximum:
        return current
    if current >= maximum:
        return new_maximum
    return min(current, new_maximum)


Step = tuple[Literal["current", "maximum"], HealthChange]


def settle(current: int, maximum: int, steps: Iterable[Step], *, sheet: bool = False) -> tuple[int, int]:
    """(current, maximum) after the changes given for either, in the order given.

    The maximum is worked out first (a `=28/30` and a change of the maximum alike, the later winning), then the
    changes of the current value against it, so a heal stops at the new maximum. Without a change of the current
    value it follows the maximum (`follow_maximum`).

    `sheet`: the numbers are written onto the sheet (`/character set`, the edit form), not changed in play: a value
    above the maximum, no maximum given, is the character's hit points, so the maximum rises with it (`hp=35` on a
    new 10/10 character is 35/35). In play (`/character hp`, `/encounter hp`) `=35` may pass the maximum: temporary
    hit points.
    """
    steps = list(steps)
    top, top_given = maximum, False
    for kind, change in steps:
        if kind == "maximum":
            top, top_given = change.of(top), True
        elif change.maximum is not None:
            top, top_given = change.maximum, True
    now, given = current, False
    for kind, change in steps:
        if kind == "current":
            now, given = change.healed(now, top), True
    if not given:
        now = follow_maximum(current, maximum, top)
    elif sheet and not top_given and now > top:
        top = now
    return now, top


def _clip(text: str, limit: int = 30) -> str:
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def given_back(now: tuple[int, int], *, before: tuple[int, int], after: tuple[int, int]) -> tuple[int, int]:
    """Hit points and maximum (`now`) when a change that took them from `before` to `after` is undone.

    Still as the change left them: `before` again. Changed by something else since (`/character hp` on a character
    in a fight): that change stays, and this one is taken back from it as a change of its own, so hit points given
    back stop at the maximum.
    """
    if now == after:
        return before
    top = now[1] - (after[1] - before[1])
    back = before[0] - after[0]
    change = HealthChange(Op.ADD, back) if back >= 0 else HealthChange(Op.SUBTRACT, -back)
    return change.healed(now[0], top), top
