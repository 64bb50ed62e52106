"""A local stand-in for Discord: the same bot, driven without a network.

`double` serves Discord's REST API and gateway on loopback, `payloads` builds the raw interactions the
gateway would deliver, `limits` checks what the bot sends against Discord's documented limits, `driver`
ties them to a real bot, and `console` turns typed slash commands into interactions.
"""
