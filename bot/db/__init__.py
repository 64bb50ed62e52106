"""Storage: SQLAlchemy's async engine over SQLite (aiosqlite); repositories return plain dataclasses."""
