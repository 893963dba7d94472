"""Members of containers (archives, mail attachments) on disk: a member's private copy (for an extractor, the OCR
step, Open) in the temporary folders temp_copies.py owns. Their sync is the words pass's (sync/members.py)."""
