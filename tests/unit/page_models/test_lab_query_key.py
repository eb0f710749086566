"""Queries and keys: the plane's points are the head's own queries and centred keys projected on the keys' two
main directions (worked out here with numpy's SVD, not sklearn's PCA), and the caption's agreement is counted
again from the trace."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.page_models.lab_query_key import query_key_view

from .conftest import run_of


@pytest.mark.parametrize("kind, layer, head", [("cross", 1, 0), ("encoder_self", 0, 3), ("decoder_self", 1, 2)])
def test_the_plane_is_the_keys_main_directions_and_the_caption_counts_agreement(kind, layer, head):
    run = run_of("level")
    view = query_key_view(run, kind, layer, head)
    q = run.trace.attention(kind, layer, "queries")[head].astype(float)        # (Tq, d_k)
    k = run.trace.attention(kind, layer, "keys")[head].astype(float)           # (Tk, d_k)
    centred = k - k.mean(0)
    _, singular, directions = np.linalg.svd(centred, full_matrices=False)
    axes = directions[:2]                                                        # (2, d_k), up to sign
    signs = np.sign(np.sum(view.plane.key_xy * (centred @ axes.T), axis=0))
    assert np.allclose(view.plane.key_xy, centred @ axes.T * signs, atol=1e-6)
    assert np.allclose(view.plane.query_xy, q @ axes.T * signs, atol=1e-6)
    share = singular[:2] ** 2 / (singular ** 2).sum()
    assert np.allclose(view.plane.explained, share, atol=1e-6)
    scores = run.trace.attention(kind, layer, "scores")[head]
    in_plane = np.where(np.isfinite(scores), view.plane.query_xy @ view.plane.key_xy.T, -np.inf)
    agreement = np.mean(in_plane.argmax(-1) == run.trace[kind, layer][head].argmax(-1))
    assert f"keeps {share.sum():.0%} of the variance of the centred {run.d_k}-dimensional keys" in view.caption
    assert f"For {agreement:.0%} of the queries" in view.caption
    assert (len(view.queries), len(view.keys)) == scores.shape
    assert view.title.endswith(f"layer {layer}, head {head}")
