"""ingest/extractors"""
