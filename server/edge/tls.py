"""TLS without a proxy: ``--tls-cert`` and ``--tls-key`` make the game port speak https and
wss, and SIGHUP reads the files again (certificates renew: certbot, an ACME client).

One ``ssl.SSLContext`` serves the listener for its whole life; each new connection takes
the certificate the context holds when its handshake starts, so a reload (``reload``) loads
the new files into that same context: new handshakes get the new certificate, connections
already open keep theirs. Files that do not load (a key that does not match its
certificate, a half-written file) are refused before the live context is touched, so a
bad renewal leaves the server on its old certificate, with one log line that says why.
"""

from __future__ import annotations

import logging
import ssl

log = logging.getLogger(__name__)


def server_context(cert: str, key: str) -> ssl.SSLContext:
    """A server context on ``cert`` (a PEM chain, leaf first) and ``key``: TLS 1.2 at
    least, HTTP/1.1 (websockets upgrade from it). OSError or ssl.SSLError when they do not
    load."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    context.load_cert_chain(cert, key)
    return context


class Certificates:
    """The listener's TLS context, on the files at ``cert`` and ``key``, reloadable."""

    def __init__(self, cert: str, key: str) -> None:
        self.cert = cert
        self.key = key
        self.context = server_context(cert, key)

    def reload(self) -> bool:
        """Read the files again into the live context (new handshakes use them); whether
        they loaded. Files that do not load change nothing."""
        try:
            server_context(self.cert, self.key)  # checked apart first: never half loaded
            self.context.load_cert_chain(self.cert, self.key)
        except (OSError, ssl.SSLError) as exc:
            log.error("TLS certificate not reloaded, the old one stays: %s", describe(exc))
            return False
        log.info("TLS certificate reloaded from %s", self.cert)
        return True


def describe(exc: OSError | ssl.SSLError) -> str:
    """One line for a certificate or key that did not load."""
    if isinstance(exc, ssl.SSLError):
        return f"{exc.reason or exc} (is --tls-key the key of --tls-cert, both PEM?)"
    return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
