"""Ingest: find files (scan), turn them into text (extractors), cut the text into passages (chunking)."""
