"""The metrics' mathematics: one module or package per metric (each a `Metric`)."""
