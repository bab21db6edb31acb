"""TLS without a proxy (issue 35): ``ddz-server --tls-cert --tls-key`` serves https and wss
with a certificate made here (``openssl`` on the command line), and SIGHUP reads the files
again: a new connection gets the new certificate, one already open stays up. Real
handshakes against a real server process."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from protocol.messages import PROTOCOL_VERSION, Hello, Ping, Pong, Welcome
from tests.redis_server import free_port
from tests.server.wire import WireClient, unique_prefix

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


def make_certificate(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, with ``name`` as its common
    name, and its key: PEM files in ``directory``."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        + ["-nodes", "-days", "2", "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert)]
        + ["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


def der(cert: Path) -> bytes:
    return ssl.PEM_cert_to_DER_cert(cert.read_text())


def trusting(*certs: Path) -> ssl.SSLContext:
    """A client context that trusts these certificates (and checks the host name)."""
    context = ssl.create_default_context()
    for cert in certs:
        context.load_verify_locations(cafile=str(cert))
    return context


async def served_certificate(port: int, context: ssl.SSLContext) -> bytes:
    """The certificate a new TLS connection to ``port`` is shown (DER)."""
    _, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=context, server_hostname="localhost"
    )
    try:
        tls = writer.get_extra_info("ssl_object")
        shown: bytes = tls.getpeercert(binary_form=True)
        return shown
    finally:
        writer.close()


async def https_get(port: int, path: str, context: ssl.SSLContext) -> bytes:
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=context, server_hostname="localhost"
    )
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    try:
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


async def start(
    port: int, redis_url: str, cert: Path, key: Path, log: Path
) -> asyncio.subprocess.Process:
    args = [sys.executable, "-m", "server", "--port", str(port), "--redis-url", redis_url]
    args += ["--key-prefix", unique_prefix(), "--bot-pool-start", "lazy"]
    args += ["--tls-cert", str(cert), "--tls-key", str(key)]
    with log.open("ab") as out:
        proc = await asyncio.create_subprocess_exec(*args, stdout=out, stderr=out)
    context = trusting(cert)
    deadline = time.monotonic() + 60
    while True:
        try:
            if (await https_get(port, "/healthz", context)).startswith(b"HTTP/1.1 200"):
                return proc
        except OSError:
            pass
        if proc.returncode is not None or time.monotonic() > deadline:
            await stop(proc)
            raise AssertionError("the server did not start: " + log.read_text())
        await asyncio.sleep(0.05)


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def test_https_and_wss_and_a_sighup_reload(redis_url: str, tmp_path: Path) -> None:
    old_cert, old_key = make_certificate(tmp_path, "old")
    new_cert, new_key = make_certificate(tmp_path, "new")
    cert, key = tmp_path / "live.crt", tmp_path / "live.key"  # the paths the server reads
    shutil.copy(old_cert, cert)
    shutil.copy(old_key, key)
    port = free_port()
    log = tmp_path / "server.log"
    server = await start(port, redis_url, cert, key, log)
    both = trusting(old_cert, new_cert)
    try:
        assert await served_certificate(port, both) == der(old_cert)
        page = await https_get(port, "/", both)
        assert page.startswith(b"HTTP/1.1 200") and b"<html" in page.lower()
        url = f"wss://localhost:{port}/"
        async with connect(url, ssl=both) as ws:  # a player on wss, kept open throughout
            player = WireClient(ws)
            await player.send(Hello(name="Ann", version=PROTOCOL_VERSION))
            await player.recv_type(Welcome)

            # renewed: written beside and moved in place, as an ACME client does
            shutil.copy(new_cert, tmp_path / "next.crt")
            shutil.copy(new_key, tmp_path / "next.key")
            os.replace(tmp_path / "next.key", key)
            os.replace(tmp_path / "next.crt", cert)
            assert await served_certificate(port, both) == der(old_cert)  # not before SIGHUP
            server.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + 20
            while await served_certificate(port, both) != der(new_cert):
                assert time.monotonic() < deadline, log.read_text()
                await asyncio.sleep(0.05)
            # the new certificate alone is enough for a new player
            async with connect(url, ssl=trusting(new_cert)) as other:
                bo = WireClient(other)
                await bo.send(Hello(name="Bo", version=PROTOCOL_VERSION))
                await bo.recv_type(Welcome)
            # the connection made on the old certificate is still up
            await player.send(Ping())
            await player.recv_type(Pong)
            tls = ws.transport.get_extra_info("ssl_object")
            assert tls.getpeercert(binary_form=True) == der(old_cert)
        assert server.returncode is None
        assert "TLS certificate reloaded" in log.read_text()
    finally:
        await stop(server)


async def test_a_bad_renewal_keeps_the_old_certificate(redis_url: str, tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path, "good")
    _, other_key = make_certificate(tmp_path, "other")
    port = free_port()
    log = tmp_path / "server.log"
    server = await start(port, redis_url, cert, key, log)
    try:
        shutil.copy(other_key, key)  # a key that is not the certificate's
        server.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while "not reloaded" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.05)
        assert await served_certificate(port, trusting(cert)) == der(cert)
        assert (await https_get(port, "/healthz", trusting(cert))).startswith(b"HTTP/1.1 200")
    finally:
        await stop(server)


async def test_the_own_page_over_https_is_its_origin(redis_url: str, tmp_path: Path) -> None:
    """On TLS the server's own page is https://HOST: an upgrade from it opens, one from
    http://HOST (another scheme: a page anyone on the network could forge) does not."""
    cert, key = make_certificate(tmp_path, "origin")
    port = free_port()
    server = await start(port, redis_url, cert, key, tmp_path / "server.log")
    url = f"wss://localhost:{port}/"
    try:
        async with connect(url, ssl=trusting(cert), origin=f"https://localhost:{port}"):  # type: ignore[arg-type]
            pass
        with pytest.raises(Exception, match="403"):
            async with connect(url, ssl=trusting(cert), origin=f"http://localhost:{port}"):  # type: ignore[arg-type]
                pass
    finally:
        await stop(server)


def test_files_that_do_not_load_end_the_start_with_one_line(tmp_path: Path) -> None:
    cert, _ = make_certificate(tmp_path, "lonely")
    _, key = make_certificate(tmp_path, "stranger")
    args = [sys.executable, "-m", "server", "--port", str(free_port())]
    args += ["--data-dir", str(tmp_path / "data"), "--tls-cert", str(cert), "--tls-key", str(key)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "--tls-cert / --tls-key" in done.stderr and "Traceback" not in done.stderr
