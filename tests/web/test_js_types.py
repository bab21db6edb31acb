"""The page's JavaScript is type-checked: every file opts in with ``// @ts-check`` (so
``tsc --noEmit -p jsconfig.json``, run by ./run-tests, checks it), and the checker is a
pinned development dependency only."""

from __future__ import annotations

import json

from tests.web.node import ROOT, STATIC


def test_every_page_script_opts_in_to_the_type_checker() -> None:
    scripts = sorted((STATIC / "js").glob("*.js"))
    assert scripts
    unchecked = [p.name for p in scripts if not p.read_text().startswith("// @ts-check\n")]
    assert unchecked == [], f"scripts without a first line `// @ts-check`: {unchecked}"


def test_the_checker_is_pinned_for_development_only() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    assert "dependencies" not in package, "the page has no runtime npm dependency"
    version = package["devDependencies"]["typescript"]
    assert version[0].isdigit(), f"typescript is pinned to one version, not {version!r}"
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/typescript"]["version"] == version
    config = json.loads((ROOT / "jsconfig.json").read_text())
    assert config["compilerOptions"]["noEmit"] is True
    assert "server/web/static/js/*.js" in config["include"]
