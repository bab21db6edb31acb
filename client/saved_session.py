"""The session kept on disk, so a restarted ``ddz`` takes its seat back.

A session token stands for the person, not the room: the server gives it on hello, and a
hello with it resumes the seat (a bot keeps the seat warm meanwhile). Kept only in the
process, it died with it: quit ``ddz`` mid-match, start it again, and the seat was lost. So
``ddz`` keeps it per server in the user's state folder, ``$XDG_STATE_HOME/ddz/`` (else
``~/.local/state/ddz/``), one file per server address, named from the URL
(``session_file``).

The token is a secret (it plays your seat): the folder is 0700, the file 0600 and written
whole or not at all (a temporary file in the same folder, fsync, ``os.replace``). A file that
cannot be read, is not JSON, or names another server is ignored, as if there were none.

Two ``ddz`` for one server on one account are one player: a process keeps the session only
while it holds the file's lock (``flock`` on a ``.lock`` beside it, for the process's life); a
second ``ddz`` finds it taken (``SessionFile.claim`` returns None), keeps nothing, and says
hello with the kept player key alone: the server gives it the player (their last session,
their seat) and closes the first one's connection, which then stops rather than take it back
(``client.connection.taken_over``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from client.connection import Link, LinkError
from client.private_file import make_private_folder, read_private, write_private
from protocol.errors import ErrorCode

#: The folder under the state home.
APP_FOLDER = "ddz"
#: A token longer than this is no token of ours: the file is ignored.
MAX_TOKEN = 512
#: The readable part of a file name, cut to this many characters.
MAX_SLUG = 64

_UNSAFE_IN_NAME = re.compile(r"[^a-z0-9.-]+")


def state_folder(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/ddz``, or ``~/.local/state/ddz`` (the XDG default) when the
    variable is unset, empty or not an absolute path (as the XDG spec says to treat it)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / APP_FOLDER


def session_file(server: str) -> str:
    """A safe file name for a server's session: the URL in lower-case letters, digits, dots
    and dashes (anything else a ``_``), cut short, plus a hash of the exact URL, so two
    servers whose readable parts agree still get two files.

    ``ws://127.0.0.1:8765`` gives ``ws_127.0.0.1_8765-<12 hex digits>.json``.
    """
    slug = _UNSAFE_IN_NAME.sub("_", server.lower()).strip("_.")[:MAX_SLUG] or "server"
    digest = hashlib.sha256(server.encode()).hexdigest()[:12]
    return f"{slug}-{digest}.json"


def _plausible_token(token: object) -> bool:
    return (
        isinstance(token, str)
        and 0 < len(token) <= MAX_TOKEN
        and token.isascii()
        and token.isprintable()
    )


@dataclass
class SessionFile:
    """One server's saved session, ``folder / session_file(server)``."""

    server: str
    folder: Path
    _lock: IO[bytes] | None = None

    @property
    def path(self) -> Path:
        return self.folder / session_file(self.server)

    @classmethod
    def claim(cls, server: str, folder: Path | None = None) -> SessionFile | None:
        """The server's saved session for this process to use and keep, or None when another
        process holds it already (or the state folder cannot be made): then this process
        keeps nothing. The lock lasts until ``release`` or the process ends."""
        store = cls(server, folder if folder is not None else state_folder())
        try:
            make_private_folder(store.folder)
            fd = os.open(store.path.with_suffix(".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
            lock = os.fdopen(fd, "wb")  # held open: the flock lasts while it is
        except OSError:
            return None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            return None
        store._lock = lock
        return store

    def release(self) -> None:
        """Let another process keep this server's session."""
        if self._lock is not None:
            self._lock.close()  # closing drops the flock
            self._lock = None

    def load(self) -> str | None:
        """The saved token, or None when there is none or the file is not one we wrote."""
        return read_private(self.path, self.server, "token", MAX_TOKEN, _plausible_token)

    def save(self, token: str) -> None:
        """Keep ``token``, replacing the file whole (0600, in the 0700 folder). A failure to
        write is not the player's problem: the session just is not kept."""
        if token == self.load():
            return
        with contextlib.suppress(OSError):
            write_private(self.path, self.server, "token", token)

    def forget(self) -> None:
        """Drop the saved session: the next start opens a new one."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class KeyStore(Protocol):
    """Where the player key is kept (``client.player_key.KeyFile``)."""

    def load(self) -> str | None: ...
    def save(self, key: str) -> bool: ...


#: What ``ddz`` says when the kept key no longer names a player.
BAD_KEY_HELP = (
    "the player key kept for this server no longer works (replaced on another "
    "machine?): ddz key --use CODE takes the new one, ddz key --forget starts anew"
)


async def open_kept(
    store: SessionFile | None,
    opener: Callable[[str | None, str | None], Awaitable[Link]],
    notice: Callable[[str], None],
    keys: KeyStore | None = None,
) -> Link:
    """The first link of a process: resume the saved session if there is one (the server
    then puts us back in our room), else open a new one, as the player of the kept key
    (``keys``) if any; keep its token, and the key the server gives a new player.

    A saved token the server no longer knows (``bad_token``: it expired, or the server's
    store was wiped) is dropped and a new session opened, with a ``notice``. A kept key
    the server refuses (``bad_key``) is an error with what to do (``BAD_KEY_HELP``): going
    on as a new player would leave the person's record behind unasked. Other failures are
    the caller's, as without a saved session (the file is kept: the server may be back).

    Without ``store`` (another ``ddz`` holds the session file) the kept key is still who we
    are: a second ``ddz`` of one person plays as them (the server then gives it the
    player's connection, and the other ``ddz`` stops), never as a stranger whose key is
    thrown away; a key the server issues is kept only when none is kept yet.
    """
    token = store.load() if store is not None else None
    key = keys.load() if keys is not None else None
    link: Link | None = None
    try:
        if token is not None:
            try:
                link = await opener(token, key)
            except LinkError as exc:
                if exc.code != ErrorCode.BAD_TOKEN:
                    raise
                assert store is not None
                store.forget()
                notice("the saved session has expired; starting a new one")
        if link is None:
            link = await opener(None, key)
    except LinkError as exc:
        if exc.code == ErrorCode.BAD_KEY:
            raise LinkError(BAD_KEY_HELP, exc.code) from exc
        raise
    if store is not None:
        store.save(link.welcome.token)
    issued = link.welcome.player_key
    if store is None and keys is not None and keys.load() is not None:
        return link  # (a second ddz: the key kept is the lock holder's to replace)
    if keys is not None and issued is not None and not keys.save(issued):
        notice("the player key could not be kept: your record stays with this session only")
    return link
