"""The one base class for errors that reach the user as a message.

It lives outside `bot.rules` only so that the Discord side can raise it too; it imports nothing, so the
rules core may use it and stay pure.
"""


class UserError(Exception):
    """An error whose message is written for the person who typed the command.

    The error funnel shows `title` and `message` in an ephemeral red embed; anything else is a bug.
    """

    title = "That didn't work"

    def __init__(self, message: str, *, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title is not None:
            self.title = title


FAIR_ROLL_NOTE = "fair_roll_unanswered"  # the attribute of an error that left a fair roll number unanswered
