"""Group a py-spy profile of ``ddz-server`` by the server's parts (issue 15).

Reads py-spy's collapsed stacks (``py-spy record --format raw``, as
``benchmarks/ceiling.py --profile FILE --profile-format raw`` writes them: one line per
distinct stack, ``frame;frame;...;frame COUNT``, root first) and puts each sample in one
group, by the innermost frame that names one (library frames such as pydantic, redis-py,
msgpack, websockets or asyncio take the group of the project code that called them):

- ``frame in``: websockets reading and parsing a frame, the connection's handler loop
  (``server/edge/transport.py``, ``server/edge/websocket.py``, ``server/edge/frames.py``'s
  reading), and websockets/uvloop callbacks with no project frame above them.
- ``decode, checks, dispatch``: ``protocol.codec.decode`` (pydantic validation of the
  request), ``App.receive``/``_dispatch``/``_handle``, the flood guard, sessions, the
  directory and routing (``RoomDirectory.op``, ``apply_op``), the metrics.
- ``Room.handle and Match``: ``server/rooms``, ``server/game``, the legal-play checks, and
  the server events they build (pydantic models validated as they are made).
- ``pack, save, Redis client``: ``room_to_data``, ``pack``, ``RoomRunner._save``,
  ``server/store`` and redis-py/hiredis under them.
- ``fan-out: encode, write``: ``Hub.deliver``, ``protocol.codec.encode``, websockets framing
  and the socket writes, the relay.
- ``runner: lock, reschedule``: ``RoomRunner.change`` itself (the lock), ``reschedule``'s
  timers.
- ``loop, GC, other``: everything else (uvloop in C shows as the loop's Python caller
  without ``--native``; a garbage collection is charged to whatever allocated).

Usage::

    .venv/bin/python benchmarks/profile_groups.py /tmp/ddz.txt [--top 25] [--cpu-ms 0.4]

``--cpu-ms X`` (the server's CPU ms per game action in the profiled run) adds each group's
share of it, in microseconds. Then the innermost project frames (self time, as grouped), and
the project functions by inclusive share (the samples with the function anywhere on the
stack: ``RoomRunner.change``, ``App.receive`` ...).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")

GROUPS = (
    "frame in",
    "decode, checks, dispatch",
    "Room.handle and Match",
    "pack, save, Redis client",
    "fan-out: encode, write",
    "runner: lock, reschedule",
    "loop, GC, other",
)

#: (path fragment, function or None for any, group): the first that matches a frame wins.
RULES: tuple[tuple[str, str | None, str], ...] = (
    ("", "to_data", "pack, save, Redis client"),
    ("", "room_to_data", "pack, save, Redis client"),
    ("", "step_record", "pack, save, Redis client"),
    ("", "take_journal", "pack, save, Redis client"),
    ("server/runner.py", "_save", "pack, save, Redis client"),
    ("server/runner.py", "stored", "pack, save, Redis client"),
    ("server/store/", None, "pack, save, Redis client"),
    ("server/runner.py", "reschedule", "runner: lock, reschedule"),
    ("server/runner.py", "change", "runner: lock, reschedule"),
    ("server/runner.py", "_cancel", "runner: lock, reschedule"),
    ("server/runner.py", "request", "Room.handle and Match"),
    ("server/runner.py", "<lambda>", "Room.handle and Match"),
    ("server/edge/hub.py", None, "fan-out: encode, write"),
    ("server/cluster/relay.py", None, "fan-out: encode, write"),
    ("protocol/codec.py", "encode", "fan-out: encode, write"),
    ("protocol/codec.py", "decode", "decode, checks, dispatch"),
    ("server/rooms/", None, "Room.handle and Match"),
    ("server/game/", None, "Room.handle and Match"),
    ("server/bots/", None, "Room.handle and Match"),
    ("protocol/legal.py", None, "Room.handle and Match"),
    ("protocol/plays.py", None, "Room.handle and Match"),
    ("protocol/cards.py", None, "Room.handle and Match"),
    ("server/app.py", None, "decode, checks, dispatch"),
    ("server/directory.py", None, "decode, checks, dispatch"),
    ("server/routing.py", None, "decode, checks, dispatch"),
    ("server/edge/flood.py", None, "decode, checks, dispatch"),
    ("server/lobby/", None, "decode, checks, dispatch"),
    ("server/metrics.py", None, "decode, checks, dispatch"),
    ("server/edge/transport.py", "run", "loop, GC, other"),
    ("server/__main__.py", None, "loop, GC, other"),
    ("server/edge/transport.py", None, "frame in"),
    ("server/edge/frames.py", "read_frame", "frame in"),
    ("server/edge/frames.py", "read_close", "frame in"),
    ("server/edge/frames.py", None, "fan-out: encode, write"),
    ("server/edge/websocket.py", "write", "fan-out: encode, write"),
    ("server/edge/websocket.py", None, "frame in"),
)


def is_project(path: str) -> bool:
    return any(f"{part}/" in path for part in ("server", "protocol", "client")) and (
        "site-packages" not in path
    )


def classify(stack: list[tuple[str, str]]) -> tuple[str, str]:
    """(group, the innermost project frame or library) for one stack, innermost last."""
    for func, path in reversed(stack):
        if not is_project(path):
            continue
        for fragment, name, group in RULES:
            if fragment in path and (name is None or name in func.split(".")):
                return group, f"{func} ({short(path)})"
    # no project frame names a group: a library's callback
    paths = " ".join(p for _, p in stack)
    leaf = f"{stack[-1][0]} ({short(stack[-1][1])})" if stack else "?"
    if "websockets/" in paths:
        return "frame in", leaf
    if "redis/" in paths:
        return "pack, save, Redis client", leaf
    return "loop, GC, other", leaf


def short(path: str) -> str:
    for marker in ("site-packages/", "/server/", "/protocol/"):
        if marker in path:
            head = "" if marker == "site-packages/" else marker.strip("/") + "/"
            return head + path.split(marker, 1)[1]
    return path.rsplit("/", 2)[-1] if "/" in path else path


def parse(line: str) -> tuple[list[tuple[str, str]], int] | None:
    line = line.rstrip()
    if not line or " " not in line:
        return None
    stack_text, _, count = line.rpartition(" ")
    try:
        n = int(count)
    except ValueError:
        return None
    stack = []
    for frame in stack_text.split(";"):
        m = FRAME.match(frame)
        stack.append((m["func"], m["file"]) if m else (frame, ""))
    return stack, n


def idle_thread(stack: list[tuple[str, str]]) -> bool:
    """A helper thread's sample (a multiprocessing queue feeder, the bot pool's manager):
    py-spy counts some of their waits as busy; they are not the event loop's work."""
    return bool(stack) and stack[0][0] == "Thread._bootstrap"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("profile", help="py-spy collapsed stacks (--format raw)")
    p.add_argument("--top", type=int, default=25, help="innermost project frames listed")
    p.add_argument("--cpu-ms", type=float, help="server CPU ms per game action in the run")
    p.add_argument(
        "--under",
        action="append",
        default=[],
        help="also break down the samples under this function (e.g. RedisStore.save_room) by"
        " the frame it calls and by the innermost frame (repeatable)",
    )
    args = p.parse_args(argv)
    groups: Counter[str] = Counter()
    frames: Counter[tuple[str, str]] = Counter()
    inclusive: Counter[str] = Counter()
    under: dict[str, Counter[str]] = {name: Counter() for name in args.under}
    under_leaf: dict[str, Counter[str]] = {name: Counter() for name in args.under}
    helper_threads = 0
    total = 0
    for line in Path(args.profile).read_text().splitlines():
        parsed = parse(line)
        if parsed is None:
            continue
        stack, n = parsed
        # py-spy puts "process ..." / "thread ..." pseudo-frames first: not code
        stack = [f for f in stack if f[1] or not f[0].startswith(("process ", "thread "))]
        if idle_thread(stack):
            helper_threads += n
            continue
        for name in args.under:
            at = [i for i, (func, _) in enumerate(stack) if func == name]
            if at:
                i = at[-1]
                callee = stack[i + 1] if i + 1 < len(stack) else ("(self)", "")
                under[name][f"{callee[0]} ({short(callee[1])})"] += n
                under_leaf[name][f"{stack[-1][0]} ({short(stack[-1][1])})"] += n
        group, where = classify(stack)
        groups[group] += n
        frames[(group, where)] += n
        for name in {f"{func} ({short(path)})" for func, path in stack if is_project(path)}:
            inclusive[name] += n
        total += n
    if not total:
        print("no samples", file=sys.stderr)
        return 1
    print(
        f"{total} samples of the event loop's thread ({helper_threads} more of idle helper"
        " threads left out)"
    )
    print()
    head = "| group | share of samples |"
    if args.cpu_ms:
        head += " us CPU / game action |"
    print(head)
    print("|---|---|" + ("---|" if args.cpu_ms else ""))
    for group in GROUPS:
        share = groups[group] / total
        row = f"| {group} | {100 * share:.1f}% |"
        if args.cpu_ms:
            row += f" {1000 * args.cpu_ms * share:.0f} |"
        print(row)
    print()
    print(f"innermost project frame (or library leaf), top {args.top}:")
    for (group, where), n in frames.most_common(args.top):
        print(f"  {100 * n / total:5.1f}%  {where:60}  [{group}]")
    print()
    print(f"project functions by inclusive share, top {args.top}:")
    for name, n in inclusive.most_common(args.top):
        print(f"  {100 * n / total:5.1f}%  {name}")
    for name in args.under:
        inside = sum(under[name].values())
        print()
        print(f"under {name} ({100 * inside / total:.1f}% of samples), by callee:")
        for callee_name, n in under[name].most_common(args.top):
            print(f"  {100 * n / total:5.1f}%  {callee_name}")
        print("  by innermost frame:")
        for leaf, n in under_leaf[name].most_common(args.top):
            print(f"  {100 * n / total:5.1f}%  {leaf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
