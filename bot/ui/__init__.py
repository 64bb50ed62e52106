"""Presentation: results of the rules core turned into embeds, within Discord's limits."""
