"""Bottom layer: configuration, errors, progress/cancel, shared types, paths. Imports nothing else of searchapp."""
