"""Whose address a connection counts under: the peer's, or the one a trusted proxy names."""

from __future__ import annotations

import pytest
from websockets.datastructures import Headers

from server.edge.admission import client_address, parse_proxies
from server.settings import load_settings

PROXIES = parse_proxies("10.0.0.2, 172.16.0.0/12")


def test_a_peer_that_is_no_trusted_proxy_is_the_client_whatever_it_says() -> None:
    headers = Headers([("X-Forwarded-For", "1.2.3.4"), ("X-Real-IP", "1.2.3.4")])
    assert client_address("198.51.100.9", headers, PROXIES) == "198.51.100.9"
    assert client_address("10.0.0.2", headers, ()) == "10.0.0.2"


def test_a_trusted_proxy_names_the_client_in_the_last_forwarded_address() -> None:
    # Only the last address is the proxy's own word; a client may write the ones before.
    headers = Headers([("X-Forwarded-For", "6.6.6.6, 203.0.113.5")])
    assert client_address("10.0.0.2", headers, PROXIES) == "203.0.113.5"
    assert client_address("172.20.1.1", headers, PROXIES) == "203.0.113.5"  # in the network
    assert client_address("::ffff:10.0.0.2", headers, PROXIES) == "203.0.113.5"


def test_several_forwarded_headers_are_read_as_one_list() -> None:
    headers = Headers([("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "203.0.113.5")])
    assert client_address("10.0.0.2", headers, PROXIES) == "203.0.113.5"


def test_x_real_ip_then_the_peer_when_the_proxy_names_nobody() -> None:
    assert client_address("10.0.0.2", Headers([("X-Real-IP", "203.0.113.8")]), PROXIES) == (
        "203.0.113.8"
    )
    assert client_address("10.0.0.2", Headers(), PROXIES) == "10.0.0.2"


def test_a_trusted_proxy_that_is_no_address_is_refused_at_start() -> None:
    with pytest.raises(SystemExit):
        load_settings(["--trusted-proxies", "10.0.0.1, proxy.example"], env={})


def test_metrics_on_the_game_port_is_a_switch_off_by_default() -> None:
    """Issue 35: off unless asked, on the command line or in the environment."""
    assert not load_settings([], env={}).metrics_on_game_port
    assert load_settings(["--metrics-on-game-port"], env={}).metrics_on_game_port
    for word, on in [("1", True), ("true", True), ("yes", True), ("0", False), ("no", False)]:
        env = {"DDZ_METRICS_ON_GAME_PORT": word}
        assert load_settings([], env=env).metrics_on_game_port is on
    env = {"DDZ_METRICS_ON_GAME_PORT": "1"}
    assert not load_settings(["--no-metrics-on-game-port"], env=env).metrics_on_game_port
    with pytest.raises(SystemExit):
        load_settings([], env={"DDZ_METRICS_ON_GAME_PORT": "maybe"})


def test_allowed_origins_are_origins_or_any() -> None:
    assert load_settings(["--allowed-origins", "*"], env={}).allowed_origins == "*"
    for bad in ("null", "evil.example", "https://ddz.example/path"):
        with pytest.raises(SystemExit):
            load_settings(["--allowed-origins", bad], env={})


def test_a_tls_certificate_needs_its_key() -> None:
    with pytest.raises(SystemExit):
        load_settings(["--tls-cert", "cert.pem"], env={})
    with pytest.raises(SystemExit):
        load_settings([], env={"DDZ_TLS_KEY": "key.pem"})
