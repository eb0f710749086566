"""What a checkpoint's two JSON files may say, checked before anything is built from them.

config.json is a promise about sizes: `Transformer(config)` allocates what it describes. So every field is
checked for its type and range, and the parameters and the positional table the numbers imply are counted,
before a single tensor exists. metrics.json is read by the pages (the model card, the learning curves), so
its fields are checked too: a string where a fraction belongs would break every page later.

The limits are far above the bundled model (235,648 parameters, a 128-row table) and the app's own live
runs, and far below what would hurt a shared server.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .config import ModelConfig
from .vocab import CHARACTERS, SPECIALS

MAX_PARAMETERS = 1_000_000     # 4 MB of float32 weights; the bundled model has 235,648
MAX_POSITIONS = 512            # rows of the positional table; the bundled model has 128
MAX_CONFIG_BYTES = 64 * 1024   # config.json as read, before parsing
MAX_METRICS_BYTES = 1024 * 1024

Count = Annotated[int, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Scalar = str | int | float | bool | None


class _Strict(BaseModel):
    """JSON types as written: 64.0 is not an int, 1 is not a bool, null is not a number; no unknown fields."""
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class ModelSection(_Strict):
    vocab_size: Annotated[int, Field(ge=len(SPECIALS) + 1, le=256)]
    d_model: Annotated[int, Field(ge=2, le=256)]
    n_heads: Annotated[int, Field(ge=1, le=8)]
    n_encoder_layers: Annotated[int, Field(ge=1, le=4)]
    n_decoder_layers: Annotated[int, Field(ge=1, le=4)]
    d_ff: Annotated[int, Field(ge=1, le=1024)]
    dropout: Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)]
    max_len: Annotated[int, Field(ge=1, le=MAX_POSITIONS - 1)]
    max_positions: Annotated[int, Field(ge=2, le=MAX_POSITIONS)]
    norm: Literal["pre", "post"]
    tie_embeddings: bool
    pad_id: Literal[0]

    @model_validator(mode="after")
    def _fits(self) -> "ModelSection":
        if self.d_model % 2:
            raise ValueError(f"d_model {self.d_model} must be even (sine and cosine come in pairs)")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model} must be divisible by n_heads {self.n_heads}")
        if self.max_positions < self.max_len + 1:
            raise ValueError(f"max_positions {self.max_positions} must cover max_len + 1 = {self.max_len + 1} "
                             "target positions")
        return self  # the parameters these sizes imply are counted by the loader (CheckpointTooLargeError)

    def config(self) -> ModelConfig:
        return ModelConfig(**self.model_dump())


class VocabSection(_Strict):
    specials: list[str]
    characters: str

    @model_validator(mode="after")
    def _ours(self) -> "VocabSection":
        if tuple(self.specials) != SPECIALS:
            raise ValueError(f"the special tokens must be {list(SPECIALS)}")
        if self.characters != CHARACTERS:
            raise ValueError(f"the characters must be this project's own {CHARACTERS!r} (space, then a-z)")
        return self


class ConfigFile(_Strict):
    model: ModelSection
    vocab: VocabSection
    task: Literal["reverse", "copy", "sort"] = "reverse"   # what it was trained for (absent in older files: reverse)

    @model_validator(mode="after")
    def _vocab_fits_model(self) -> "ConfigFile":
        tokens = len(self.vocab.specials) + len(self.vocab.characters)
        if self.model.vocab_size != tokens:
            raise ValueError(f"model.vocab_size is {self.model.vocab_size} but the vocabulary has {tokens} tokens")
        return self


class HeldOut(_Strict):
    n: Count
    exact_match: Share
    seed: Scalar = None
    per_length: dict[str, Share] | None = None


class CurvePoint(_Strict):
    step: Count
    loss: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    exact_match: Share | None = None
    alignment: Share | None = None
    seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None


class MetricsFile(_Strict):
    """Every field the project's own trainers write (transformer.train, the app's live runs); all optional."""
    task: Annotated[str, Field(max_length=500)] | None = None
    command: Annotated[str, Field(max_length=2000)] | None = None
    steps: Count | None = None
    steps_done: Count | None = None
    batch_size: Count | None = None
    seed: Count | None = None
    parameters: Count | None = None
    train_seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    recording_seconds: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    machine: dict[str, Scalar] | None = None
    settings: dict[str, Scalar] | None = None
    held_out: HeldOut | None = None
    cross_attention_alignment: dict[str, list[Share]] | None = None
    history: list[CurvePoint] | None = None
    curve: list[CurvePoint] | None = None


class Snapshot(_Strict):
    """One saved point of a training run, as the Training page shows it."""
    step: Count
    fraction: Share
    loss: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    exact_match: Share
    alignment: Share


class SnapshotIndex(_Strict):
    snapshots: list[Snapshot]


class SchemaError(ValueError):
    """A JSON file that breaks the schema; the message lists each field that is wrong and what it held."""


PLAIN_WORDS = (("Value error, ", ""), ("Input should be less than or equal to", "must be at most"),
               ("Input should be greater than or equal to", "must be at least"), ("Input should be", "must be"),
               ("Extra inputs are not permitted", "is not a field this app reads"), ("Field required", "is missing"))


def _describe(err: ValidationError) -> str:
    problems = []
    for e in err.errors()[:5]:
        where = ".".join(str(part) for part in e["loc"])
        message = e["msg"]
        for technical, plain in PLAIN_WORDS:
            message = message.replace(technical, plain)
        found = "" if e["type"] in ("json_invalid", "value_error", "missing") else f" (found {e['input']!r:.40})"
        problems.append(f"{where + ': ' if where else ''}{message}{found}")
    more = len(err.errors()) - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


S = TypeVar("S", bound=BaseModel)


def parse(schema: type[S], data: bytes) -> S:
    """A JSON file's bytes -> its checked contents (ConfigFile, MetricsFile, SnapshotIndex), or SchemaError
    naming what is wrong. Pydantic parses the JSON itself, so nesting too deep is an error, not a crash."""
    try:
        return schema.model_validate_json(data)
    except ValidationError as err:
        raise SchemaError(_describe(err)) from None
