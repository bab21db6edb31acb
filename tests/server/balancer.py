"""A load balancer for the tests: a TCP proxy that hands each new connection to the next
server process in turn, skipping one that does not accept (it died), as nginx does with
``proxy_next_upstream error``. A client connected through it that loses its server
reconnects through it, to a live one."""

from __future__ import annotations

import asyncio
import contextlib
import itertools


class Balancer:
    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self._turn = itertools.count()
        self._server: asyncio.Server | None = None
        self.port = 0
        #: Backend port of each connection handed over, in order.
        self.handed: list[int] = []

    async def start(self) -> Balancer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        first = next(self._turn)
        for i in range(len(self.ports)):
            port = self.ports[(first + i) % len(self.ports)]
            try:
                streams = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            self.handed.append(port)
            return streams
        return None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream = await self._connect()
        if upstream is None:
            writer.close()
            return
        up_reader, up_writer = upstream
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()
