"""A cross head's split by role written out from the definitions, in float64, apart from analysis.functional_split:
shared by its tests and Compare tasks' page-model tests, which recompute the page's figures with it."""

from __future__ import annotations

import numpy as np

MEMORY = "encoder_layers.1.feed_forward_residual.output"
QUERY = "decoder_layers.0.self_residual.output"      # what decoder layer 0's cross-attention reads


def own_terms(ckpt, run, head, query_mean, key_mean, layer=0):
    """Position-like and content-like terms of cross L`layer` H`head`, written out here from the definitions."""
    model = ckpt.model

    def frozen(stream, parts, norm):
        spread = np.sqrt(stream.var(-1, keepdims=True) + norm.eps)
        g, b = norm.weight.double().numpy(), norm.bias.double().numpy()
        return {n: g * (p - p.mean(-1, keepdims=True)) / spread for n, p in parts.items()}, b
    attention = model.decoder_layers[layer].cross_attention
    d_k = attention.d_k
    rows = slice(head * d_k, (head + 1) * d_k)
    wq, bq = attention.w_q.weight.double().numpy()[rows], attention.w_q.bias.double().numpy()[rows]
    wk, bk = attention.w_k.weight.double().numpy()[rows], attention.w_k.bias.double().numpy()[rows]
    x = run.trace[f"decoder_layers.{layer}.self_residual.output"].astype(float)
    m = run.trace[MEMORY].astype(float)
    qp, qb = frozen(x, {"p": query_mean, "c": x - query_mean}, model.decoder_layers[layer].cross_residual.norm)
    kp, kb = frozen(m, {"p": key_mean, "c": m - key_mean}, model.encoder_norm)
    q = {n: v @ wq.T for n, v in qp.items()}
    k = {n: v @ wk.T for n, v in kp.items()}
    terms = {f"{a}{b}": q[a] @ k[b].T / np.sqrt(d_k) for a in "pc" for b in "pc"}
    q_bias, k_bias = qb @ wq.T + bq, kb @ wk.T + bk
    terms["bias"] = (q_bias @ (k["p"] + k["c"]).T + ((q["p"] + q["c"]) @ k_bias)[:, None]
                     + q_bias @ k_bias) / np.sqrt(d_k)
    return terms


def share(terms, name):
    size = {n: np.abs(t - t.mean(1, keepdims=True)).sum() for n, t in terms.items()}
    return size[name] / sum(size.values())
