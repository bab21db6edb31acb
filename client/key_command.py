"""``ddz key``: the player key kept for a server, shown, used or forgotten.

- no option: show the kept key as a code to type on another machine (nothing is sent);
- ``--use CODE``: check the code with the server (a hello as that player) and keep it, with
  the session that hello opened (the one kept before was another player's);
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
from client.profile_view import key_lines
from client.render import plain
from client.saved_session import SessionFile
from protocol.errors import ErrorCode


async def run_key(opts: Options, out: TextIO, err: TextIO) -> int:
    """``ddz key`` [``--use CODE`` | ``--forget``]; the exit status."""
    if opts.key_action == "show":
        for line in key_lines(KeyFile.of(opts.server).load(), opts.server):
            print(plain(line), file=out, flush=True)
        return EXIT_OK
    store = SessionFile.claim(opts.server)
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
    if not keys.save(code):
        show(err, f"ddz: the key could not be kept in {keys.folder}")
        return EXIT_SESSION
    store.save(welcome.token)
    print(f"you play as {plain([('', welcome.name)])} ({welcome.player_id}) now", file=out)
    return EXIT_OK
