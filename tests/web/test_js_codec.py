"""The browser's codec (server/web/static/js/codec.js) speaks the Python codec's frames.

Client messages encoded in JavaScript decode in Python to the same model (and are the same
bytes); server messages encoded in Python decode in JavaScript to the same data; a bad frame
gets the same error code in both. One run of ``js_codec_driver.mjs`` answers them all.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from pydantic import BaseModel

from protocol.codec import _TYPES, ProtocolError, decode, decode_server, encode
from protocol.errors import ErrorCode
from protocol.events import (
    AwaitingReady,
    BidMade,
    CardsPlayed,
    DealEnded,
    DealStarted,
    DealVoided,
    LandlordChosen,
    MatchEnded,
    Passed,
    ScoreBreakdown,
    SeatControl,
    TablePlay,
    TableView,
    TurnStarted,
)
from protocol.messages import (
    PROTOCOL_VERSION,
    BidRequest,
    BotSpeedChanged,
    Chat,
    ChatSaid,
    CreateRoom,
    Error,
    GetHistory,
    GetLeaderboard,
    GetProfile,
    GetPublicProfile,
    GetPuzzle,
    GetReplay,
    GetReview,
    Hello,
    History,
    HistoryEntry,
    JoinRoom,
    LadderLine,
    Leaderboard,
    Leave,
    LeaveQueue,
    Left,
    ListRooms,
    ModeRecord,
    NewPlayerKey,
    PassRequest,
    Paused,
    Ping,
    PlayerKeyIssued,
    PlayRequest,
    Pong,
    Profile,
    PublicProfile,
    PuzzleData,
    PuzzleMove,
    PuzzlePlay,
    PuzzlePosition,
    PuzzleRatingChange,
    PuzzleRecord,
    PuzzleReply,
    Queued,
    QueueLeft,
    QuickMatch,
    RatingChanged,
    RatingView,
    ReadyRequest,
    Rematch,
    RematchAsked,
    ReplayData,
    ReplayDeal,
    Resumed,
    ResumeRequest,
    ReviewData,
    ReviewDeal,
    ReviewDecision,
    RoomClosed,
    RoomList,
    RoomSummary,
    RoomView,
    SeatBot,
    SeatsChanged,
    SeatView,
    SetBotSpeed,
    Snapshot,
    StartPractice,
    Watch,
    Welcome,
)
from tests.web.node import node_json

#: One of each client message, with fields away from their defaults where they have any.
CLIENT_MESSAGES: list[BaseModel] = [
    Hello(id=1, name="李雷 🂡", version=PROTOCOL_VERSION, token="t" * 43),
    Hello(name="ann", version=PROTOCOL_VERSION),
    StartPractice(id=2, deals=9, level="strong", speed="instant"),
    CreateRoom(id=3, deals=6, public=True),
    JoinRoom(id=4, code="K7Q2XW"),
    SeatBot(id=5, seat=2, level="easy"),
    SeatBot(id=6),
    ReadyRequest(id=7),
    BidRequest(id=8, value=3, version=41),
    PassRequest(id=9, version=None),
    PlayRequest(id=10, ranks=[3, 3, 3, 4, 4, 4, 5, 6], version=2**40),
    # the largest id a JavaScript number holds exactly (2**53 - 1, not 2**53)
    PlayRequest(id=2**53 - 1, ranks=[16, 17]),
    ResumeRequest(id=11),
    SetBotSpeed(id=12, speed="slow"),
    Watch(id=13, code="ABCDEF"),
    Leave(id=14),
    Ping(id=15),
    QuickMatch(id=16),
    LeaveQueue(id=17),
    ListRooms(id=18),
    Chat(id=19, phrase="well_played"),
    Rematch(id=20, code="K7P2Q-M4XTR"),
    GetReplay(id=21, code="K7Q2XW"),
    GetHistory(id=22),
    GetProfile(id=23, offset=20),
    NewPlayerKey(id=24),
    Hello(id=25, name="ann", version=PROTOCOL_VERSION, player_key="p0123456789abcdef.k3y"),
    GetLeaderboard(id=26),
    GetReview(id=27, code="K7Q2XW"),
    GetPublicProfile(id=28, tag="3f2a9c"),
    CreateRoom(id=29, deals=9, rated=True),
    GetPuzzle(id=30),
    GetPuzzle(id=31, daily=True),
    GetPuzzle(id=32, puzzle_id="0123456789ab"),
    PuzzleMove(id=33, puzzle_id="0123456789ab", seat=1, ranks=[3, 3, 17], step=0),
    PuzzleMove(id=34, puzzle_id="0123456789ab", seat=0, ranks=None, step=2),
]

#: Messages the driver builds in JavaScript, fields left undefined where Python has defaults.
JS_LITERALS: list[BaseModel] = [
    Hello(name="ann", version=PROTOCOL_VERSION),
    PlayRequest(id=9, ranks=[3, 3, 3, 4]),
    PassRequest(id=10, version=12),
    ReadyRequest(),
    StartPractice(id=11, level="easy"),
]

_TURN = TurnStarted(
    seat=2,
    action="play",
    may_pass=True,
    deadline=1764547230.5,
    server_time=1764547200.123456,
    version=57,
)
_SCORE = ScoreBreakdown(
    base=3, bombs=1, rockets=1, spring=False, anti_spring=True, multiplier=16, scores=[-96, 48, 48]
)
_DEAL_END = DealEnded(
    deal_no=1,
    landlord=0,
    winner="farmers",
    hands=[[0, 1, 52], [], [53, 51]],
    score=_SCORE,
    totals=[-96, 48, 48],
)
_TABLE = TableView(
    viewer_seat=1,
    phase="playing",
    deal_no=2,
    deals_total=3,
    hand=[0, 5, 9, 13, 22, 31, 40, 47, 50, 53],
    card_counts=[14, 10, 17],
    first_bidder=2,
    forced_bid=False,
    bids=[[2, 0], [0, 1], [1, 2]],
    landlord=1,
    base=2,
    kitty=[3, 27, 52],
    plays=[
        TablePlay(seat=1, cards=[4, 5, 6, 8, 9, 10], kind="airplane"),
        TablePlay(seat=2, cards=[12, 13, 14, 15], kind="bomb"),
    ],
    passes=[[0, 1], [1, 2]],
    last_play=TablePlay(seat=2, cards=[12, 13, 14, 15], kind="bomb"),
    passes_in_row=1,
    turn=_TURN,
    multiplier=4,
    totals=[-96, 48, 48],
    deal_scores=[[-96, 48, 48]],
    last_deal=_DEAL_END,
    ready=[False, False, False],
    bot_control=[False, False, True],
    winners=None,
    version=57,
)
_SEATS = [
    SeatView(kind="person", name="ann", connected=True, ready=True),
    SeatView(kind="bot", name="Bot 2", level="strong", connected=True),
    SeatView(kind="empty"),
]

#: One of each server message, the snapshot with a whole table.
SERVER_MESSAGES: list[BaseModel] = [
    Welcome(token="s3cr3t", player_id="p-1", name="李雷", resumed=True, room="K7Q2XW"),
    Error(code=ErrorCode.DOES_NOT_BEAT, message="444 does not beat 555", request_id=10),
    Pong(request_id=15),
    Snapshot(
        room=RoomView(
            code="K7Q2XW",
            mode="private",
            deals=3,
            seats=_SEATS,
            watchers=2,
            your_seat=1,
            creator_seat=0,
            bot_speed="fast",
            timed=True,
            version=57,
            table=_TABLE,
        )
    ),
    Snapshot(
        room=RoomView(
            code="Q1",
            mode="practice",
            deals=1,
            seats=_SEATS,
            watchers=0,
            your_seat=None,
            creator_seat=None,
            bot_speed="normal",
            timed=False,
            version=0,
            table=None,
        )
    ),
    SeatsChanged(seats=_SEATS, watchers=3),
    BotSpeedChanged(speed="instant"),
    RoomClosed(reason="everyone_left"),
    Left(),
    Queued(wait=12.5, waiting=2),
    QueueLeft(),
    RoomList(
        rooms=[
            RoomSummary(
                code="A", mode="quick", deals=3, deal_no=2, seats=["a", "b", "c"], watchers=0
            )
        ]
    ),
    DealStarted(
        deal_no=1,
        deals_total=3,
        first_bidder=0,
        forced_bid=True,
        hand=list(range(17)),
        card_counts=[17, 17, 17],
    ),
    DealStarted(
        deal_no=1, deals_total=3, first_bidder=0, forced_bid=False, hand=None, card_counts=[17] * 3
    ),
    BidMade(seat=0, bid=0, highest=0, timeout=True, version=1),
    DealVoided(voids_in_row=3),
    LandlordChosen(seat=1, base=3, kitty=[52, 53, 0], card_counts=[17, 20, 17]),
    CardsPlayed(
        seat=1,
        cards=[52, 53],
        kind="rocket",
        rank=16,
        card_counts=[17, 18, 17],
        multiplier=8,
        version=5,
    ),
    Passed(seat=2, trick_over=True, leader=1, version=7),
    _TURN,
    TurnStarted(seat=0, action="bid", may_pass=False, deadline=None, server_time=1.0, version=1),
    _DEAL_END,
    AwaitingReady(ready=[True, False, True], deadline=None, server_time=1764547200.0, version=9),
    MatchEnded(totals=[-96, 48, 48], winners=[1, 2], deal_scores=[[-96, 48, 48]]),
    SeatControl(seat=2, bot=True, reason="resume_pending", version=300),
    ChatSaid(seat=1, phrase="hurry_up"),
    RematchAsked(code="K7Q2XW", seat=2, deadline=1764547230.0, server_time=1764547200.5),
    ReviewData(
        code="K7Q2XW",
        deals=[
            ReviewDeal(
                deal_no=2,
                landlord=1,
                hands=["3 44 5", "10 10 J SJ", "2 BJ"],
                winner="farmers",
                lost_at=0,
                reach=2,
                estimated=1,
                positions=812,
                seconds=0.25,
                decisions=[
                    ReviewDecision(
                        seat=0,
                        play="3",
                        before=0.625,
                        after="landlord",
                        exact=False,
                        better=[],
                        timeout=False,
                    ),
                    ReviewDecision(
                        seat=1,
                        play="44",
                        before="landlord",
                        after="farmers",
                        exact=True,
                        better=["3", None],
                        timeout=False,
                    ),
                    ReviewDecision(
                        seat=2,
                        play=None,
                        before=None,
                        after="farmers",
                        exact=False,
                        better=[],
                        timeout=True,
                    ),
                ],
            )
        ],
    ),
    ReplayData(
        code="K7Q2XW",
        mode="private",
        deals_total=3,
        seats=["ann", "ann (2)", "easy bot 2"],
        ended="match_over",
        started_at=1764547000.0,
        ended_at=1764547200.0,
        deals=[
            ReplayDeal(
                deal_no=1,
                void=True,
                first_bidder=2,
                forced_bid=False,
                hands=[list(range(17)), list(range(17, 34)), list(range(34, 51))],
                kitty=[51, 52, 53],
                events=[BidMade(seat=2, bid=0, highest=0, version=1), DealVoided(voids_in_row=1)],
                end=None,
            ),
            ReplayDeal(
                deal_no=1,
                void=False,
                first_bidder=2,
                forced_bid=False,
                hands=[list(range(17)), list(range(17, 34)), list(range(34, 51))],
                kitty=[51, 52, 53],
                events=[
                    LandlordChosen(seat=1, base=3, kitty=[51, 52, 53], card_counts=[17, 20, 17]),
                    Passed(seat=2, trick_over=False, leader=None, timeout=True, version=6),
                ],
                end=_DEAL_END,
            ),
        ],
        result=MatchEnded(totals=[-96, 48, 48], winners=[1, 2], deal_scores=[[-96, 48, 48]]),
    ),
    History(
        entries=[
            HistoryEntry(
                code="K7Q2XW",
                mode="quick",
                ended_at=1764547200.0,
                deals=3,
                deals_total=3,
                seats=["ann", "bo", "normal bot 2"],
                your_seat=0,
                totals=[-96, 48, 48],
                result="lost",
                ended="match_over",
            )
        ]
    ),
    History(entries=[]),
    Profile(
        player_id="p0123456789abcdef",
        name="ann",
        modes=[ModeRecord(mode="quick", played=12, won=7)],
        landlord_deals=10,
        landlord_won=6,
        farmer_deals=26,
        farmer_won=13,
        points_won=140,
        points_lost=90,
        springs=2,
        bombs=5,
        rockets=1,
        best=None,
        matches=[],
        offset=0,
        total=0,
        rating=RatingView(
            points=1500, provisional=False, tier="gold", rating=6.27, mu=24.9, sigma=6.21, matches=4
        ),
        rating_history=[1500, 1562, 1541],
    ),
    PublicProfile(
        tag="3f2a9c",
        name="王",
        rating=RatingView(
            points=1612,
            provisional=True,
            tier="platinum",
            rating=9.1,
            mu=27.8,
            sigma=6.2,
            matches=5,
        ),
        rating_history=[1500, 1612],
        modes=[ModeRecord(mode="quick", played=5, won=3)],
        landlord_deals=6,
        landlord_won=4,
        farmer_deals=9,
        farmer_won=5,
    ),
    PlayerKeyIssued(player_key="p0123456789abcdef.k3y"),
    RatingChanged(
        code="K7Q2XW",
        before=RatingView(
            points=1500, provisional=False, tier="gold", rating=0.0, mu=25.0, sigma=8.33, matches=0
        ),
        after=RatingView(
            points=1500,
            provisional=False,
            tier="gold",
            rating=2.41,
            mu=27.87,
            sigma=8.49,
            matches=1,
        ),
    ),
    Leaderboard(
        top=[
            LadderLine(
                rank=1,
                name="王",
                rating=RatingView(
                    points=1500,
                    provisional=False,
                    tier="gold",
                    rating=31.5,
                    mu=37.8,
                    sigma=2.1,
                    matches=40,
                ),
                tag="0a1b2c",
            )
        ],
        ranked=1,
        min_matches=10,
        you=LadderLine(
            rank=None,
            name="ann",
            rating=RatingView(
                points=1500,
                provisional=False,
                tier="gold",
                rating=-3.25,
                mu=20.0,
                sigma=7.75,
                matches=3,
            ),
        ),
    ),
    Leaderboard(top=[], ranked=0, min_matches=10, you=None),
    Paused(code="K7Q2XW", since=1764547200.5),
    Resumed(code="K7Q2XW"),
    PuzzleData(
        puzzle_id="0123456789ab",
        position=PuzzlePosition(
            hands=[[3, 3, 9, 14], [5, 6], [7, 7, 16, 17]], turn=0, to_beat=None, by=None
        ),
        side="landlord",
        min_plays=3,
        rating=1620,
        your_rating=1500,
        daily=True,
        own=True,
    ),
    PuzzleReply(
        puzzle_id="0123456789ab",
        step=1,
        moves=[PuzzlePlay(seat=0, ranks=[3, 3]), PuzzlePlay(seat=1, ranks=None)],
        position=PuzzlePosition(
            hands=[[9, 14], [5, 6], [7, 7, 16, 17]], turn=2, to_beat=[3, 3], by=0
        ),
        result="going",
    ),
    PuzzleReply(
        puzzle_id="0123456789ab",
        step=2,
        moves=[PuzzlePlay(seat=0, ranks=[9])],
        position=None,
        result="failed",
        line=[PuzzlePlay(seat=0, ranks=[14]), PuzzlePlay(seat=1, ranks=None)],
        rating=PuzzleRatingChange(before=1500, after=1462, puzzle_before=1620, puzzle_after=1641),
    ),
    Profile(
        player_id="p0123456789abcdef",
        name="ann",
        modes=[],
        landlord_deals=0,
        landlord_won=0,
        farmer_deals=0,
        farmer_won=0,
        points_won=0,
        points_lost=0,
        springs=0,
        bombs=0,
        rockets=0,
        best=None,
        matches=[],
        offset=0,
        total=0,
        rating=None,
        puzzles=PuzzleRecord(tried=4, solved=3, rating=1566, turning_points_week=2),
    ),
]


def type_of(message: BaseModel) -> str:
    return str(message.model_dump()["type"])


def packed(obj: Any) -> str:
    return bytes(msgpack.packb(obj, use_bin_type=True)).hex()


#: Bad server frames: (what, frame for the driver, with its size limit if any).
BAD_FRAMES: list[tuple[str, dict[str, Any]]] = [
    ("a text frame", {"text": '{"type": "pong"}'}),
    ("no msgpack at all", {"hex": "c1"}),
    ("cut short", {"hex": packed({"type": "pong", "request_id": 1})[:-2]}),
    ("two values", {"hex": packed({"type": "left"}) + packed(1)}),
    ("an array", {"hex": packed(["type", "pong"])}),
    ("a string", {"hex": packed("pong")}),
    ("nil", {"hex": packed(None)}),
    ("an int key", {"hex": packed({1: "x", "type": "left"})}),
    ("no type", {"hex": packed({"id": 4})}),
    ("a number type", {"hex": packed({"type": 3, "id": 5})}),
    ("an unknown type, with an id", {"hex": packed({"type": "hello", "id": 7})}),
    ("an unknown type, bad id", {"hex": packed({"type": "nope", "id": -1})}),
    ("too large", {"hex": packed({"type": "pong", "request_id": 1}), "max_size": 4}),
]


def test_int_key_case_is_really_an_int_key() -> None:
    with pytest.raises(ValueError):
        msgpack.unpackb(bytes.fromhex(dict(BAD_FRAMES)["an int key"]["hex"]), strict_map_key=True)


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    payload = {
        "client": [m.model_dump(mode="json") for m in CLIENT_MESSAGES]
        + [
            {"type": type_of(m), **m.model_dump(mode="json", exclude_defaults=True)}
            for m in CLIENT_MESSAGES
        ],
        "server": [
            {"hex": encode(m).hex(), "slice": i % 2 == 1} for i, m in enumerate(SERVER_MESSAGES)
        ],
        "bad": [{**frame, "max_size": frame.get("max_size")} for _, frame in BAD_FRAMES],
    }
    result: dict[str, Any] = node_json(
        "js_codec_driver.mjs", payload, tmp_path_factory.mktemp("codec")
    )
    return result


def test_both_codecs_know_the_same_message_types(answers: dict[str, Any]) -> None:
    assert sorted(answers["types"]["to_server"]) == sorted(_TYPES["to_server"])
    assert sorted(answers["types"]["to_client"]) == sorted(_TYPES["to_client"])


def test_the_samples_hold_every_message_type() -> None:
    assert {type_of(m) for m in CLIENT_MESSAGES} == _TYPES["to_server"]
    assert {type_of(m) for m in SERVER_MESSAGES} == _TYPES["to_client"]


def test_every_client_message_encoded_in_js_decodes_in_python_to_the_same_model(
    answers: dict[str, Any],
) -> None:
    n = len(CLIENT_MESSAGES)
    full, minimal = answers["encoded"][:n], answers["encoded"][n:]
    for message, frame in zip(CLIENT_MESSAGES, full, strict=True):
        assert decode(bytes.fromhex(frame)) == message
    for message, frame in zip(CLIENT_MESSAGES, minimal, strict=True):
        # only the fields away from their defaults were sent: the server fills in the rest
        assert decode(bytes.fromhex(frame)) == message


def test_a_client_message_is_the_same_bytes_from_either_codec(answers: dict[str, Any]) -> None:
    for message, frame in zip(CLIENT_MESSAGES, answers["encoded"], strict=False):
        assert frame == encode(message).hex(), message


def test_fields_left_undefined_in_js_take_their_defaults(answers: dict[str, Any]) -> None:
    assert [decode(bytes.fromhex(f)) for f in answers["literals"]] == JS_LITERALS


def test_every_server_message_encoded_in_python_decodes_in_js_to_the_same_data(
    answers: dict[str, Any],
) -> None:
    for message, data in zip(SERVER_MESSAGES, answers["decoded"], strict=True):
        assert data == message.model_dump(mode="json")
        assert decode_server(encode(message)) == message


def _refusal(frame: dict[str, Any]) -> dict[str, Any] | None:
    data: bytes | str = frame["text"] if "text" in frame else bytes.fromhex(frame["hex"])
    try:
        decode_server(data, frame.get("max_size") or 1 << 20)
    except ProtocolError as exc:
        return {"code": exc.code.value, "request_id": exc.request_id}
    return None


def test_a_bad_frame_is_refused_with_the_same_code_and_request_id(
    answers: dict[str, Any],
) -> None:
    expected = [_refusal(frame) for _, frame in BAD_FRAMES]
    assert None not in expected
    for (what, _), want, got in zip(BAD_FRAMES, expected, answers["refused"], strict=True):
        assert got == want, what
