"""Which database, how to reach it, and bringing its schema up to date.

EXPLORER_DATABASE_URL names it; unset, a SQLite file at DEFAULT_PATH (every replica of scripts/serve.sh reads
the same file, so a class spread over replicas is one class). SQLite runs in WAL mode, so the students' polling
reads never wait for a vote being written; PostgreSQL takes a postgresql+psycopg:// URL."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from .errors import StoreUnavailable

URL_VARIABLE = "EXPLORER_DATABASE_URL"
DEFAULT_PATH = Path(__file__).resolve().parents[1] / "data" / "classes.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_MS = 10_000   # a writer waits this long for another replica's write to finish


def database_url() -> str:
    return os.environ.get(URL_VARIABLE) or f"sqlite:///{DEFAULT_PATH}"


def make_engine(url: str | None = None) -> Engine:
    """An engine for the URL (default: database_url()), with SQLite set to WAL, foreign keys on and a busy
    timeout on every connection."""
    url = url or database_url()
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_settings)
    return engine


def _sqlite_settings(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")         # a vote the student was told is stored survives a crash
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _alembic_config(connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    return ScriptDirectory.from_config(_alembic_config(None)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration. Replicas starting together take turns: PostgreSQL through an
    advisory lock held for the migration's transaction; SQLite, whose DDL commits statement by statement, through
    an exclusive lock on a file beside the database, so no replica ever sees half a migration."""
    try:
        with _sqlite_migration_lock(engine), engine.begin() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(727001)"))
            command.upgrade(_alembic_config(connection), "head")
    except (SQLAlchemyError, OSError) as error:
        raise StoreUnavailable(f"The class database cannot be reached just now ({type(error).__name__}), so "
                               "classes cannot be run or joined; the lesson and every other page still work.") \
            from error


@contextmanager
def _sqlite_migration_lock(engine: Engine) -> Iterator[None]:
    path = engine.url.database
    if engine.dialect.name != "sqlite" or not path or path == ":memory:":
        yield
        return
    with open(f"{path}.migrate-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # released when the file closes, or the process dies
        yield
