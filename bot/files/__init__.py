"""Files attached to a message: the kind decided from the bytes, limits, text through the guardrail.

``kinds`` sniffs a file's kind from its first bytes (never from its name; an old .doc, .xls or
.ppt is told apart to say what to save it as), ``limits`` holds the limits and caps (size,
count, pages, text, cells, paragraphs, shapes, elements, pixels, memory, time) and the answers
past them, ``extract`` dispatches by kind to ``text`` (text-like files) or ``documents`` (PDF,
whose scanned pages come out as pictures; ``word`` for docx with its footnotes, comments and
text boxes, ``office`` for xlsx and pptx, ``annotations`` for their comments; ``structure``
counts an office file's XML first), which fill a text allowance (``extracted``) that stops at
the limit; ``ocr`` reads an image's words and boxes with Tesseract (Debian's tesseract-ocr)
and says what it could not read, ``faces`` finds faces and hides their heads, and ``images``
paints the words the guardrail found and what OCR could not read. All of that runs in reader
processes under a memory and a CPU limit (``confine``), never in the service. ``content``
redacts one file's text and pictures, in order, with a given redaction (the turn's, or
``veilbot redact``'s); ``intake`` does so for a message's files with the thread's vault, into
the text blocks the model receives and the facts the audit records (kind, size, pages, entity
counts); ``reader`` is the turn's ``FileReader``. ``out`` writes a file back as its own kind,
values replaced in place (``veilbot redact --out``), in two reader processes around the
guardrail.
"""
