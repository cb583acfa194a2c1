"""Files written back as their own kind, values replaced in place: ``veilbot redact --out``.

Two phases, so the untrusted file is only ever parsed in confined reader processes
(``bot.files.confine``): a child lists the file's text units (``units.listed``: each
paragraph, cell, field, comment, author and document property on its own, with its column
header as context), the service redacts each through the given redaction, and a child writes
the output from the original bytes and the placeholders of each unit (``units.written``).
``csvtable`` (CSV and TSV fields), ``xmlparts`` (docx and pptx, every XML part of the zip),
``workbook`` (xlsx, through openpyxl), ``pdf`` (pages drawn afresh with the values painted
over, through pypdfium2) and ``splice`` (a placeholder across split runs) are the kinds;
``redacted`` is the service's side.
"""
