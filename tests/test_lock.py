"""The lock in ``requirements/`` holds what ``pyproject.toml`` asks for: every dependency and
every dev tool at one exact version inside its range, with hashes, and the server's set and
the dev set agree. A range changed without ``requirements/refresh`` fails here, before a
fresh machine installs something else than CI had."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
#: ``name==version \`` at the start of a line, then its ``--hash=`` lines
PINNED = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", re.MULTILINE)


def pinned(lock: str) -> dict[str, Version]:
    text = (ROOT / "requirements" / lock).read_text()
    return {canonicalize_name(name): Version(v) for name, v in PINNED.findall(text)}


def wanted(extra: str | None = None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return [Requirement(spec) for spec in found]


def test_every_dependency_is_locked_within_its_range() -> None:
    for lock, extra in (("server.txt", None), ("dev.txt", "dev")):
        versions = pinned(lock)
        for requirement in wanted(extra):
            name = canonicalize_name(requirement.name)
            if requirement.marker is not None and name not in versions:
                continue  # (a platform's own dependency the lock may still hold: see below)
            assert name in versions, f"{requirement} is not in requirements/{lock}"
            assert requirement.specifier.contains(versions[name], prereleases=True), (
                f"requirements/{lock} has {name} {versions[name]}, outside {requirement}"
            )


def test_the_dev_set_has_the_servers_versions() -> None:
    server, dev = pinned("server.txt"), pinned("dev.txt")
    assert {name: dev.get(name) for name in server} == server


def test_every_pinned_package_has_its_hashes() -> None:
    for lock in ("server.txt", "dev.txt", "tools.txt"):
        entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / "requirements" / lock).read_text())
        for entry in entries:
            if PINNED.match(entry):
                assert "--hash=sha256:" in entry, f"{lock}: {entry.splitlines()[0]} has no hash"


def test_the_installer_and_build_backend_are_locked() -> None:
    tools = pinned("tools.txt")
    assert {"uv", "setuptools"} <= set(tools)
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for spec in build:
        requirement = Requirement(spec)
        assert requirement.specifier.contains(tools[canonicalize_name(requirement.name)])
