"""Several server processes on one Redis, behind a load balancer.

Three real ``ddz-server`` processes share one Redis; three real headless clients connect
through a balancer that hands each connection to the next process, so each person is on a
different process. They meet through the one quick-match queue; the process that took the
match runs the room and the others forward their players' requests to it and relay its
messages back. Then the process that runs the room is killed with SIGKILL mid-deal (or
stopped cleanly): its client reconnects through the balancer, another process takes the
room over from the saved state, and the match completes with nothing lost or doubled.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path

from server.rooms.stored import room_from_stored
from server.store.redis_store import RedisStore
from tests.redis_server import free_port, unique_prefix
from tests.server.balancer import Balancer
from tests.server.procs import (
    TIMEOUT,
    Client,
    ServerProcess,
    after_plays,
    check_nothing_lost_or_doubled,
    finish_all,
    kill_running,
)

#: Renewed every 1.7 s: a survivor would have to stall 3.3 s on these busy 2 cores to lose
#: a room (and count a second takeover); a dead process's rooms move within 5 s.
LEASE_TTL = 5.0


@contextlib.asynccontextmanager
async def opened(url: str, prefix: str) -> AsyncIterator[RedisStore]:
    """The servers' store, read beside them."""
    store = await RedisStore.connect(url, 60, 60, prefix=prefix, wait=10)
    try:
        yield store
    finally:
        await store.close()


async def lease_port(url: str, prefix: str, code: str) -> int:
    """The port of the process that holds the room's lease."""
    async with opened(url, prefix) as store:
        held = await store.lease_holder(code)
    assert held is not None, "nobody runs the room"
    node, _fence = held.rsplit(":", 1)
    return int(node.rsplit(":", 1)[1])


async def still_playing(url: str, prefix: str, code: str) -> bool:
    async with opened(url, prefix) as store:
        data = await store.load_room(code)
    return data is not None and room_from_stored(data).closed is None


async def metric(port: int, name: str) -> float:
    """A counter of the process at ``port``, read from its metrics page."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    body = (await reader.read()).decode()
    writer.close()
    (line,) = [x for x in body.splitlines() if x.startswith(name + " ")]
    return float(line.split()[1])


async def play_across_processes(
    url: str, tmp_path: Path, stop_owner: str, lease_ttl: float
) -> None:
    prefix = unique_prefix()
    store = ["--redis-url", url, "--key-prefix", prefix]
    extra = ("--lease-ttl", str(lease_ttl), "--forward-timeout", "1", "--quick-match-wait", "60")
    extra += ("--metrics-on-game-port",)  # (read below: metric)
    servers = [
        ServerProcess(free_port(), store, tmp_path / f"server{i}.log", *extra) for i in range(3)
    ]
    await asyncio.gather(*(s.start() for s in servers))
    balancer = await Balancer([s.port for s in servers]).start()
    base = ["--server", f"ws://127.0.0.1:{balancer.port}", "--auto", "normal", "--json"]
    clients: list[Client] = []
    try:
        for name in ("ann", "bo", "cy"):
            client = await Client.start(*base, "--reconnect-for", "60", "--name", name, "quick")
            clients.append(client)
            await asyncio.wait_for(client.read_until(lambda m: m["type"] == "queued"), TIMEOUT)
        assert sorted(balancer.handed) == sorted(s.port for s in servers)  # one on each

        snapshot = await clients[0].read_until(lambda m: m["type"] == "snapshot")
        code = snapshot["room"]["code"]
        await asyncio.wait_for(clients[0].read_until(after_plays(4)), TIMEOUT)  # mid-trick
        owner_port = await lease_port(url, prefix, code)
        (owner,) = [s for s in servers if s.port == owner_port]
        if stop_owner == "kill":
            await owner.kill()
        else:
            await owner.stop()

        (moved,) = [
            c for c, port in zip(clients, balancer.handed, strict=False) if port == owner_port
        ]
        await finish_all(clients)
        survivors = [s for s in servers if s is not owner]
        taken = [await metric(s.port, "ddz_room_takeovers_total") for s in survivors]
        assert sum(taken) == 1  # one of them took the room over
        forwarded = [await metric(s.port, "ddz_forwarded_total") for s in survivors]
        assert all(n > 0 for n in forwarded)  # both served a player in a room run elsewhere
    finally:
        await kill_running(clients)
        await balancer.stop()
        await asyncio.gather(*(s.stop() for s in servers))

    # the owner's own player came back through the balancer, to another process
    welcomes = [m["resumed"] for m in moved.messages if m["type"] == "welcome"]
    assert welcomes[0] is False and len(welcomes) >= 2 and all(welcomes[1:])
    assert len(balancer.handed) > len(servers)
    await check_nothing_lost_or_doubled(store, tmp_path, prefix, code, clients)


async def test_three_processes_kill_9_of_the_rooms_process_mid_deal(
    redis_url: str, tmp_path: Path
) -> None:
    await play_across_processes(redis_url, tmp_path, "kill", LEASE_TTL)


async def test_a_clean_shutdown_hands_the_room_over_at_once(redis_url: str, tmp_path: Path) -> None:
    # A lease that would outlast the whole test: only the handover can move the room.
    await play_across_processes(redis_url, tmp_path, "stop", 3600.0)


async def test_three_processes_on_a_redis_cluster_kill_9_mid_deal(
    redis_cluster_url: str, tmp_path: Path
) -> None:
    await play_across_processes(redis_cluster_url, tmp_path, "kill", LEASE_TTL)


async def test_a_rolling_restart_of_every_process_loses_no_match(
    redis_url: str, tmp_path: Path
) -> None:
    """An upgrade: each process in turn is stopped (SIGTERM) and started again while a
    6-deal private room plays on (three deals left after the third restart); its rooms and
    its players move to the others. The players are ``--auto normal`` (at once); each
    restart waits for a deal's end, and the players hold still while the process starts
    again, so that a match cannot outrun the restarts (one with a strong, thinking host
    took 34-44 s of a loaded run; this one 5 s)."""
    prefix = unique_prefix()
    store = ["--redis-url", redis_url, "--key-prefix", prefix]
    extra = ("--lease-ttl", "3600", "--forward-timeout", "1")
    servers = [
        ServerProcess(free_port(), store, tmp_path / f"server{i}.log", *extra) for i in range(3)
    ]
    await asyncio.gather(*(s.start() for s in servers))
    balancer = await Balancer([s.port for s in servers]).start()
    base = ["--server", f"ws://127.0.0.1:{balancer.port}", "--auto", "normal", "--json"]
    base += ["--reconnect-for", "60"]
    clients: list[Client] = []
    try:
        host = await Client.start(*base, "--name", "host", "create", "--deals", "6")
        clients.append(host)
        code = (await host.read_until(lambda m: m["type"] == "snapshot"))["room"]["code"]
        for name in ("ann", "bo"):
            clients.append(await Client.start(*base, "--name", name, "join", code))
        for server in servers:  # one process at a time, a deal apart
            await asyncio.wait_for(host.read_until(lambda m: m["type"] == "deal_end"), TIMEOUT)
            # The process is stopped with the players playing on (its players move), then
            # they hold still while it starts again (as if thinking), so that every restart
            # is mid-match by design: played at once, a match outran the restarts.
            await server.stop()
            for client in clients:
                client.proc.send_signal(signal.SIGSTOP)
            try:
                await server.start()
            finally:
                for client in clients:
                    client.proc.send_signal(signal.SIGCONT)
        assert await still_playing(redis_url, prefix, code)  # every restart was mid-match
        await finish_all(clients)
    finally:
        await kill_running(clients)
        await balancer.stop()
        await asyncio.gather(*(s.stop() for s in servers))
    await check_nothing_lost_or_doubled(store, tmp_path, prefix, code, clients)
