"""Typed errors for every way a command to the game can be wrong.

Each carries an ``ErrorCode`` for the wire and a message for the sender. A refused command
changes nothing. Messages name only what the sender already knows (their own turn, their own
cards), never a hidden card.
"""

from __future__ import annotations

from protocol.errors import ErrorCode, Refusal


class GameError(Refusal):
    """A command the game refuses; ``code`` (of its class) says why in a word."""

    code: ErrorCode = ErrorCode.WRONG_PHASE

    def __init__(self, message: str) -> None:
        super().__init__(type(self).code, message)


class WrongPhase(GameError):
    code = ErrorCode.WRONG_PHASE


class NotYourTurn(GameError):
    code = ErrorCode.NOT_YOUR_TURN


class BidOutOfRange(GameError):
    code = ErrorCode.BID_OUT_OF_RANGE


class BidNotHigher(GameError):
    code = ErrorCode.BID_NOT_HIGHER


class MustBid(GameError):
    code = ErrorCode.MUST_BID


class LeaderMustPlay(GameError):
    code = ErrorCode.LEADER_MUST_PLAY


class CardsNotHeld(GameError):
    code = ErrorCode.CARDS_NOT_HELD


class NotAPlay(GameError):
    code = ErrorCode.NOT_A_PLAY


class DoesNotBeat(GameError):
    code = ErrorCode.DOES_NOT_BEAT


class ClockRunning(GameError):
    code = ErrorCode.CLOCK_RUNNING


class NoClock(GameError):
    code = ErrorCode.NO_CLOCK


class AlreadyReady(GameError):
    code = ErrorCode.ALREADY_READY


class NotTakenOver(GameError):
    code = ErrorCode.NOT_TAKEN_OVER


class MatchOver(GameError):
    code = ErrorCode.MATCH_OVER


class BotHoldsSeat(GameError):
    code = ErrorCode.NOT_ALLOWED


class Stale(GameError):
    code = ErrorCode.STALE
