import pytest
import torch

from transformer.layers import sinusoidal_encoding
from analysis.positional import offset_distances, rotation_blocks, rotation_error, shift_by_rotation, similarity


@pytest.mark.parametrize("d_model, delta", [(16, 1), (64, 3), (128, 20)])
def test_rotating_pe_pos_lands_on_pe_pos_plus_delta(d_model, delta):
    assert rotation_error(50, d_model, delta) < 1e-5
    pe = sinusoidal_encoding(50, d_model)
    assert not torch.allclose(shift_by_rotation(pe[:10], delta), pe[:10])  # it really moves


def test_rotation_blocks_are_rotations():
    blocks = rotation_blocks(5, 32).float()  # (16, 2, 2)
    eye = torch.eye(2).expand(16, 2, 2)
    assert torch.allclose(blocks @ blocks.transpose(1, 2), eye, atol=1e-6)
    assert torch.allclose(torch.linalg.det(blocks), torch.ones(16), atol=1e-6)


def test_distance_between_pos_and_pos_plus_delta_is_the_same_everywhere():
    pe = sinusoidal_encoding(60, 64)
    for delta in (1, 4, 9):
        d = offset_distances(pe, delta)
        assert d.max() - d.min() < 1e-5
    assert offset_distances(pe, 1)[0] < offset_distances(pe, 4)[0]


def test_similarity_peaks_on_the_diagonal():
    sim = similarity(sinusoidal_encoding(30, 64))
    assert torch.allclose(sim, sim.T)
    assert torch.allclose(sim.diagonal(), torch.full((30,), 32.0), atol=1e-4)  # |PE|^2 = d_model / 2
    assert torch.all(sim.argmax(dim=1) == torch.arange(30))


def test_the_mirror_of_every_position_is_a_reflection_that_depends_on_the_length():
    import numpy as np

    from analysis.positional import reflection_blocks, reflection_error
    for n in (1, 5, 24):
        blocks = reflection_blocks(n, 64).numpy()                     # (32, 2, 2)
        assert np.allclose(np.linalg.det(blocks), -1)
        assert reflection_error(n, 64) < 1e-6
    assert not np.allclose(reflection_blocks(5, 64).numpy(), reflection_blocks(6, 64).numpy())
