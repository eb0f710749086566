"""The model's hyper-parameters, frozen and saved beside the weights as JSON."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 30         # PAD, SOS, EOS, space and a-z (see vocab.py)
    d_model: int = 64            # width of every token vector
    n_heads: int = 4             # attention heads per layer; d_k = d_model // n_heads
    n_encoder_layers: int = 2
    n_decoder_layers: int = 2
    d_ff: int = 256              # hidden width of the position-wise feed-forward network
    dropout: float = 0.0         # applied to sublayer outputs, attention weights and the FFN hidden layer
    max_len: int = 24            # longest input text, in characters; the target is one token longer (EOS)
    max_positions: int = 128     # rows of the positional-encoding table (room to try longer inputs)
    output_factor: int = 1       # outputs are at most this many times the input's length (double, mirror: 2)
    norm: Literal["pre", "post"] = "pre"  # pre: x + f(LN(x)), plus a final LN; post: LN(x + f(x))
    tie_embeddings: bool = True  # source embedding, target embedding and output projection share one matrix
    pad_id: int = 0

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_heads={self.n_heads}")
        if self.d_model % 2:
            raise ValueError(f"d_model={self.d_model} must be even for sinusoidal positions")
        if self.norm not in ("pre", "post"):
            raise ValueError(f"norm must be 'pre' or 'post', not {self.norm!r}")
        if self.output_factor < 1:
            raise ValueError(f"output_factor must be at least 1, not {self.output_factor}")
        if self.max_positions < self.output_factor * self.max_len + 1:
            raise ValueError("max_positions must cover output_factor × max_len + 1 target positions")

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    @property
    def layers_per_kind(self) -> dict[str, int]:
        """How many layers each attention kind has: cross-attention lives in the decoder layers."""
        return {"encoder_self": self.n_encoder_layers, "decoder_self": self.n_decoder_layers,
                "cross": self.n_decoder_layers}

    def implied_parameters(self) -> int:
        """The parameters Transformer(self) will hold, counted from the sizes alone, so a config can be refused
        before anything is allocated (a test holds it equal to the built model's count)."""
        d, f, v = self.d_model, self.d_ff, self.vocab_size
        attention = 4 * (d * d + d)                 # W_Q, W_K, W_V, W^O with biases
        feed_forward = d * f + f + f * d + d        # expand and contract, with biases
        norm = 2 * d                                # LayerNorm gain and bias
        encoder_layer = attention + feed_forward + 2 * norm
        decoder_layer = 2 * attention + feed_forward + 3 * norm
        embeddings = v * d if self.tie_embeddings else 3 * v * d  # source, target, generator (no bias)
        final_norms = 2 * norm if self.norm == "pre" else 0
        return (embeddings + self.n_encoder_layers * encoder_layer + self.n_decoder_layers * decoder_layer
                + final_norms)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown config fields: {', '.join(unknown)}")
        return cls(**data)
