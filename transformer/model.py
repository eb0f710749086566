"""The encoder-decoder Transformer: embed, encode, decode, project to the vocabulary."""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from .config import ModelConfig
from .intervention import NO_INTERVENTION, Intervention
from .layers import DecoderLayer, EncoderLayer, LayerCache, PositionalEncoding, TokenEmbedding
from .masks import decoder_mask, padding_mask
from .trace import Recorder, Trace, child_of


class ModelOutput(NamedTuple):
    logits: torch.Tensor      # (B, T, vocab): scores for the next token at every target position
    trace: Trace | None       # every activation, filled only when asked for with trace=True


class Encoded(NamedTuple):
    memory: torch.Tensor      # (B, S, d_model) what cross-attention reads
    src_mask: torch.Tensor    # (B, 1, 1, S)
    source: torch.Tensor      # (B, S) the source ids: a replaced cross-attention pattern is built from them


class DecoderCache:
    """What incremental decoding keeps between steps: the encoder's output, each decoder layer's keys and values
    (LayerCache), and the tokens read so far (for the padding mask and the step's position)."""

    def __init__(self, encoded: Encoded, layers: list[LayerCache], gates: list[tuple]) -> None:
        self.encoded, self.layers = encoded, layers
        self.gates = gates                # per layer: (self-attention, cross-attention) head gates, or None
        self.tokens = encoded.source.new_zeros(encoded.source.size(0), 0)       # (B, t): read so far

    @property
    def position(self) -> int:
        return self.tokens.size(1)

    def keep(self, positions: int) -> None:
        """Forget every position from `positions` on: the cache as it was after reading that many."""
        self.tokens = self.tokens[:, :positions]
        for layer in self.layers:
            layer.keep(positions)


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
        trained = self.config.output_factor * self.config.max_len + 1      # rows training ever used
        return edit.position_rows(self.positions.encoding(max(trained, length)), side, length, trained)

    def _input(self, ids: torch.Tensor, side: str, edit: Intervention, record: Recorder | None,
               start: int = 0) -> torch.Tensor:
        """(B, L) ids at positions start .. start+L-1 -> (B, L, d_model): scaled embeddings plus the positional
        rows (or an experiment's rows). start > 0: the new positions of incremental decoding."""
        embed, name = (self.src_embed, "src") if side == "source" else (self.tgt_embed, "tgt")
        given = edit.source_embeddings if side == "source" else None
        scaled = embed(ids) if given is None else given                      # (B, L, d_model)
        length = start + ids.size(1)
        rows = self._position_rows(edit, side, length)                       # (start+L, d_model) or None
        if rows is not None or start:
            rows = (self.positions.encoding(length) if rows is None else rows)[start:]   # (L, d_model)
        x = self.positions(scaled, rows)
        if record is not None:
            used = self.positions.encoding(ids.size(1)) if rows is None else rows
            record[f"{name}_embed.output"] = scaled
            record[f"{name}_positions.rows"] = used.expand_as(scaled)
            record[f"{name}_positions.output"] = x
        return x

    def encode(self, src: torch.Tensor, record: Recorder | None = None,
               edit: Intervention = NO_INTERVENTION) -> Encoded:
        """(B, S) source ids -> memory (B, S, d_model). `edit` is an experiment on this call only."""
        src_mask = padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)
        x = self._input(src, "source", edit, record)
        for i, layer in enumerate(self.encoder_layers):
            x = layer(x, src_mask, child_of(record, f"encoder_layers.{i}"),
                      edit.head_gate("encoder_self", i, self.config.n_heads))
        memory = edit.patched_memory(self.encoder_norm(x))
        if record is not None:
            record["masks.source"], record["encoder_norm.output"] = src_mask, memory
        return Encoded(memory, src_mask, src)

    def decode(self, tgt: torch.Tensor, encoded: Encoded, record: Recorder | None = None,
               edit: Intervention = NO_INTERVENTION) -> torch.Tensor:
        """(B, T) decoder input (SOS + tokens so far) -> logits (B, T, vocab)."""
        tgt_mask = decoder_mask(tgt, self.config.pad_id)  # (B, 1, T, T)
        y = self._input(tgt, "target", edit, record)
        h = self.config.n_heads
        for i, layer in enumerate(self.decoder_layers):
            y = layer(y, encoded.memory, encoded.src_mask, tgt_mask,
                      child_of(record, f"decoder_layers.{i}"),
                      edit.head_gate("decoder_self", i, h), edit.head_gate("cross", i, h),
                      edit.cross_override(i, h, encoded.source, tgt.size(1)), edit.cross_head_values(i))
            y = edit.patched_stream(i, y)
        final = self.decoder_norm(y)
        logits = self.generator(final)  # (B, T, vocab)
        if record is not None:
            record["masks.target"], record["decoder_norm.output"], record["generator.logits"] = tgt_mask, final, logits
        return logits

    def start_decoding(self, encoded: Encoded, edit: Intervention = NO_INTERVENTION) -> DecoderCache:
        """An empty cache for this encoding and this edit: cross-attention's keys and values are computed here,
        once, and so are the heads switched off."""
        h = self.config.n_heads
        gates = [(edit.head_gate("decoder_self", i, h), edit.head_gate("cross", i, h))
                 for i in range(len(self.decoder_layers))]
        return DecoderCache(encoded, [LayerCache(layer, encoded.memory) for layer in self.decoder_layers], gates)

    def decode_step(self, token: torch.Tensor, cache: DecoderCache,
                    edit: Intervention = NO_INTERVENTION) -> torch.Tensor:
        """(B,) the token read at position t = cache.position -> logits (B, vocab) for the next one."""
        return self.decode_block(token[:, None], cache, edit)[:, 0]

    def decode_block(self, tokens: torch.Tensor, cache: DecoderCache,
                     edit: Intervention = NO_INTERVENTION) -> torch.Tensor:
        """(B, P) tokens read at positions t .. t+P-1 (t = cache.position) -> logits (B, P, vocab), each for the
        token after it: only the new rows through each layer, the past read from the cache, which grows by P.
        Gives what decode() gives at those rows for the whole prefix (tests hold them equal), at the cost of P
        positions, not t + P. `edit` must be the one the cache was started with."""
        t, p, h = cache.position, tokens.size(1), self.config.n_heads
        cache.tokens = torch.cat([cache.tokens, tokens], dim=1)                        # (B, t+P)
        key_mask = decoder_mask(cache.tokens, self.config.pad_id)[:, :, t:]            # (B, 1, P, t+P)
        y = self._input(tokens, "target", edit, None, start=t)                         # (B, P, d_model)
        encoded = cache.encoded
        for i, (layer, kept, gates) in enumerate(zip(self.decoder_layers, cache.layers, cache.gates)):
            override = edit.cross_override(i, h, encoded.source, t + p) if edit.replaced else None
            if override is not None:
                override = override._replace(weights=override.weights[:, t:])          # (B, P, S): these rows
            values = [(head, position - t, value) for head, position, value in edit.cross_head_values(i) or ()
                      if t <= position < t + p] if edit.patches else None
            y = layer.step(y, kept, key_mask, encoded.src_mask, *gates, override, values or None)
            if edit.patches:
                y = edit.patched_stream(i, y, t)
        return self.generator(self.decoder_norm(y))                                    # (B, P, vocab)

    def forward(
        self, src: torch.Tensor, tgt: torch.Tensor, trace: bool = False, edit: Intervention = NO_INTERVENTION
    ) -> ModelOutput:
        record = Recorder() if trace else None
        logits = self.decode(tgt, self.encode(src, record, edit), record, edit)
        return ModelOutput(logits, Trace(record.store) if trace else None)

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
