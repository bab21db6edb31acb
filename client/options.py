"""The parsed command line, shared by the headless and the interactive client."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from client.backoff import DEFAULT_RECONNECT_FOR
from protocol.messages import (
    PROFILE_PAGE,
    BotLevel,
    BotSpeed,
    CreateRoom,
    GetHistory,
    GetLeaderboard,
    GetProfile,
    GetReplay,
    GetReview,
    JoinRoom,
    ListRooms,
    NewPlayerKey,
    QuickMatch,
    Request,
    StartPractice,
    Watch,
)

Mode = Literal[
    "practice",
    "create",
    "join",
    "watch",
    "quick",
    "list",
    "replay",
    "review",
    "history",
    "profile",
    "key",
    "top",
    "puzzle",
]
KeyAction = Literal["show", "new", "use", "forget"]


@dataclass(frozen=True, slots=True)
class Options:
    """What ``ddz`` was asked to do.

    ``mode`` is the subcommand (None: the interactive menu). ``auto`` is the bot level that
    plays for me (None: I play), ``json`` prints every received message as a JSON line.
    ``again``: headless, after the match ask for (or accept) one rematch and play it too.
    ``deals``, ``level`` and ``speed`` are for practice; ``deals``, ``bots``, ``bot_speed``
    and ``public`` for create; ``code`` for join, watch, replay and review
    (``review_deal``: one deal of it); ``quick`` joins the quick-match queue and ``list``
    asks for the live rooms (and ends). ``reconnect_for``: seconds a
    dropped session keeps trying to resume (0: it does not try). ``keep_session``: keep the
    session token on disk and resume it on the next start (``client.saved_session``), and
    the player key (``client.player_key``); off unless the command line turns it on, so a
    client built in code keeps nothing. ``page``: of ``profile``'s matches; ``key_action``
    and ``key_code``: what ``key`` does (show, new, use CODE, forget).
    """

    server: str
    name: str
    mode: Mode | None = None
    auto: BotLevel | None = None
    json: bool = False
    again: bool = False
    deals: int = 3
    level: BotLevel = "normal"
    speed: BotSpeed = "normal"
    bots: BotLevel | None = None
    bot_speed: BotSpeed | None = None
    public: bool = False
    rated: bool = False
    code: str | None = None
    reconnect_for: float = DEFAULT_RECONNECT_FOR
    keep_session: bool = False
    page: int = 1
    key_action: KeyAction = "show"
    key_code: str | None = None
    review_deal: int | None = None
    #: ``puzzle``: the day's puzzle, or one by its id (neither: the next near my rating).
    puzzle_daily: bool = False
    puzzle_id: str | None = None

    @property
    def headless(self) -> bool:
        """No prompt: a bot plays (``--auto``) or messages are only printed (``--json``)."""
        return self.auto is not None or self.json


def setup_request(opts: Options) -> Request | None:
    """The request that opens the session's room for a subcommand (None: no subcommand).

    Validated like any message, so a deal count the room does not take fails here.
    """
    if opts.mode == "practice":
        return StartPractice.model_validate(
            {"deals": opts.deals, "level": opts.level, "speed": opts.speed}
        )
    if opts.mode == "create":
        return CreateRoom.model_validate(
            {"deals": opts.deals, "public": opts.public, "rated": opts.rated}
        )
    if opts.mode == "join" and opts.code:
        return JoinRoom(code=opts.code)
    if opts.mode == "watch" and opts.code:
        return Watch(code=opts.code)
    if opts.mode == "quick":
        return QuickMatch()
    if opts.mode == "list":
        return ListRooms()
    if opts.mode == "replay" and opts.code:
        return GetReplay(code=opts.code)
    if opts.mode == "review" and opts.code:
        return GetReview(code=opts.code)
    if opts.mode == "history":
        return GetHistory()
    if opts.mode == "profile":
        return GetProfile(offset=(max(opts.page, 1) - 1) * PROFILE_PAGE)
    if opts.mode == "key" and opts.key_action == "new":
        return NewPlayerKey()
    if opts.mode == "top":
        return GetLeaderboard()
    return None
