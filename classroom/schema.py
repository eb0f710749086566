"""The tables, as SQLAlchemy Core sees them. The migrations in classroom/migrations create them; a test holds
the two equal, so the code never reads a column the database lacks."""

from __future__ import annotations

from sqlalchemy import (
    Boolean, Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text, UniqueConstraint,
)

metadata = MetaData()

classes = Table(
    "classes", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(6), nullable=False, unique=True),          # what students type
    Column("secret_digest", String(64), nullable=False),              # SHA-256 of the teacher's secret
    Column("text", String(64), nullable=False, index=True),           # the word every live view shows
    Column("step", Integer, nullable=False, default=1),               # the lesson step on screen
    Column("round", Integer, nullable=False, default=1),              # 1, or 2 after discussion
    Column("voting", Boolean, nullable=False, default=False),         # votes are taken now
    Column("spread_shown", Boolean, nullable=False, default=False),   # the students see the bar chart
    Column("revealed", Boolean, nullable=False, default=False),       # the model's answer is out
    Column("created_at", Float, nullable=False),                      # seconds since the epoch
    Column("expires_at", Float, nullable=False),
    Column("changed_at", Float, nullable=False),                      # any of the above changed
    Column("seats_given", Integer, nullable=False, server_default="0"),  # the last seat number handed out (a
                                                                         # removed seat's is not given again)
    Column("quiz_stage", Integer, nullable=False, server_default="0"),   # classroom.store.QUIZ_STAGES
    Column("quiz_seed", Integer, nullable=False, server_default="0"),    # the class's two quizzes are built from it
    Column("revealed_steps", Integer, nullable=False, server_default="0"),  # bit n set: step n's answer is out
    Column("teacher_digest", String(64), index=True),   # keyed digest of the browser that started it (None: a
                                                          # client without the browser's cookie)
    Column("task", String(400)),      # predict, then train: the task asked about, as JSON (teaching.predict_train)
    Column("training", Text),         # and its model's run as every screen draws it, as JSON
)

seats = Table(
    "seats", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("number", Integer, nullable=False),                        # "Student 17"
    Column("token_digest", String(64), nullable=False, unique=True),  # SHA-256 of the seat's link token
    Column("nickname", String(24), nullable=False),
    Column("joined_at", Float, nullable=False),
    Column("browser_digest", String(64)),   # keyed digest of the browser that took it (None: a client without
    Column("address_digest", String(64)),   # the browser's cookie) and of its address (codes.keyed_digest)
    UniqueConstraint("class_id", "number", name="uq_seat_number"),
    Index("uq_seat_browser", "class_id", "browser_digest", unique=True),     # one seat per browser (an index:
                                                                              # migration 0004 says why)
    Index("ix_seats_address", "class_id", "address_digest"),
)

votes = Table(
    "votes", metadata,
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("seat_id", Integer, ForeignKey("seats.id", ondelete="CASCADE"), nullable=False),
    Column("option", String(120), nullable=False),
    Column("voted_at", Float, nullable=False),
    UniqueConstraint("class_id", "step", "round", "seat_id", name="uq_one_vote"),   # voting again replaces
)

quiz_answers = Table(
    "quiz_answers", metadata,
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("form", String(6), nullable=False),                        # "before" or "after"
    Column("seat_id", Integer, ForeignKey("seats.id", ondelete="CASCADE"), nullable=False),
    Column("item", Integer, nullable=False),                          # the item's place in the quiz, from 0
    Column("option", String(120), nullable=False),
    Column("answered_at", Float, nullable=False),
    UniqueConstraint("class_id", "form", "seat_id", "item", name="uq_one_answer"),   # handing in again replaces
)
