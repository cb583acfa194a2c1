"""Files attached to a message: the kind decided from the bytes, limits, text through the guardrail.

``kinds`` sniffs a file's kind from its first bytes (never from its name), ``limits`` holds the
size, count and page limits and the answers past them, ``extract`` dispatches by kind to
``text`` (text-like files) or ``documents`` (PDF; ``office`` for docx, xlsx, pptx), which fill a
``budget`` of text that stops at the limit; ``ocr`` reads an image's words and boxes with
Tesseract and ``images`` paints the words the guardrail found and blurs faces (Debian's
tesseract-ocr). ``intake`` redacts what a file says with the thread's vault, like message text,
into the text blocks the model receives and the facts the audit records (kind, size, pages,
entity counts); ``reader`` is the turn's ``FileReader``.
"""
