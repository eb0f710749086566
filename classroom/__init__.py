"""Class mode's store: classes, seats and votes in a database (SQLAlchemy Core, schema by Alembic migrations),
SQLite in WAL mode by default and PostgreSQL through the same URL. No Streamlit: pages reach it through
explorer/, and nothing about a class lives in a session or a process."""
