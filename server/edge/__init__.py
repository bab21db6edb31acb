"""The connection edge: sockets, websocket frames, HTTP answers, admission and flood
control, and the hub that writes to connections."""
