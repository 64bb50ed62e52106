"""Character stat blocks: one validated schema per ruleset, versioned, with upgrades for old blocks.

Each ruleset declares its sheet once, with the rest of it, in the registry (`bot.rules.rulesets.get(key)`);
`base` holds what every sheet shares.
"""
