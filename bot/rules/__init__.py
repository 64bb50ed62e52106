"""The pure rules core: standard library only, randomness passed in.

A citation such as `dnd35.md §7`, `star_frontiers.md §4` or `aliensrl.md §9.6` names a section (and item) of
the rules references in docs/rules/, which tests/test_docs.py keeps in step with every citation.
"""
