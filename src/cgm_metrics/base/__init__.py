"""The ground of the package: errors, plugins (entry points), the compiled library, loading, formatting and file input/output. It imports nothing of the layers above."""
