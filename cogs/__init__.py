"""Slash-command cogs: every module here whose name does not start with "_" is loaded."""
