"""Journal exports (``server.analysis.export``): a match a line, read back as it was; a
line that is not a match's journal is named, with why."""

from __future__ import annotations

import pytest

from server.analysis.export import ExportError, export_line, read_export
from tests.server.analysis.helpers import journaled_match


def test_matches_exported_a_line_each_read_back_the_same() -> None:
    matches = [journaled_match(1, seed=3), journaled_match(3, seed=4)]
    text = "\n".join(export_line(records) for records in matches) + "\n\n"
    assert all("\n" not in export_line(records) for records in matches)
    assert list(read_export(text.splitlines(keepends=True))) == matches


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", 'line 2: not {"journal": [records]}'),
        ('{"journal": "x"}', 'line 2: not {"journal": [records]}'),
        ('{"journal": [1]}', 'line 2: not {"journal": [records]}'),
        ('{"journal": []}', "line 2: a journal begins with its match's start"),
        ('{"journal": [{"k": "draw"}]}', "line 2: a journal begins with its match's start"),
    ],
)
def test_a_line_that_is_no_journal_is_named_with_why(line: str, why: str) -> None:
    good = export_line(journaled_match(1, seed=3))
    read = read_export([good, line, good])
    assert next(read)
    with pytest.raises(ExportError) as caught:
        next(read)
    assert str(caught.value).startswith(why)
