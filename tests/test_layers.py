"""The layer a test lands in is read from what its code uses (``tests/layers.py``); these
read sample functions, which never run."""

from __future__ import annotations

import asyncio
import subprocess

import pytest

from tests.layers import Reader, heavier

#: The samples below name a process and a socket, but this module starts neither: its own
#: marker keeps it in the unit layer.
pytestmark = pytest.mark.unit


def _sorts() -> list[int]:
    return sorted([3, 1, 2])


def _runs_a_command() -> None:
    subprocess.run(["true"], check=True)


async def _connects() -> None:
    await asyncio.open_connection("127.0.0.1", 1)


class _Server:
    def start(self) -> None:
        subprocess.Popen(["true"])


def _starts_a_helper() -> None:
    _Server().start()


def _in_a_lambda() -> object:
    return lambda: subprocess.run(["true"], check=True)


def test_pure_code_is_unit() -> None:
    assert Reader().layer_of(_sorts) == "unit"


def test_a_process_or_a_socket_places_the_code() -> None:
    reader = Reader()
    assert reader.layer_of(_runs_a_command) == "slow"
    assert reader.layer_of(_connects) == "integration"


def test_helpers_classes_and_inner_functions_are_followed() -> None:
    reader = Reader()
    assert reader.layer_of(_starts_a_helper) == "slow"
    assert reader.layer_of(_in_a_lambda) == "slow"


def test_the_heavier_layer_wins() -> None:
    assert heavier("unit", "browser") == "browser"
    assert heavier("slow", "integration") == "slow"
