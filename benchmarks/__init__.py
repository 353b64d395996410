"""Small benchmarks of the playground (run with ``python -m benchmarks.<name>``)."""
