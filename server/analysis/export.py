"""Journal exports: finished matches carried out of one server's Redis and into another's
puzzle mining (``ddz-replay CODE --export`` writes them, ``ddz-server
--puzzle-mine-journal FILE`` mines them), so that a new server has puzzles from real deals
on its first day.

One match a line: a JSON object ``{"journal": [record, ...]}``, the records as the match's
journal holds them. No room code and nothing of the players beyond what the journal holds
(the seats' plays); what is mined from it is stored with no names (issue 33).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

#: The longest line read (a 9-deal match's journal is about 25 KB as JSON).
MAX_LINE = 1_000_000


class ExportError(ValueError):
    """A line of an export that is not a match's journal; says which and why."""


def export_line(records: list[dict[str, Any]]) -> str:
    """A match's journal as one line of an export (no newline)."""
    return json.dumps({"journal": records}, separators=(",", ":"), ensure_ascii=False)


def read_export(lines: Iterable[str]) -> Iterator[list[dict[str, Any]]]:
    """Each match's journal records, line by line (blank lines passed over); raises
    ``ExportError`` naming the first line that is not one."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise ExportError(f"line {number}: longer than {MAX_LINE} characters")
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ExportError(f"line {number}: not JSON ({exc.msg})") from None
        records = data.get("journal") if isinstance(data, dict) else None
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise ExportError(f'line {number}: not {{"journal": [records]}}')
        if not records or records[0].get("k") != "start":
            raise ExportError(f"line {number}: a journal begins with its match's start")
        yield records
