"""Analysis of finished deals with the exact solver (issue 33): the review of a deal
(``review``) and the puzzles a reviewed deal holds (``puzzles``). Pure: no I/O; the lobby
runs them off the event loop and keeps what they give."""
