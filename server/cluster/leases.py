"""This process's leases on rooms: acquire, renew, release, and who holds a room.

A room runs on the one process holding its lease (``Lease``: node and fencing token), which
it renews a third of the lease TTL apart; a lease that runs out lets another process take
the room over, and the fencing token stops the old one from writing it again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping

from server.store.base import Lease, RoomStore

#: Rooms whose holder (another process) is remembered; the least recently used goes first.
HOLDERS_KEPT = 50_000


class Leases:
    """The leases of node ``node``, ``ttl`` seconds long, kept in ``store``."""

    def __init__(self, store: RoomStore, node: str, ttl: float) -> None:
        self.store = store
        self.node = node
        self.ttl = ttl
        self._holders: OrderedDict[str, str] = OrderedDict()

    async def acquire(self, codes: list[str]) -> list[Lease | None]:
        """This node's lease on each room (its own, renewed; or a new one with a raised
        fencing token when the room had none); None where another node holds it. One
        round trip."""
        fences = await self.store.acquire_leases(codes, self.node, self.ttl)
        return [Lease(self.node, fence) if fence else None for fence in fences]

    async def acquire_one(self, code: str) -> Lease | None:
        (lease,) = await self.acquire([code])
        return lease

    async def renew(self, leases: Mapping[str, Lease]) -> list[str]:
        """Renew the leases ``{code: lease}``; the codes whose lease is no longer ours."""
        if not leases:
            return []
        return await self.store.renew_leases(
            {code: lease.text for code, lease in leases.items()}, self.ttl
        )

    async def release(self, leases: Mapping[str, Lease]) -> None:
        """Give the leases up (those still ours), so that another node may run the rooms."""
        if leases:
            await self.store.renew_leases({c: lease.text for c, lease in leases.items()}, 0)

    async def holder(self, code: str) -> Lease | None:
        """The lease on the room, whoever holds it; None when nobody runs it."""
        text = await self.store.lease_holder(code)
        return None if text is None else Lease.parse(text)

    async def holder_node(self, code: str) -> str | None:
        """The node running the room, as last seen: a forwarded request does not read the
        lease each time. A remembered holder can be wrong (the room moved, ended, or its
        process died): the caller ``forget``s it when that node says "moved" or does not
        answer, and asks again. Being wrong costs one forward and never a lost or doubled
        change: only the process whose fencing token is the room's latest can save it."""
        node = self._holders.get(code)
        if node is not None:
            self._holders.move_to_end(code)
            return node
        lease = await self.holder(code)
        if lease is None or lease.node == self.node:
            return None if lease is None else lease.node
        self._holders[code] = lease.node
        if len(self._holders) > HOLDERS_KEPT:
            self._holders.popitem(last=False)
        return lease.node

    def forget(self, code: str) -> None:
        """Stop trusting the remembered holder of ``code``."""
        self._holders.pop(code, None)

    def forget_node(self, node: str) -> None:
        """Stop trusting every remembered holder that is ``node`` (it did not answer: it
        may be down, and its rooms taken over by now)."""
        for code in [c for c, n in self._holders.items() if n == node]:
            del self._holders[code]
