"""``ddz key``: the player key kept for a server, shown, used or forgotten.

- no option: check the kept key with the server (a hello as the kept session and key, as
  any start says) and show it as a code to type on another machine; a key the server no
  longer takes (``--new`` on another machine made it dead) is not shown: what to do is
  (``BAD_KEY_HELP``); a server that cannot be reached leaves the key shown, unchecked;
- ``--use CODE``: check the code with the server (a hello as that player) and keep it, with
  the session that hello opened (the one kept before was another player's); the key it
  replaces is printed, the way back;
- ``--forget``: drop the kept key and session: the next start is a new player.

``--new`` asks the server (``client.headless.run_query``). Changing what is kept needs the
server's session file lock (``SessionFile.claim``): not while another ``ddz`` uses it.
"""

from __future__ import annotations

from typing import TextIO

from client.connection import Link, LinkError
from client.headless import EXIT_CONNECT, EXIT_OK, EXIT_SESSION, show
from client.options import Options
from client.player_key import KeyFile, plausible_key
from client.profile_view import KEY_LINE, key_lines
from client.render import plain
from client.saved_session import BAD_KEY_HELP, SessionFile, open_kept
from protocol.errors import ErrorCode


async def run_key(opts: Options, out: TextIO, err: TextIO) -> int:
    """``ddz key`` [``--use CODE`` | ``--forget``]; the exit status."""
    store = SessionFile.claim(opts.server)
    if opts.key_action == "show":
        try:
            return await _show(opts, store, out, err)
        finally:
            if store is not None:
                store.release()
    if store is None:
        show(err, "ddz: another ddz keeps this server's session and key: quit it first")
        return EXIT_SESSION
    try:
        keys = KeyFile.of(store.server, store.folder)
        if opts.key_action == "forget":
            keys.forget()
            store.forget()
            print("the player key is forgotten: the next start is a new player", file=out)
            return EXIT_OK
        return await _use(opts, opts.key_code or "", store, keys, out, err)
    finally:
        store.release()


async def _show(opts: Options, store: SessionFile | None, out: TextIO, err: TextIO) -> int:
    """The kept key, checked with the server first when this process may use the session
    (another ``ddz`` holding it is playing with the key: it works)."""
    keys = KeyFile.of(opts.server) if store is None else KeyFile.of(store.server, store.folder)
    key = keys.load()
    note = None
    if key is not None and store is not None:

        async def opener(token: str | None, kept: str | None) -> Link:
            return await Link.open(opts.server, opts.name, token, player_key=kept)

        try:
            link = await open_kept(store, opener, lambda text: None, keys)
        except LinkError as exc:
            if exc.code == ErrorCode.BAD_KEY:
                show(err, f"ddz: {BAD_KEY_HELP}")
                return EXIT_SESSION
            note = f"(not checked with the server: {exc})"
        else:
            await link.close()
    for line in key_lines(key, opts.server):
        print(plain(line), file=out, flush=True)
    if note is not None:
        show(err, f"ddz: {note}")
    return EXIT_OK


async def _use(
    opts: Options, code: str, store: SessionFile, keys: KeyFile, out: TextIO, err: TextIO
) -> int:
    code = code.strip()
    if not plausible_key(code):
        show(err, "ddz: that is not a player key (ddz key shows one: PLAYER.SECRET)")
        return EXIT_SESSION
    try:
        link = await Link.open(opts.server, opts.name, None, player_key=code)
    except LinkError as exc:
        if exc.code == ErrorCode.BAD_KEY:
            show(err, "ddz: the server knows no player by that key (replaced, or mistyped)")
            return EXIT_SESSION
        show(err, f"ddz: {exc}")
        return EXIT_CONNECT
    try:
        welcome = link.welcome
    finally:
        await link.close()
    before = keys.load()
    if not keys.save(code):
        show(err, f"ddz: the key could not be kept in {keys.folder}")
        return EXIT_SESSION
    store.save(welcome.token)
    print(f"you play as {plain([('', welcome.name)])} ({welcome.player_id}) now", file=out)
    if before is not None and before != code:
        print("the key kept here before (ddz key --use it to go back):", file=out)
        for i in range(0, len(before), KEY_LINE):
            print(before[i : i + KEY_LINE], file=out)
    return EXIT_OK
