"""Bots: policies that see only what their seat may know (a ``TableView``) and answer with the
same requests a person sends."""

from __future__ import annotations

from server.bots.base import BotPolicy, decide, policy_for

__all__ = ["BotPolicy", "decide", "policy_for"]
