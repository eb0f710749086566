"""The encoder-decoder drawn as a Graphviz diagram, labelled with the checkpoint's real sizes."""

from __future__ import annotations


def architecture_dot(
    d_model: int, n_heads: int, d_ff: int, n_encoder_layers: int, n_decoder_layers: int,
    vocab_size: int, norm: str, tie_embeddings: bool,
) -> str:
    """A DOT graph: embeddings + positions -> N encoder layers -> memory -> M decoder layers -> generator."""
    d_k = d_model // n_heads
    if norm == "pre":
        block = "x + {f}(LayerNorm(x))"
    else:
        block = "LayerNorm(x + {f}(x))"
    tie = "shared with both embeddings" if tie_embeddings else "its own weights"
    enc = "\\n".join([
        f"Encoder layer × {n_encoder_layers}",
        block.format(f=f"SelfAttention[{n_heads} heads × d_k {d_k}]"),
        block.format(f=f"FFN[{d_model}→{d_ff}→{d_model}]"),
    ])
    dec = "\\n".join([
        f"Decoder layer × {n_decoder_layers}",
        block.format(f="MaskedSelfAttention") + "  (causal)",
        block.format(f="CrossAttention") + "  (Q: decoder, K,V: encoder)",
        block.format(f=f"FFN[{d_model}→{d_ff}→{d_model}]"),
    ])
    final = "final LayerNorm" if norm == "pre" else "(no final norm: post-norm)"
    return f"""digraph G {{
  rankdir=TB; nodesep=0.5; ranksep=0.35;
  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=12, fillcolor="#eef2ff", color="#6366f1"];
  edge [color="#475569"];
  src [label="source characters (S)", fillcolor="#fef3c7", color="#d97706"];
  tgt [label="⟨s⟩ + output so far (T)\\n(the target shifted right)", fillcolor="#fef3c7", color="#d97706"];
  semb [label="token embedding × √{d_model}\\n+ sinusoidal positions"];
  temb [label="token embedding × √{d_model}\\n+ sinusoidal positions"];
  enc [label="{enc}"];
  encn [label="{final}"];
  dec [label="{dec}"];
  decn [label="{final}"];
  gen [label="generator: Linear {d_model}→{vocab_size} ({tie})\\n+ softmax → next-token probabilities", fillcolor="#dcfce7", color="#16a34a"];
  src -> semb -> enc -> encn;
  tgt -> temb -> dec -> decn -> gen;
  encn -> dec [label=" memory (K, V)", fontsize=11];
}}"""
