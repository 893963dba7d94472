"""OCR: the sync's step that gives the files waiting for it their text (step; which files wait is the words
pass's call: sync/ocr_waits.py), and the "(OCR)" marks a search puts on hits whose text OCR read (marks). Above
sync/: the façade hands the step to a sync (sync/contract.OcrStep)."""
