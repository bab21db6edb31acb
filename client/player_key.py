"""The player key kept on disk: who ``ddz`` plays as on a server, across sessions.

The server gives a new player a key in its welcome (once); ``ddz`` keeps it per server
beside the saved session (``client.saved_session``), in the 0700 state folder, in a 0600
file written whole or not at all, and says hello with it, so a new session (the token
expired, another machine) is the same player: their history, replays and profile.
``ddz key`` shows it as a code to type on another machine (``ddz key --use CODE``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from client.private_file import read_private, write_private
from client.saved_session import session_file, state_folder

#: A key longer than this is none of ours (the protocol takes 128 characters).
MAX_KEY = 128


def plausible_key(key: object) -> bool:
    """A key's shape: ``PLAYER.SECRET``, printable ASCII, not too long."""
    return (
        isinstance(key, str)
        and 0 < len(key) <= MAX_KEY
        and key.isascii()
        and key.isprintable()
        and " " not in key
        and "." in key
    )


@dataclass(frozen=True)
class KeyFile:
    """One server's player key, ``folder / <the session file's name>.key``."""

    server: str
    folder: Path

    @classmethod
    def of(cls, server: str, folder: Path | None = None) -> KeyFile:
        return cls(server, folder if folder is not None else state_folder())

    @property
    def path(self) -> Path:
        return self.folder / (session_file(self.server).removesuffix(".json") + ".key")

    def load(self) -> str | None:
        """The kept key, or None when there is none or the file is not one we wrote."""
        return read_private(self.path, self.server, "key", MAX_KEY, plausible_key)

    def save(self, key: str) -> bool:
        """Keep ``key`` (0600, replacing the file whole); False when it could not be
        written (the caller says so: a key not kept is a player lost)."""
        if key == self.load():
            return True
        try:
            write_private(self.path, self.server, "key", key)
        except OSError:
            return False
        return True

    def forget(self) -> None:
        """Drop the key: the next start is a new player."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


#: A name as the server takes it (``protocol.text``): at most this many characters.
MAX_NAME = 24


def _plausible_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.isprintable()


@dataclass(frozen=True)
class NameFile:
    """The name last chosen with ``--name`` (or ``DDZ_NAME``) for a server, beside its key:
    who the player is at a table and in their profile when a later start leaves the name
    out (rather than the account's login name, "root")."""

    server: str
    folder: Path

    @classmethod
    def of(cls, server: str, folder: Path | None = None) -> NameFile:
        return cls(server, folder if folder is not None else state_folder())

    @property
    def path(self) -> Path:
        return self.folder / (session_file(self.server).removesuffix(".json") + ".name")

    def load(self) -> str | None:
        return read_private(self.path, self.server, "name", MAX_NAME * 4, _plausible_name)

    def save(self, name: str) -> None:
        if name != self.load():
            with contextlib.suppress(OSError):
                write_private(self.path, self.server, "name", name)
