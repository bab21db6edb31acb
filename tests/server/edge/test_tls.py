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
from tests.system_packages import ensure_installed


def make_certificate(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, with ``name`` as its common
    name, and its key: PEM files in ``directory``."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        [
            ensure_installed("openssl", ["openssl"]),
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ]
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


DEPLOY = Path(__file__).parents[3] / "deploy"


def nginx_conf(tmp_path: Path, plain: int, tls: int, upstream: int, cert: Path, key: Path) -> Path:
    """deploy/nginx.conf as shipped, with only what a test must change: its ports, the one
    ddz-server behind it, the certificate's files, and where it writes (pid, logs)."""
    text = (DEPLOY / "nginx.conf").read_text()
    swaps = [
        ("user www-data;", ""),
        ("pid /run/nginx.pid;", f"pid {tmp_path}/nginx.pid;"),
        ("/var/log/nginx/error.log", f"{tmp_path}/error.log"),
        ("/var/log/nginx/ddz-access.log", f"{tmp_path}/access.log"),
        ("listen 8765;", f"listen 127.0.0.1:{plain};"),
        ("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;"),
        ("/etc/ssl/ddz/fullchain.pem", str(cert)),
        ("/etc/ssl/ddz/privkey.pem", str(key)),
        ("server 127.0.0.1:8801 ", f"server 127.0.0.1:{upstream} "),
        ("        server 127.0.0.1:8802 max_fails=3 fail_timeout=10s;\n", ""),
        ("        server 127.0.0.1:8803 max_fails=3 fail_timeout=10s;\n", ""),
    ]
    for old, new in swaps:
        assert old in text, old  # (the shipped file changed: change this test with it)
        text = text.replace(old, new)
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    return conf


async def test_the_nginx_config_ends_tls_in_front_of_a_server(
    redis_url: str, tmp_path: Path
) -> None:
    """deploy/nginx.conf's TLS listener, for real: https and wss through it to a ddz-server
    (which trusts it as a proxy, as ddz.env.example says), the page's own origin on either
    listener allowed (X-Forwarded-Proto, and the Host with its port), another refused."""
    cert, key = make_certificate(tmp_path, "nginx")
    upstream, plain, tls = free_port(), free_port(), free_port()
    conf = nginx_conf(tmp_path, plain, tls, upstream, cert, key)
    nginx = ensure_installed("nginx", ["nginx-light"])
    checked = subprocess.run([nginx, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    args = [sys.executable, "-m", "server", "--port", str(upstream), "--redis-url", redis_url]
    args += ["--key-prefix", unique_prefix(), "--bot-pool-start", "lazy"]
    args += ["--trusted-proxies", "127.0.0.1,::1", "--metrics-on-game-port"]
    log = tmp_path / "server.log"
    with log.open("ab") as out:
        server = await asyncio.create_subprocess_exec(*args, stdout=out, stderr=out)
    proxy = await asyncio.create_subprocess_exec(
        nginx, "-c", str(conf), "-g", "daemon off;", stderr=asyncio.subprocess.DEVNULL
    )
    context = trusting(cert)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if (await https_get(tls, "/healthz", context)).startswith(b"HTTP/1.1 200"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        assert await served_certificate(tls, context) == der(cert)
        assert b"ddz_connections" in await https_get(tls, "/metrics", context)  # (internal)
        for url, page in [
            (f"wss://localhost:{tls}/", f"https://localhost:{tls}"),
            (f"ws://localhost:{plain}/", f"http://localhost:{plain}"),
        ]:
            tls_or_not = context if url.startswith("wss") else None
            async with connect(url, ssl=tls_or_not, origin=page) as ws:  # type: ignore[arg-type]
                player = WireClient(ws)
                await player.send(Hello(name="Ann", version=PROTOCOL_VERSION))
                await player.recv_type(Welcome)
            with pytest.raises(Exception, match="403"):
                async with connect(url, ssl=tls_or_not, origin="https://evil.example"):  # type: ignore[arg-type]
                    pass
        # the page of http://HOST may not use the https listener's sessions, nor the reverse
        with pytest.raises(Exception, match="403"):
            async with connect(
                f"wss://localhost:{tls}/",
                ssl=context,
                origin=f"http://localhost:{tls}",  # type: ignore[arg-type]
            ):
                pass
    finally:
        if proxy.returncode is None:
            proxy.send_signal(signal.SIGQUIT)  # graceful: its workers go with it
            try:
                await asyncio.wait_for(proxy.wait(), 20)
            except TimeoutError:
                proxy.kill()
                await proxy.wait()
        await stop(server)
