"""Keeping the index in step with the folders: scan and words pass, meaning pass, roots, live watch."""
