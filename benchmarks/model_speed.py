"""Forward pass with and without the full trace, and batch greedy decoding, against torch.nn.Transformer.

    python -m benchmarks.model_speed [--repeats 30]

Both models have the bundled checkpoint's sizes and run on the CPU in eval mode under inference_mode.
torch's model gets our embeddings and generator around its encoder-decoder, so only the core differs.

Writes docs/records/model_speed.json.
"""

from __future__ import annotations

import argparse
import warnings
import random

import torch
from torch import nn

from benchmarks.record import write_record
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import pad, sample_strings
from transformer.decoding import greedy_batch
from transformer.masks import causal_mask
from transformer.vocab import EOS, PAD, SOS

from .common import interleaved_medians


def torch_model(ours):
    c = ours.config
    return nn.Transformer(c.d_model, c.n_heads, c.n_encoder_layers, c.n_decoder_layers, c.d_ff, dropout=0.0,
                          batch_first=True, norm_first=True).eval()


def torch_forward(ours, ref, src, tgt):
    memory_mask = src == PAD
    hidden = ref(ours.positions(ours.src_embed(src)), ours.positions(ours.tgt_embed(tgt)),
                 tgt_mask=~causal_mask(tgt.size(1))[0, 0], src_key_padding_mask=memory_mask,
                 tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=memory_mask)
    return ours.generator(hidden)


def torch_greedy(ours, ref, src):
    memory_mask = src == PAD
    memory = ref.encoder(ours.positions(ours.src_embed(src)), src_key_padding_mask=memory_mask)
    tgt = torch.full((src.size(0), 1), SOS, dtype=torch.long)
    done = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(src.size(1) + 1):
        y = ref.decoder(ours.positions(ours.tgt_embed(tgt)), memory, tgt_mask=~causal_mask(tgt.size(1))[0, 0],
                        memory_key_padding_mask=memory_mask)
        token = ours.generator(y[:, -1]).argmax(-1).masked_fill(done, PAD)
        tgt = torch.cat([tgt, token[:, None]], 1)
        done |= token == EOS
        if done.all():
            break
    return tgt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--words", type=int, default=2000)
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    warnings.filterwarnings("ignore", message="enable_nested_tensor is True")  # norm_first disables it; expected
    ckpt = load(bundled_checkpoint("reverse"))
    model, vocab = ckpt.model, ckpt.vocab
    ref = torch_model(model)
    rng = random.Random(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; medians of {args.repeats} runs (ms)")
    print("full trace: every activation recorded (transformer/trace.py); +numpy: and batch row 0 copied to numpy, "
          "as a page's run keeps it")
    print(f"{'len':>4} {'full trace':>11} {'+numpy':>8} {'ours fast':>10} {'torch':>8} {'trace/fast':>11} "
          f"{'+numpy/fast':>12} {'fast/torch':>11}")
    worst, rows = 0.0, []
    with torch.inference_mode():
        for length in range(1, model.config.max_len + 1):
            text = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))
            src = torch.tensor([vocab.encode(text, model.config.max_len)])
            tgt = torch.tensor([[SOS] + vocab.encode(text[::-1], model.config.max_len)])
            m = interleaved_medians({
                "trace": lambda: model(src, tgt, trace=True),
                "numpy": lambda: model(src, tgt, trace=True).trace.row(0),
                "fast": lambda: model(src, tgt),
                "torch": lambda: torch_forward(model, ref, src, tgt),
            }, args.repeats)
            print(f"{length:>4} {m['trace'] * 1e3:>11.3f} {m['numpy'] * 1e3:>8.3f} {m['fast'] * 1e3:>10.3f} "
                  f"{m['torch'] * 1e3:>8.3f} {m['trace'] / m['fast']:>11.2f} {m['numpy'] / m['fast']:>12.2f} "
                  f"{m['fast'] / m['torch']:>11.2f}")
            rows.append({"len": length, "full trace ms": round(m["trace"] * 1e3, 3),
                         "+numpy ms": round(m["numpy"] * 1e3, 3), "ours fast ms": round(m["fast"] * 1e3, 3),
                         "torch ms": round(m["torch"] * 1e3, 3), "trace/fast": round(m["trace"] / m["fast"], 2),
                         "+numpy/fast": round(m["numpy"] / m["fast"], 2),
                         "fast/torch": round(m["fast"] / m["torch"], 2)})
            worst = max(worst, m["trace"] / m["fast"])
        print(f"worst full trace / fast path over lengths 1-{model.config.max_len}: {worst:.2f}")
        words = sample_strings(args.words, 99, model.config.max_len, held_out=True)
        sources = [vocab.encode(w, model.config.max_len) for w in words]
        src = pad(sources)
        m = interleaved_medians({
            "ours": lambda: greedy_batch(model, sources, batch_size=len(sources)),
            "torch": lambda: torch_greedy(model, ref, src),
        }, max(3, args.repeats // 10), warmup=1)
    print(f"batch greedy decoding of {len(words)} held-out words (one batch): "
          f"ours {len(words) / m['ours']:,.0f} words/s, torch.nn.Transformer {len(words) / m['torch']:,.0f} words/s, "
          f"ratio ours/torch time {m['ours'] / m['torch']:.2f}")
    write_record("model_speed", {
        "torch": str(torch.__version__), "threads": torch.get_num_threads(), "medians of": args.repeats, "rows": rows,
        f"worst full trace / fast path over lengths 1-{model.config.max_len}": round(worst, 2),
        "batch greedy decoding (one batch)": {"held-out words": len(words),
                                              "ours words/s": round(len(words) / m["ours"]),
                                              "torch.nn.Transformer words/s": round(len(words) / m["torch"]),
                                              "ratio ours/torch time": round(m["ours"] / m["torch"], 2)}})


if __name__ == "__main__":
    main()
