"""Members of containers (archives, mail attachments): their sync, and a member's private copy on disk (for an
extractor, the OCR step, Open) in the temporary folders temp_copies.py owns."""
