"""Files attached to a message: the kind decided from the bytes, limits, text through the guardrail.

``kinds`` sniffs a file's kind from its first bytes (never from its name), ``limits`` holds the
size, count and page limits and the answers past them, ``text`` decodes text-like files,
``ocr`` reads an image's words and boxes with Tesseract, ``images`` paints the words the
guardrail found and blurs faces (the ``files`` extra and Debian's tesseract-ocr), and
``intake`` redacts what a file says with the thread's vault, like message text, into the text
blocks the model receives and the facts the audit records (kind, size, pages, entity counts).
"""
