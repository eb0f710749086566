import pytest

from explorer.cache import shared_checkpoint


@pytest.fixture(scope="session")
def ckpt():
    """The same cached object the pages use."""
    return shared_checkpoint()
