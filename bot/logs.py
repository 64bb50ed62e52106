"""The operator's log: plain lines or JSON (LOG_FORMAT), each naming the interaction it happened in.

Every command and button press runs in a task of its own; `enter` stores its server, channel, user and
interaction ids in that task's context, and every line logged while it runs carries them: the error of a
command says where it happened and who ran it, so the operator can find the answer the user saw. No colour
codes: discord.py turns colour on wherever `/.dockerenv` exists, and `docker logs` would show the escapes.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import discord

from bot.config import LogFormat

IDS = ("guild", "channel", "user", "interaction")

_where: ContextVar[dict[str, int] | None] = ContextVar("dicebot_interaction", default=None)


def enter(interaction: discord.Interaction[Any]) -> None:
    """Name `interaction` on every line the current task logs from now on."""
    ids = {"guild": interaction.guild_id, "channel": interaction.channel_id, "user": interaction.user.id}
    _where.set({"interaction": interaction.id, **{k: v for k, v in ids.items() if v is not None}})


def current() -> dict[str, int]:
    """The ids of the interaction the current task handles (`enter`); empty outside one."""
    return dict(_where.get() or {})


class Where(logging.Filter):
    """Adds the interaction's ids to a record: `record.ids` (a dict) and `record.where` (text, or empty)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record, with the ids of the interaction it was logged in."""
        ids = _where.get() or {}
        record.ids = ids
        record.where = " [" + " ".join(f"{k}={ids[k]}" for k in IDS if k in ids) + "]" if ids else ""
        return True


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message, the interaction's ids, and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **getattr(record, "ids", {}),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def setup(level: str, form: LogFormat = "plain") -> None:
    """Log to standard error; discord.py's and Alembic's own chatter only from WARNING unless DEBUG is asked for."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Where())
    formatter: logging.Formatter
    if form == "json":
        formatter = JsonLines()
    else:
        formatter = logging.Formatter("[{asctime}] [{levelname:<8}] {name}: {message}{where}", "%Y-%m-%d %H:%M:%S", "{")
    discord.utils.setup_logging(handler=handler, formatter=formatter, level=getattr(logging, level), root=True)
    if level != "DEBUG":
        logging.getLogger("discord").setLevel(logging.WARNING)
        logging.getLogger("alembic").setLevel(logging.WARNING)
    for name in ("discord.client", "discord.shard"):
        logging.getLogger(name).addFilter(one_line_reconnects)


def one_line_reconnects(record: logging.LogRecord) -> bool:
    """discord.py logs each failed reconnect with its whole traceback; during an outage, one line each does.

    The reason stays on the line (`ClientConnectorError: Cannot connect to host ...`); at DEBUG the traceback
    stays too.
    """
    debug = logging.getLogger("discord").isEnabledFor(logging.DEBUG)
    if record.exc_info and str(record.msg).startswith("Attempting a reconnect") and not debug:
        error = record.exc_info[1]
        record.msg = f"{record.msg} ({type(error).__name__}: %s)"
        record.args = (*(record.args if isinstance(record.args, tuple) else ()), error)
        record.exc_info = record.exc_text = None
    return True
