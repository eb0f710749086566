"""Issue 65, problem 3: the address a class's join link and QR code carry (classroom.public_link)."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from classroom.public_link import is_loopback, join_base, network_address

LAN = "192.0.2.7"


def lan() -> str:
    return LAN


def nothing() -> None:
    return None


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "localhost", "app.localhost", "::1", "[::1]"])
def test_loopback_names_this_machine(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["192.0.2.7", "10.0.0.5", "fd00::2", "class.example.org", "localhost.example"])
def test_other_hosts_are_not_loopback(host):
    assert not is_loopback(host)


@pytest.mark.parametrize("opened", ["http://127.0.0.1:8501/run-a-class?class=ABCDEF", "http://localhost:8501/",
                                    "http://[::1]:8501/run-a-class"])
def test_a_browser_on_loopback_hands_out_the_network_address_when_the_server_listens_there(opened):
    for listening in ("", "0.0.0.0", "::"):
        base = join_base(opened, None, listening, lan)
        assert (base.url, base.reachable) == (f"http://{LAN}:8501", True)
        assert LAN in base.note and "same network" in base.note


def test_a_server_on_loopback_only_or_a_machine_without_a_network_is_said_unreachable():
    for listening, find, why in (("127.0.0.1", lan, "listens on this computer only"),
                                 ("", nothing, "no network address")):
        base = join_base("http://127.0.0.1:8501/run-a-class", None, listening, find)
        assert (base.url, base.reachable) == ("http://127.0.0.1:8501", False)
        assert "A phone cannot open http://127.0.0.1:8501" in base.note and why in base.note
        assert "EXPLORER_PUBLIC_URL" in base.note


def test_an_address_the_browser_reached_over_the_network_is_kept():
    base = join_base("https://10.0.0.5:9000/run-a-class?class=X", None, "127.0.0.1", lan)
    assert (base.url, base.reachable) == ("https://10.0.0.5:9000", True)


def test_explorer_public_url_wins_and_a_bad_or_loopback_one_is_said_so():
    base = join_base("http://127.0.0.1:8501/", " https://class.example.org/app/ ", "127.0.0.1", nothing)
    assert (base.url, base.reachable) == ("https://class.example.org/app", True)
    own = join_base("http://10.0.0.5:8501/", "http://localhost:9000", "", lan)
    assert (own.url, own.reachable) == ("http://localhost:9000", False)
    bad = join_base("http://127.0.0.1:8501/", "class.example.org", "", lan)
    assert (bad.url, bad.reachable) == (f"http://{LAN}:8501", True)
    assert bad.note.startswith("EXPLORER_PUBLIC_URL ('class.example.org') is not an http:// or https:// address")


def test_this_machines_network_address_is_its_own_and_not_loopback():
    """A machine with a network (every one the tests run on) has one; a socket binds only to its own."""
    found = network_address()
    assert found is not None and not ipaddress.ip_address(found).is_loopback
    with socket.socket() as own:
        own.bind((found, 0))
