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
from .task_rules import MAX_LENGTH, MAX_SPEC_CHARACTERS, SPACE, TaskSpecError, check_alphabet, parse_rule
from .vocab import SPECIALS

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
    output_factor: Annotated[int, Field(ge=1, le=8)] = 1
    norm: Literal["pre", "post"]
    tie_embeddings: bool
    pad_id: Literal[0]

    @model_validator(mode="after")
    def _fits(self) -> "ModelSection":
        if self.d_model % 2:
            raise ValueError(f"d_model {self.d_model} must be even (sine and cosine come in pairs)")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model {self.d_model} must be divisible by n_heads {self.n_heads}")
        if self.max_positions < self.output_factor * self.max_len + 1:
            needed = self.output_factor * self.max_len + 1
            raise ValueError(f"max_positions {self.max_positions} must cover output_factor × max_len + 1 = "
                             f"{needed} target positions")
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
        if not self.characters.startswith(SPACE):
            raise ValueError("the characters must start with the space")
        try:
            if check_alphabet(self.characters[1:]) != self.characters[1:]:
                raise ValueError("the characters after the space must be in code order")
        except TaskSpecError as err:
            raise ValueError(str(err)) from None
        return self


class ConfigFile(_Strict):
    model: ModelSection
    vocab: VocabSection
    task: Annotated[str, Field(max_length=MAX_SPEC_CHARACTERS)] = "reverse"   # a rule (absent in older files)
    min_len: Annotated[int, Field(ge=1, le=MAX_LENGTH)] = 1                 # the shortest text it trained on

    @model_validator(mode="after")
    def _vocab_fits_model(self) -> "ConfigFile":
        tokens = len(self.vocab.specials) + len(self.vocab.characters)
        if self.model.vocab_size != tokens:
            raise ValueError(f"model.vocab_size is {self.model.vocab_size} but the vocabulary has {tokens} tokens")
        try:
            rule = parse_rule(self.task)
        except TaskSpecError as err:
            raise ValueError(f"task: {err}") from None
        if rule.length_factor > self.model.output_factor:
            raise ValueError(f"task {rule.spec} writes {rule.length_factor} characters per character read, but "
                             f"model.output_factor is {self.model.output_factor}")
        if self.min_len > self.model.max_len:
            raise ValueError(f"min_len {self.min_len} is above model.max_len {self.model.max_len}")
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
