"""Why sinusoids: the properties of the positional encoding, as numbers a page can show.

PE(pos + delta) is a fixed rotation of PE(pos): for each pair of dimensions (2i, 2i+1) turning at
frequency w_i, [sin w(p+d), cos w(p+d)] = [[cos wd, sin wd], [-sin wd, cos wd]] @ [sin wp, cos wp].
"""

from __future__ import annotations

import numpy as np
import torch

from transformer.layers import sinusoid_frequencies as frequencies, sinusoidal_encoding


def rotation_blocks(delta: int, d_model: int) -> torch.Tensor:
    """(d_model/2, 2, 2): the rotation that moves each dimension pair delta positions on."""
    angle = frequencies(d_model) * delta
    c, s = torch.cos(angle), torch.sin(angle)
    return torch.stack([torch.stack([c, s], -1), torch.stack([-s, c], -1)], -2)


def shift_by_rotation(pe: torch.Tensor, delta: int) -> torch.Tensor:
    """(P, d) encodings -> (P, d) the encodings delta positions later, computed only by rotating."""
    blocks = rotation_blocks(delta, pe.size(1)).to(pe.dtype)  # (d/2, 2, 2)
    pairs = pe.view(pe.size(0), -1, 2)                         # (P, d/2, 2)
    return torch.einsum("kij,pkj->pki", blocks, pairs).reshape(pe.shape)


def rotation_error(n_positions: int, d_model: int, delta: int) -> float:
    """Largest |R_delta PE(pos) - PE(pos + delta)| over all positions and dimensions (float32 rounding)."""
    pe = sinusoidal_encoding(n_positions + delta, d_model)
    return float((shift_by_rotation(pe[:n_positions], delta) - pe[delta:]).abs().max())


def reflection_blocks(n: int, d_model: int) -> torch.Tensor:
    """(d_model/2, 2, 2): for a text of n characters, the map taking each dimension pair of PE(i) to that of
    PE(n-1-i), the mirrored position. With a = w(n-1): [[-cos a, sin a], [sin a, cos a]], a reflection
    (determinant -1) that depends on n."""
    angle = frequencies(d_model) * (n - 1)
    c, s = torch.cos(angle), torch.sin(angle)
    return torch.stack([torch.stack([-c, s], -1), torch.stack([s, c], -1)], -2)


def reflection_error(n: int, d_model: int) -> float:
    """Largest |M_n PE(i) - PE(n-1-i)| over the positions 0..n-1 and every dimension (float rounding)."""
    pe = sinusoidal_encoding(n, d_model).double()                    # (n, d)
    pairs = pe.view(n, -1, 2)                                         # (n, d/2, 2)
    mirrored = torch.einsum("kij,pkj->pki", reflection_blocks(n, d_model), pairs).reshape(pe.shape)
    return float((mirrored - pe.flip(0)).abs().max())


def similarity(pe: torch.Tensor) -> torch.Tensor:
    """(P, P) dot products PE(i)·PE(j): largest on the diagonal; it depends on |i - j| alone, not steadily."""
    return pe @ pe.T


def offset_distances(pe: torch.Tensor, delta: int) -> torch.Tensor:
    """(P - delta,) ||PE(pos + delta) - PE(pos)|| for every pos: the same for all pos."""
    return (pe[delta:] - pe[:-delta]).norm(dim=1)


def largest_rise(row: np.ndarray) -> tuple[int, int]:
    """(low, rise), low < rise: the pair of positions after 0 where the similarity to PE(0) climbs the most from
    the nearer to the farther one (low == rise when it never climbs)."""
    best = (1, 1)
    for low in range(1, len(row)):
        rise = low + int(row[low:].argmax())
        if row[rise] - row[low] > row[best[1]] - row[best[0]]:
            best = (low, rise)
    return best
