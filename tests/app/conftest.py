import pytest

from explorer.model import shared_checkpoint


@pytest.fixture(scope="session")
def ckpt():
    """The same cached object the pages use."""
    return shared_checkpoint()
