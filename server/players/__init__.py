"""The lasting player: who a person is across sessions, rooms, restarts and devices; their
record, rating and place on the ladder."""
