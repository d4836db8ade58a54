"""The bottom layer, shared by every app (no models): errors, input cleaning, request
limits (throttles, middleware)."""
