"""OCR in a sync: which files wait for it (text pass) and the OCR step that gives them text."""
