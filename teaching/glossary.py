"""Every technical term the pages use, in one or two sentences (which page uses which: explorer.pages)."""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "token": "The unit the model reads and writes: here one character (a-z or a space), or one of the special "
             "symbols ⟨s⟩ (start), ⟨/s⟩ (end) and · (padding). Each has an id, its row in the embedding table.",
    "embedding": "The learned vector of d_model numbers that stands for a token. The model multiplies it by "
                 "√d_model before adding the positional code.",
    "d_model": "The width of every vector inside the model: embeddings, positional codes and the residual stream.",
    "positional encoding": "A fixed vector per position, sines and cosines of different frequencies, added to the "
                           "embedding so the model can tell positions apart: attention alone ignores order.",
    "encoder": "The stack that reads the whole source text at once and turns each character into a vector that "
               "also carries what the other characters say.",
    "decoder": "The stack that writes the output one token at a time, reading the start symbol, what it has "
               "written so far, and (through cross-attention) the encoder's output.",
    "residual stream": "The vector each position carries through a stack. Every sublayer reads it and adds its "
                       "own output back to it, so it is the sum of the input and everything written since.",
    "LayerNorm": "Rescales a vector to mean 0 and spread 1, then applies a learned gain γ and shift β. The bundled "
                 "model applies it to each sublayer's input (pre-norm) and once at the end of each stack.",
    "attention head": "One attention computation with its own query, key and value projections. A layer runs "
                      "several heads side by side and mixes their outputs with W^O.",
    "query": "What a position is looking for: its vector after the sublayer's LayerNorm, times W_Q, plus a bias "
             "(q = LN(x) W_Q + b_Q in this pre-norm model). Its dot product with every key scores the keys.",
    "key": "What a position offers to be found by: its vector after the sublayer's LayerNorm, times W_K, plus a "
           "bias.",
    "value": "What a position passes on when it is attended to: its vector after the sublayer's LayerNorm, times "
             "W_V, plus a bias. A head's output is the weighted sum of the values.",
    "score": "q · k / √d_k for one query and one key, before the softmax; −∞ where a mask hides the key.",
    "d_k": "The length of each head's queries, keys and values: d_model divided by the number of heads.",
    "softmax": "Turns a row of scores into weights that are positive and sum to 1: e^score divided by the sum "
               "of e^score over the row.",
    "attention weight": "How much one query takes from one key's value, after the softmax. A row of weights sums "
                        "to 1; a masked key gets exactly 0.",
    "W^O": "The output projection of multi-head attention: it mixes the heads' concatenated outputs back into "
           "d_model numbers.",
    "self-attention": "Attention where queries, keys and values all come from the same sequence (the source in the "
                      "encoder, the output so far in the decoder).",
    "cross-attention": "Attention where the queries come from the decoder and the keys and values from the "
                       "encoder's output: how each output step reads the source.",
    "mask": "A table of which keys each query may see. Masked scores become −∞, so their weights are exactly 0.",
    "padding mask": "Hides the padding symbols added so that texts of different lengths fit in one batch.",
    "causal mask": "Hides every later position from a decoder position, so in training no position can read the "
                   "answer it is learning to write.",
    "feed-forward network": "Two linear layers with a ReLU between them, applied to each position on its own after "
                            "the attention.",
    "logit": "The generator's raw score for one token of the vocabulary; softmax turns a step's logits into "
             "next-token probabilities.",
    "generator": "The last linear layer: it turns the decoder's output vector into one logit per token. In the "
                 "bundled model it shares its weights with the embeddings (weight tying).",
    "greedy decoding": "Writing the most probable token at every step.",
    "key/value cache": "What generation keeps between steps: every decoder position's keys and values, and "
                       "cross-attention's from the memory; as no position reads a later one, a step runs only its "
                       "own position. Without it, writing n tokens runs n(n + 1)/2 positions through each layer "
                       "instead of n, which is why generation usually works this way, paying in memory.",
    "draft decoding": "Greedy decoding checked in one pass over a guess of the whole answer: the causal mask makes "
                      "each position's most likely token greedy's own choice there, as long as the guess before it "
                      "is what greedy wrote, so the guess is kept up to the first position that disagrees. Here the "
                      "guess is the task's answer; speculative decoding uses the same check, a small model writing "
                      "the guess.",
    "temperature": "Dividing the logits by T before the softmax: below 1 sharpens the distribution, above 1 "
                   "flattens it; used when sampling.",
    "teacher forcing": "In training, the decoder reads the correct previous tokens rather than its own guesses, so "
                       "every position learns in one parallel pass.",
    "exact match": "The share of texts whose whole output is exactly right; a text with one wrong character "
                   "counts as wrong.",
    "ablation": "Switching a head off (its output set to zero) to measure what the model loses without it.",
    "loss": "Cross-entropy: −log of the probability the model gave the correct next token, averaged over steps. "
            "A uniform guess over the vocabulary scores ln(vocabulary size).",
    "logit lens": "Applying the final LayerNorm and the generator to an earlier layer's output, to see what the "
                  "model would write if it stopped there.",
    "linear probe": "A linear regression trained to read one quantity (here the text's length) from the residual "
                    "stream: if it succeeds on held-out words, the quantity is there, linearly.",
    "refitted probe": "A linear probe fitted again on the model as changed by an experiment (heads switched off). "
                      "If the old probe fails but a refitted one still reads the quantity, the quantity is still "
                      "in the stream; only the stream has moved away from where the old probe looks.",
    "exposure bias": "With teacher forcing the decoder only ever reads correct earlier tokens; writing alone, it "
                     "reads its own, which may be wrong. Exposure bias is the risk that one early mistake, a case "
                     "training never showed, derails the rest.",
    "free running": "Decoding in which every step reads the model's own earlier output (greedy or sampled), as "
                    "when it writes alone: the opposite of teacher forcing.",
    "entropy": "How spread out a row of weights or probabilities p is: −Σ p ln p. It is 0 when everything is on "
               "one entry and ln n when it is spread evenly over n entries.",
    "nats": "The unit of an entropy or a loss computed with the natural logarithm ln (1 nat ≈ 1.44 bits).",
    "uniformity": "A row's entropy divided by the largest it could be, ln(number of keys the query may see): 1 "
                  "when the weight is spread evenly, 0 when it all sits on one key.",
    "gradient × input": "For one output, the gradient of its log-probability with respect to an input vector, "
                        "times that vector, summed: how the output would move if that input grew a little. A slope "
                        "at one point, so it misses effects that have saturated.",
    "integrated gradients": "Gradients summed along a straight path from a baseline input (here all-zero "
                            "embeddings) to the real one, times the difference: the attributions add up to how far "
                            "the output moves between the two (completeness). The baseline is a choice.",
    "occlusion": "Change one input (here: swap one character for other letters in turn) and measure how much "
                 "the output's probability drops: a direct test of whether it matters, one input at a time.",
    "attention rollout": "A merged attention map: each layer's weights (heads averaged, plus the residual as half) "
                         "multiplied through the layers, as if each layer passed on exactly what it weighs. A "
                         "summary the model never computes (Abnar and Zuidema, 2020).",
    "Spearman ρ": "A rank correlation: put two lists of numbers in order and correlate their ranks. +1 means the "
                  "same order, −1 the opposite order, and a value near 0 that the orders are unrelated.",
    "R²": "How much of a quantity's spread a fit explains, measured on words it was not fitted on: 1 is perfect, "
          "0 no better than always guessing the mean, below 0 worse than that.",
    "PCA": "Principal component analysis: the directions in which a set of vectors varies most. Projecting onto "
           "the first two draws vectors of many numbers on a plane, keeping as much of their spread as a plane can.",
    "top-k": "Sampling only among the k most probable next tokens, their probabilities rescaled to sum to 1.",
    "anti-diagonal": "In a map of output steps against source positions, the cells where step i looks at source "
                     "position n−1−i: the line from the top right to the bottom left that reversing needs. "
                     "Copying needs the diagonal, position i.",
    "offset": "A pattern shifted by k positions: for reversal, source position n−1−i+k instead of n−1−i. A head is "
              "scored against the whole family of offsets and named by the one it fits best; offset +1 is n−i, "
              "the source position of the character the step has just read.",
    "snapshot": "The model's weights saved at one step of its training run, so that a page can show what the model "
                "wrote and where it looked at that point.",
    "rule of three": "If none of N independent tries failed, the true failure rate is below 3/N with 95 % "
                     "confidence: the bound a page gives when no word of its sample broke.",
    "standard error": "How much a figure measured on a sample would change from one sample to another. For a share "
                      "p of N words it is √(p(1−p)/N); a difference smaller than about two standard errors may be "
                      "noise.",
    "composition": "One head reading what an earlier head wrote into the residual stream: its query, key or value "
                   "is built partly from that head's output. A chain of heads can compute what no single head does.",
    "QK circuit": "The part of a head that decides where it looks: the score q·k. It splits into content·content, "
                  "content·position, position·content and position·position (embedding and positional code of "
                  "query and key), plus biases and, past layer-0 self-attention, what earlier layers wrote: "
                  "whether letters or places drive the head.",
    "OV circuit": "The part of a head that decides what it passes on: W_V then W_O. Followed by the generator, it "
                  "maps the letter a head attends to onto the logits it raises; a head that copies raises the "
                  "logit of the very letter it looks at.",
    "sufficiency and necessity": "Switching a head off and watching the output break shows the model needs it "
                                 "(necessity). Patching a chosen pattern in, in place of the head's own weights, "
                                 "and watching the output stay right shows that pattern is enough for that "
                                 "head's place, with everything else in the model unchanged (sufficiency). "
                                 "Neither follows from the other.",
    "patching": "Replacing one part of a run, such as a head's attention weights, with a chosen one, to test what "
                "that part contributes.",
}
