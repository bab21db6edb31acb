"""Every message of the wire protocol, as pydantic v2 models with a literal ``type``.

``ClientMessage`` is what a client may send, ``ServerMessage`` what a server sends; each is a
discriminated union on ``type``. Requests carry a client-chosen ``id`` (echoed in an error
reply, and used to recognise a resent request) and game actions may name the state
``version`` the client acted on, so a stale action is refused rather than applied twice.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, TypeAdapter

from protocol.chat import ChatPhrase
from protocol.errors import ErrorCode
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardIds,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Message,
    Passed,
    SeatControl,
    TableView,
    TurnStarted,
)
from protocol.text import NAME_MAX, checked_name

PROTOCOL_VERSION = 1

BotLevel = Literal["easy", "normal", "strong"]
BotSpeed = Literal["instant", "fast", "normal", "slow"]
RoomMode = Literal["practice", "private", "quick"]
Name = Annotated[str, Field(min_length=1, max_length=4 * NAME_MAX), AfterValidator(checked_name)]
"""A player's name: printable text, 1 to 24 characters once stripped (``protocol.text``)."""
RoomCode = Annotated[
    str, Field(min_length=1, max_length=24, pattern=r"^[A-Za-z0-9 -]*[A-Za-z0-9][A-Za-z0-9 -]*$")
]
"""A room code as typed: letters and digits, in groups split by dashes or spaces (a long
code is shown ``K7P2Q-M4XTR``); lower case forgiven."""
Token = Annotated[str, Field(min_length=1, max_length=128)]
PlayerKey = Annotated[str, Field(min_length=1, max_length=128)]
"""A lasting player key as the server issued it (``server/players/keys.py``): a secret."""
RequestId = Annotated[int, Field(ge=0, le=2**53)]


class Request(Message):
    """Base of client messages: ``id`` is the client's number for this request."""

    id: RequestId = 0


# --- client to server -------------------------------------------------------------------


class Hello(Request):
    """First message: who I am, the protocol I speak, and a session token to resume.
    ``player_key``: the lasting player I am (none: a new player, whose key the welcome
    gives)."""

    type: Literal["hello"] = "hello"
    name: Name
    version: int
    token: Token | None = None
    player_key: PlayerKey | None = None


class StartPractice(Request):
    """One person against two bots, no clocks, starting at once."""

    type: Literal["start_practice"] = "start_practice"
    deals: Literal[1, 3, 6, 9] = 3
    level: BotLevel = "normal"
    speed: BotSpeed = "normal"


class CreateRoom(Request):
    """A private room for 3, 6 or 9 deals, joined by its code. ``public``: listed for
    watching. ``rated``: its match changes its three people's ratings (no bot may sit)."""

    type: Literal["create_room"] = "create_room"
    deals: Literal[3, 6, 9] = 3
    public: bool = False
    rated: bool = False


class JoinRoom(Request):
    type: Literal["join_room"] = "join_room"
    code: RoomCode


class SeatBot(Request):
    """The creator seats a bot in an empty seat (the first empty one when ``seat`` is None)."""

    type: Literal["seat_bot"] = "seat_bot"
    seat: Annotated[int, Field(ge=0, le=2)] | None = None
    level: BotLevel = "normal"


class ReadyRequest(Request):
    """Ready to start the match (private room) or the next deal."""

    type: Literal["ready"] = "ready"


class BidRequest(Request):
    type: Literal["bid"] = "bid"
    value: int
    version: int | None = None


class PassRequest(Request):
    type: Literal["pass"] = "pass"
    version: int | None = None


class PlayRequest(Request):
    """Play these ranks (3..17, see ``protocol.cards.Rank``)."""

    type: Literal["play"] = "play"
    ranks: Annotated[list[Annotated[int, Field(ge=3, le=17)]], Field(max_length=20)]
    version: int | None = None


class ResumeRequest(Request):
    """Take my seat back from the bot that took it over."""

    type: Literal["resume"] = "resume"


class SetBotSpeed(Request):
    type: Literal["set_bot_speed"] = "set_bot_speed"
    speed: BotSpeed


class Watch(Request):
    type: Literal["watch"] = "watch"
    code: RoomCode


class Leave(Request):
    """Leave the room (or stop watching)."""

    type: Literal["leave"] = "leave"


class Ping(Request):
    type: Literal["ping"] = "ping"


class QuickMatch(Request):
    """Join the quick-match queue: three people make a timed 3-deal match; after the
    server's wait, bots fill the empty seats."""

    type: Literal["quick_match"] = "quick_match"


class LeaveQueue(Request):
    type: Literal["leave_queue"] = "leave_queue"


class ListRooms(Request):
    """The live matches anyone may watch: quick matches and public rooms."""

    type: Literal["list_rooms"] = "list_rooms"


class Chat(Request):
    """Say a quick-chat phrase to the table and its watchers (seated persons only; a few
    a minute). ``phrase`` is one of ``protocol.chat.ChatPhrase``: no free text."""

    type: Literal["chat"] = "chat"
    phrase: ChatPhrase


class Rematch(Request):
    """Again: after the match in room ``code`` is over, play another with the same seats
    and settings. The first to ask opens the new room (the others' seats are held for them
    a while and they are told, ``RematchAsked``); the others ask the same, naming the same
    code, and take their seats. Asking means ready: the match starts when every seat is."""

    type: Literal["rematch"] = "rematch"
    code: RoomCode


class GetReplay(Request):
    """The replay of the finished match in room ``code``: for who played or watched it."""

    type: Literal["get_replay"] = "get_replay"
    code: RoomCode


class GetReview(Request):
    """The review of the finished match in room ``code`` (each play and pass judged by the
    exact solver): for who may replay it, as every hand shows in it."""

    type: Literal["get_review"] = "get_review"
    code: RoomCode


class GetHistory(Request):
    """My last matches (my player's, whatever the session), the newest first."""

    type: Literal["get_history"] = "get_history"


class GetProfile(Request):
    """My profile: my statistics and ``PROFILE_PAGE`` of my matches from ``offset`` (0: the
    newest)."""

    type: Literal["get_profile"] = "get_profile"
    offset: Annotated[int, Field(ge=0, le=100_000)] = 0


#: A player's public tag on the ladder (``server/players/keys.py`` ``public_tag``).
PlayerTag = Annotated[str, Field(pattern=r"^[0-9a-f]{6}$")]


class GetPublicProfile(Request):
    """The public part of a player's profile, by their tag on the ladder: name, rating,
    its history and the statistics; never their matches, id, key or token."""

    type: Literal["get_public_profile"] = "get_public_profile"
    tag: PlayerTag


class NewPlayerKey(Request):
    """Replace my player key: the old one stops working, my record stays mine."""

    type: Literal["new_player_key"] = "new_player_key"


class GetLeaderboard(Request):
    """The ladder's top players by rating, and my place on it."""

    type: Literal["get_leaderboard"] = "get_leaderboard"


#: A puzzle's id: the first 12 hex digits of the SHA-256 of its canonical cards
#: (``server/analysis/puzzles.py``, ``Puzzle.key``): the same cards, the same id.
PuzzleId = Annotated[str, Field(pattern=r"^[0-9a-f]{12}$")]
#: A puzzle's seats are numbered from the landlord: 0 the landlord, 1 the farmer who plays
#: after it, 2 the other farmer.
PuzzleSeat = Annotated[int, Field(ge=0, le=2)]
Ranks = Annotated[list[Annotated[int, Field(ge=3, le=17)]], Field(max_length=20)]


class GetPuzzle(Request):
    """Start a puzzle (残局): by ``puzzle_id``; else the day's puzzle (``daily``, the same for
    everyone on a UTC day); else the next one near my puzzle rating that I have not tried.
    Answered with ``PuzzleData``; starting a puzzle again starts it from its beginning."""

    type: Literal["get_puzzle"] = "get_puzzle"
    daily: bool = False
    puzzle_id: PuzzleId | None = None


class PuzzleMove(Request):
    """My move in the puzzle I am playing: ``seat`` (one of my side's, on turn) plays
    ``ranks`` (None: it passes). ``step``: how many moves of mine this attempt has made so far
    (0 for the first), so a resent or stale move is refused, never applied twice."""

    type: Literal["puzzle_move"] = "puzzle_move"
    puzzle_id: PuzzleId
    seat: PuzzleSeat
    ranks: Ranks | None
    step: Annotated[int, Field(ge=0, le=100)]


ClientMessage = Annotated[
    Hello
    | StartPractice
    | CreateRoom
    | JoinRoom
    | SeatBot
    | ReadyRequest
    | BidRequest
    | PassRequest
    | PlayRequest
    | ResumeRequest
    | SetBotSpeed
    | Watch
    | Leave
    | Ping
    | QuickMatch
    | LeaveQueue
    | ListRooms
    | Chat
    | Rematch
    | GetReplay
    | GetReview
    | GetHistory
    | GetProfile
    | NewPlayerKey
    | GetLeaderboard
    | GetPublicProfile
    | GetPuzzle
    | PuzzleMove,
    Field(discriminator="type"),
]

# --- server to client -------------------------------------------------------------------


class Welcome(Message):
    """The session is open. Keep ``token`` secret: it resumes this seat after a drop."""

    type: Literal["welcome"] = "welcome"
    token: str
    player_id: str
    name: str
    protocol_version: int = PROTOCOL_VERSION
    resumed: bool = False
    room: str | None = None
    last_request_id: int = 0
    """The highest request id of this session the room has applied: number on from it."""
    player_key: str | None = None
    """A player key newly issued to this connection's person (a new player, or one who had
    none): keep it secret; sent once, here, and never again."""


class Error(Message):
    """A request was refused and changed nothing. ``request_id`` names it."""

    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    request_id: int | None = None


class Pong(Message):
    type: Literal["pong"] = "pong"
    request_id: int


#: The tiers (段位) a player climbs by their shown rating (``server/players/rating.py``).
Tier = Literal["bronze", "silver", "gold", "platinum", "diamond", "master"]


class SeatView(Message):
    """Who sits in a seat: a person (maybe disconnected), a bot, or nobody yet."""

    kind: Literal["empty", "person", "bot"]
    name: str | None = None
    level: BotLevel | None = None
    connected: bool = False
    ready: bool = False
    #: A person's rating tier as a quick match seated them (None: not rated yet, or not a
    #: quick match): who one plays against, as the popular apps show it.
    tier: Tier | None = None


class RoomView(Message):
    """A room as one viewer sees it; ``table`` is None until the match starts. ``rated``:
    its match changes its persons' ratings (a quick match, or a private room created
    rated), when two persons or more play it."""

    code: str
    mode: RoomMode
    deals: int
    seats: list[SeatView]
    watchers: int
    your_seat: int | None
    creator_seat: int | None
    bot_speed: BotSpeed
    timed: bool
    version: int
    table: TableView | None
    rated: bool = False


class Snapshot(Message):
    """All this viewer may see, sent on join, watch and reconnect."""

    type: Literal["snapshot"] = "snapshot"
    room: RoomView


class SeatsChanged(Message):
    type: Literal["seats"] = "seats"
    seats: list[SeatView]
    watchers: int


class BotSpeedChanged(Message):
    type: Literal["bot_speed"] = "bot_speed"
    speed: BotSpeed


class RoomClosed(Message):
    type: Literal["room_closed"] = "room_closed"
    #: ``abandoned``: nobody was connected for the idle-room timeout.
    reason: Literal["match_over", "everyone_left", "abandoned"]


class Left(Message):
    """You left the room (or stopped watching)."""

    type: Literal["left"] = "left"


class Queued(Message):
    """You are in the quick-match queue; bots fill the seats ``wait`` seconds after you
    joined it if three people have not met by then."""

    type: Literal["queued"] = "queued"
    wait: float
    waiting: int


class QueueLeft(Message):
    type: Literal["queue_left"] = "queue_left"


class RoomSummary(Message):
    code: str
    mode: RoomMode
    deals: int
    deal_no: int
    seats: list[str]
    watchers: int


class RoomList(Message):
    type: Literal["room_list"] = "room_list"
    rooms: list[RoomSummary]


class ChatSaid(Message):
    """A seat said a quick-chat phrase (``protocol.chat``: the client shows its text)."""

    type: Literal["chat_said"] = "chat_said"
    seat: int
    phrase: ChatPhrase


class RematchAsked(Message):
    """A player of the finished match in room ``code`` asked for another (``seat``: their
    seat then and now). Send ``Rematch(code)`` to take your seat, held for you until
    ``deadline`` (server time; ``server_time`` is now): then a private room's seat is free
    for anyone, and a quick match's is given to a bot."""

    type: Literal["rematch_asked"] = "rematch_asked"
    code: str
    seat: int
    deadline: float
    server_time: float
    #: The asker's name at the table (a client that is not showing that room knows no other).
    name: str | None = None


ReplayEvent = Annotated[
    BidMade | DealVoided | LandlordChosen | CardsPlayed | Passed | SeatControl,
    Field(discriminator="type"),
]


class ReplayDeal(Message):
    """One deal as dealt and played: every hand (17 cards each) and the kitty as dealt, the
    public events in order, and its end (None for a void deal, or one never finished)."""

    deal_no: int
    void: bool
    first_bidder: int
    forced_bid: bool
    hands: list[CardIds]
    kitty: CardIds
    events: list[ReplayEvent]
    end: DealEnded | None


class ReplayData(Message):
    """A finished match, deal by deal (void deals included), rebuilt from its journal.
    ``seats``: the names at the table; ``ended``: why the room closed (``match_over``: it
    was played to the end, ``result`` then holds the totals and winners)."""

    type: Literal["replay"] = "replay"
    code: str
    mode: RoomMode
    deals_total: int
    seats: list[str]
    ended: Literal["match_over", "everyone_left", "abandoned"]
    started_at: float
    ended_at: float
    deals: list[ReplayDeal]
    result: MatchEnded | None


Side = Literal["landlord", "farmers"]


class ReviewDecision(Message):
    """One play or pass of a reviewed deal: its seat and cards (text, ``None``: a pass), the
    side that wins with best play before and after it, or before the solver's reach the
    strong bot's estimate of the landlord's chance (a number from 0 to 1; ``None``:
    unknown, as in a review kept before the estimates), whether both are exact (sides),
    and, where it threw its side's win away, the moves that would have kept it (``None``:
    the pass)."""

    seat: int
    play: str | None
    before: Side | Annotated[float, Field(ge=0, le=1)] | None
    after: Side | Annotated[float, Field(ge=0, le=1)] | None
    exact: bool
    better: list[str | None]
    timeout: bool


class ReviewDeal(Message):
    """A reviewed deal: the landlord, the hands as play began (text, the kitty in the
    landlord's), the winner, where it was lost (``lost_at``, an index into ``decisions``),
    how many decisions from the end were solved (``reach``), how many before those carry an
    estimate (``estimated``; 0 in a review kept before the estimates), and the cost."""

    deal_no: int
    landlord: int
    hands: list[str]
    winner: Side
    lost_at: int | None
    reach: int
    estimated: int = 0
    positions: int
    seconds: float
    decisions: list[ReviewDecision]


class ReviewData(Message):
    """The review of a finished match (``GetReview``), every deal played to its end."""

    type: Literal["review"] = "review"
    code: str
    deals: list[ReviewDeal]


class HistoryEntry(Message):
    """One match of mine: when it ended, its mode and deals, the totals and my result, and
    the code that ``GetReplay`` takes (for ``--finished-ttl``)."""

    code: str
    mode: RoomMode
    ended_at: float
    deals: int
    deals_total: int
    seats: list[str]
    your_seat: int
    totals: list[int]
    result: Literal["won", "lost", "unfinished"]
    ended: Literal["match_over", "everyone_left", "abandoned"]


class History(Message):
    type: Literal["history"] = "history"
    entries: list[HistoryEntry]


#: Matches one ``Profile`` lists.
PROFILE_PAGE = 20


class ModeRecord(Message):
    """Matches played and won in one mode."""

    mode: RoomMode
    played: int
    won: int


class Profile(Message):
    """A player's record: name, statistics per mode and per side, and a page of matches
    (``offset``, of ``total`` kept, the newest first). Win rates are won / dealt.
    ``rating``: their rating from rated quick matches (None: never rated)."""

    type: Literal["profile"] = "profile"
    player_id: str
    name: str
    modes: list[ModeRecord]
    landlord_deals: int
    landlord_won: int
    farmer_deals: int
    farmer_won: int
    points_won: int
    points_lost: int
    springs: int
    bombs: int
    rockets: int
    best: HistoryEntry | None
    matches: list[HistoryEntry]
    offset: int
    total: int
    rating: RatingView | None
    rating_history: list[int] = Field(default_factory=list)
    #: My puzzle record (None: the server keeps none).
    puzzles: PuzzleRecord | None = None


class PublicProfile(Message):
    """What anyone may see of a player on the ladder (``GetPublicProfile``): their name and
    tag, rating and its history (shown points after each of their last rated matches, the
    oldest first), matches played and won per mode, deals won as landlord and as farmer."""

    type: Literal["public_profile"] = "public_profile"
    tag: str
    name: str
    rating: RatingView | None
    rating_history: list[int]
    modes: list[ModeRecord]
    landlord_deals: int
    landlord_won: int
    farmer_deals: int
    farmer_won: int


class PlayerKeyIssued(Message):
    """My new player key (after ``NewPlayerKey``): the old one works no more."""

    type: Literal["player_key"] = "player_key"
    player_key: str


class RatingView(Message):
    """A rating as shown: ``points`` the number people read (1500 for a new player, 40 a
    unit of skill), ``provisional`` while it is too uncertain to settle on (shown "1500?"),
    its ``tier``; ``rating`` the conservative value (``mu - 3 sigma``: at least that good),
    ``mu`` the skill estimate, ``sigma`` its uncertainty, and how many rated matches it
    rests on. A skill estimate: no points of any match carried over."""

    points: int
    provisional: bool
    tier: Tier
    rating: float
    mu: float
    sigma: float
    matches: int


class RatingChanged(Message):
    """Your rating after the rated quick match in room ``code``, and before it."""

    type: Literal["rating_changed"] = "rating_changed"
    code: str
    before: RatingView
    after: RatingView


class LadderLine(Message):
    """One player on the ladder: their place (from 1; None: not on it yet), name, rating,
    and public ``tag`` (tells two players of one name apart; opens their public profile).
    Never a player's id, key or token."""

    rank: int | None
    name: str
    rating: RatingView
    tag: str = ""


class Leaderboard(Message):
    """The ladder's top (at most 100) by the rating shown, among players with at least
    ``min_matches`` rated matches (``ranked`` of them), and your own line (None: never
    rated)."""

    type: Literal["leaderboard"] = "leaderboard"
    top: list[LadderLine]
    ranked: int
    min_matches: int
    you: LadderLine | None


class PuzzlePosition(Message):
    """An open puzzle position: every hand (ranks, 3..17) by seat numbered from the landlord
    (0 the landlord, 1 the farmer after it, 2 the other), the seat on ``turn``, the play it
    must beat (None: it leads) and the seat that made it (``by``)."""

    hands: list[Ranks]
    turn: PuzzleSeat
    to_beat: Ranks | None
    by: PuzzleSeat | None


class PuzzlePlay(Message):
    """One move of a puzzle: ``seat`` played ``ranks`` (None: passed)."""

    seat: PuzzleSeat
    ranks: Ranks | None


class PuzzleData(Message):
    """A puzzle to play (``GetPuzzle``): its ``position``, the ``side`` I play (the landlord:
    seat 0; the farmers: seats 1 and 2, against the landlord), how many plays of my side the
    win takes at least (``min_plays``), the puzzle's shown ``rating`` and mine
    (``your_rating``, 1500 new), whether it is the day's puzzle, whether I ``tried`` it before
    (a second try changes no rating; a first, not ``tried``, is rated: left before its end,
    for another puzzle or a day without a move, it counts as failed) and whether it was cut
    from a deal I lost (``own``).
    No names, no match code: the same cards from any deal are the same puzzle."""

    type: Literal["puzzle"] = "puzzle"
    puzzle_id: str
    position: PuzzlePosition
    side: Side
    min_plays: int
    rating: int
    your_rating: int
    daily: bool = False
    tried: bool = False
    own: bool = False


class PuzzleRatingChange(Message):
    """The ratings an attempt changed (its first, only): mine and the puzzle's, before and
    after, in shown points."""

    before: int
    after: int
    puzzle_before: int
    puzzle_after: int


class PuzzleReply(Message):
    """The answer to a ``PuzzleMove``: ``moves`` are my move and then the defence's (the one
    that keeps the game longest), until my side is on turn again or the deal is over;
    ``position`` is where it stands now (None once over), ``step`` my moves so far.
    ``result``: ``going``; ``solved`` (my side went out); ``failed`` (the move lost the win:
    ``line`` is the winning line from the position before it, my side's moves and the
    longest defence, to the end). ``rating``: the change of a first attempt once over."""

    type: Literal["puzzle_reply"] = "puzzle_reply"
    puzzle_id: str
    step: int
    moves: list[PuzzlePlay]
    position: PuzzlePosition | None
    result: Literal["going", "solved", "failed"]
    line: list[PuzzlePlay] = Field(default_factory=list)
    rating: PuzzleRatingChange | None = None


class PuzzleRecord(Message):
    """A player's puzzles in their profile: tried and solved (first attempts), the puzzle
    rating shown (1500 new), and the turning points of their own deals in the last 7 days
    (moves that threw a won position away, from the reviews of their matches)."""

    tried: int
    solved: int
    rating: int
    turning_points_week: int = 0


class Paused(Message):
    """The room's storage does not answer: the match is paused and safe (everything shown
    was saved). Clocks stop, nothing is taken; ``Resumed`` follows when storage is back.
    ``since``: when the pause began (server time)."""

    type: Literal["paused"] = "paused"
    code: str
    since: float


class Resumed(Message):
    """The match goes on after a pause, with each clock's time as it was (a fresh
    ``TurnStarted`` or ``AwaitingReady`` follows with the deadline moved on)."""

    type: Literal["resumed"] = "resumed"
    code: str


ServerMessage = Annotated[
    Welcome
    | Error
    | Pong
    | Snapshot
    | SeatsChanged
    | BotSpeedChanged
    | RoomClosed
    | Left
    | Queued
    | QueueLeft
    | RoomList
    | DealStarted
    | BidMade
    | DealVoided
    | LandlordChosen
    | CardsPlayed
    | Passed
    | TurnStarted
    | DealEnded
    | AwaitingReady
    | MatchEnded
    | SeatControl
    | ChatSaid
    | RematchAsked
    | ReplayData
    | ReviewData
    | History
    | Profile
    | PublicProfile
    | PlayerKeyIssued
    | RatingChanged
    | Leaderboard
    | Paused
    | Resumed
    | PuzzleData
    | PuzzleReply,
    Field(discriminator="type"),
]

CLIENT_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
