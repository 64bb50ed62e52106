"""The pure rules core: standard library only, randomness passed in."""
