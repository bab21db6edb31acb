"""The lobby: what a person asks outside a room's table (sessions, rooms, the quick-match
queue, watching, rematches, replays, history), each request family a handler."""
