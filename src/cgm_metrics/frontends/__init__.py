"""The front ends, display only: the cgm command (cli, commands/), the Space (space/) and the evaluate modules' glue (hub)."""
