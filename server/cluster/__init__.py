"""Running rooms across server processes: leases, routing a change to the room's process,
the typed messages between processes, and delivering to players connected elsewhere."""
