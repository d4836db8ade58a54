"""The bottom layer: errors and input cleaning that every app shares (no models)."""
