"""Keeping the index in step with the folders: scan and words pass (with containers' members, members.py, and the
files that wait for OCR, ocr_waits.py), meaning pass, roots, live watch; what a sync is handed and returns
(contract.py), what it leaves in the meta table for status (meta_keys.py)."""
