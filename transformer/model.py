"""The encoder-decoder Transformer: embed, encode, decode, project to the vocabulary."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from .config import ModelConfig
from .intervention import NO_INTERVENTION, Intervention
from .layers import DecoderLayer, EncoderLayer, PositionalEncoding, TokenEmbedding
from .masks import decoder_mask, padding_mask
from .trace import Trace


class ModelOutput(NamedTuple):
    logits: torch.Tensor      # (B, T, vocab): scores for the next token at every target position
    trace: Trace | None       # filled only when asked for with trace=True


class Encoded(NamedTuple):
    memory: torch.Tensor      # (B, S, d_model) what cross-attention reads
    src_mask: torch.Tensor    # (B, 1, 1, S)
    records: tuple            # per layer AttentionRecord, or () without trace


class Transformer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        c = config
        self.config = c
        pre_norm = c.norm == "pre"
        self.src_embed = TokenEmbedding(c.vocab_size, c.d_model)
        self.tgt_embed = self.src_embed if c.tie_embeddings else TokenEmbedding(c.vocab_size, c.d_model)
        self.positions = PositionalEncoding(c.d_model, c.max_positions, c.dropout)
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(c.d_model, c.n_heads, c.d_ff, c.dropout, pre_norm) for _ in range(c.n_encoder_layers)
        )
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(c.d_model, c.n_heads, c.d_ff, c.dropout, pre_norm) for _ in range(c.n_decoder_layers)
        )
        # Pre-norm leaves the residual stream un-normalised, so each stack ends with one LayerNorm.
        self.encoder_norm = nn.LayerNorm(c.d_model) if pre_norm else nn.Identity()
        self.decoder_norm = nn.LayerNorm(c.d_model) if pre_norm else nn.Identity()
        # The generator: a linear map to vocabulary scores; softmax turns them into probabilities.
        self.generator = nn.Linear(c.d_model, c.vocab_size, bias=False)
        if c.tie_embeddings:
            self.generator.weight = self.src_embed.lookup.weight
        for name, p in self.named_parameters():
            if p.dim() > 1 and "lookup" not in name:
                nn.init.xavier_uniform_(p)

    def _position_rows(self, edit: Intervention, side: str, length: int) -> torch.Tensor | None:
        if edit.positions == "normal":
            return None
        reachable = self.positions.encoding(max(self.config.max_len + 1, length))  # rows training ever used
        return edit.position_rows(reachable, side, length)

    def encode(self, src: torch.Tensor, trace: bool = False, edit: Intervention = NO_INTERVENTION) -> Encoded:
        """(B, S) source ids -> memory (B, S, d_model). `edit` is an experiment on this call only."""
        src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)
        x = self.positions(self.src_embed(src), self._position_rows(edit, "source", src.size(1)))
        records = []
        for i, layer in enumerate(self.encoder_layers):
            x, record = layer(x, src_mask, trace, edit.head_gate("encoder_self", i, self.config.n_heads))
            records.append(record)
        return Encoded(self.encoder_norm(x), src_mask, tuple(records) if trace else ())

    def decode(
        self, tgt: torch.Tensor, encoded: Encoded, trace: bool = False, edit: Intervention = NO_INTERVENTION
    ) -> tuple[torch.Tensor, torch.Tensor, tuple, tuple]:
        """(B, T) decoder input (SOS + tokens so far) -> logits (B, T, vocab), tgt_mask, self and cross records."""
        tgt_mask = decoder_mask(tgt, self.config.pad_id)  # (B, 1, T, T)
        y = self.positions(self.tgt_embed(tgt), self._position_rows(edit, "target", tgt.size(1)))
        self_records, cross_records = [], []
        h = self.config.n_heads
        for i, layer in enumerate(self.decoder_layers):
            y, self_record, cross_record = layer(y, encoded.memory, encoded.src_mask, tgt_mask, trace,
                                                 edit.head_gate("decoder_self", i, h), edit.head_gate("cross", i, h))
            self_records.append(self_record)
            cross_records.append(cross_record)
        logits = self.generator(self.decoder_norm(y))  # (B, T, vocab)
        if not trace:
            return logits, tgt_mask, (), ()
        return logits, tgt_mask, tuple(self_records), tuple(cross_records)

    def forward(
        self, src: torch.Tensor, tgt: torch.Tensor, trace: bool = False, edit: Intervention = NO_INTERVENTION
    ) -> ModelOutput:
        encoded = self.encode(src, trace, edit)
        logits, tgt_mask, self_records, cross_records = self.decode(tgt, encoded, trace, edit)
        if not trace:
            return ModelOutput(logits, None)
        record = Trace(
            encoder_self=tuple(r.weights for r in encoded.records),
            decoder_self=tuple(r.weights for r in self_records),
            cross=tuple(r.weights for r in cross_records),
            encoder_self_scores=tuple(r.scores for r in encoded.records),
            decoder_self_scores=tuple(r.scores for r in self_records),
            cross_scores=tuple(r.scores for r in cross_records),
            src_mask=encoded.src_mask,
            tgt_mask=tgt_mask,
            src_positions=self._rows_used(edit, "source", src.size(1)),
            tgt_positions=self._rows_used(edit, "target", tgt.size(1)),
            queries={kind: tuple(r.queries for r in records) for kind, records in
                     (("encoder_self", encoded.records), ("decoder_self", self_records), ("cross", cross_records))},
            keys={kind: tuple(r.keys for r in records) for kind, records in
                  (("encoder_self", encoded.records), ("decoder_self", self_records), ("cross", cross_records))},
        )
        return ModelOutput(logits, record)

    def _rows_used(self, edit: Intervention, side: str, length: int) -> torch.Tensor:
        rows = self._position_rows(edit, side, length)
        return (self.positions.encoding(length) if rows is None else rows).clone()

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())  # a tied matrix is counted once

    def parameter_counts(self) -> dict[str, int]:
        """Parameters per part of the model; with tied embeddings the shared matrix counts once."""
        tied = self.config.tie_embeddings
        parts = {
            "embeddings (shared with the generator)" if tied else "embeddings":
                [self.src_embed] if tied else [self.src_embed, self.tgt_embed],
            "encoder layers": [self.encoder_layers],
            "decoder layers": [self.decoder_layers],
            "final norms": [self.encoder_norm, self.decoder_norm],
        }
        if not tied:
            parts["generator"] = [self.generator]
        return {name: sum(p.numel() for m in modules for p in m.parameters()) for name, modules in parts.items()}
