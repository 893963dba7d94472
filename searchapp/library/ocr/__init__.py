"""OCR: which files wait for it (text_pass), the sync's step that gives them text (step), and the "(OCR)" marks
a search puts on hits whose text OCR read (marks)."""
