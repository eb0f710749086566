"""Downloads: one attention matrix as CSV, the whole trace of the current input as JSON."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from analysis.run import Run
from transformer.trace import KINDS
from viz.style import position_labels


def matrix_csv(weights: np.ndarray, query_labels: list[str], key_labels: list[str]) -> str:
    """(Tq, Tk) -> CSV with 'position:token' row and column names (repeated letters stay distinct)."""
    frame = pd.DataFrame(weights, index=position_labels(query_labels), columns=position_labels(key_labels))
    frame.index.name = "query \\ key"
    return frame.to_csv(float_format="%.6g")


def _finite_or_null(array: np.ndarray) -> list:
    """JSON has no -inf: masked scores are written as null."""
    return np.where(np.isfinite(array), np.round(array, 6), None).tolist()


def trace_json(text: str, run: Run) -> str:
    weights = {kind: run.trace.stack_attention(kind) for kind in KINDS}        # kind -> (L, H, Tq, Tk)
    document = {
        "text": text,
        "output": run.output,
        "source_tokens": run.source,
        "decoder_input_tokens": run.decoder_in,
        "decoder_output_tokens": run.decoder_out,
        "d_k": run.d_k,
        "shapes": {kind: list(w.shape) for kind, w in weights.items()},
        "note": "weights[kind][layer][head][query][key]; cross rows are decoder positions, columns source "
                "positions; scores are QK^T/sqrt(d_k) before softmax with masked entries as null",
        "weights": {kind: np.round(w, 6).tolist() for kind, w in weights.items()},
        "scores": {kind: _finite_or_null(run.trace.stack_attention(kind, "scores")) for kind in KINDS},
        "masks": {kind: run.trace.mask(kind).tolist() for kind in KINDS},
    }
    return json.dumps(document)
