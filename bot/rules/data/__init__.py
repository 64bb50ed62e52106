"""Data tables for the rules core."""
