"""Rulesets used only by the tests: a fourth game that plugs into the registry with no edit to a shared file."""
