"""A Discord dice bot that resolves tabletop attacks step by step.

Importing this package must stay free of side effects and of third-party imports: the rules core
(`bot.rules`) is imported without Discord or the database, and a test checks it.
"""
