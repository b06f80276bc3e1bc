"""The machinery that runs metrics on corpora: the Metric contract, the registry, the per-item runner, Ray, and the one pipeline (evaluation)."""
