"""Import preview: what an import would do, computed before anything is written.

``memdesk import FILE --dry-run`` and the desk's File → Import show it: how many
memories would be added, how many would duplicate what the store holds or each other
(the duplicates queue's own clustering and threshold), how many would contradict what
the store holds (the contradictions queue's own grouping), how many the poisoning guard
flags and how many of those are secrets (the guard's own screening call), and which
items are bad.  The operator then imports all, imports without the duplicates, or
cancels (docs/import-export.md, "Preview"; docs/guarantees.md).

- :mod:`report`: :class:`ImportPreview`, what a preview found (a summary and JSON);
- :mod:`scratch`: the temporary file a preview keeps the file's items in, so a 200 MB
  import is previewed in bounded memory (never the store);
- :mod:`verdicts`: the guard's screening of one item, and which verdicts are secrets;
- :mod:`reading`: the streaming pass (parse, validate, screen, embed in batches);
- :mod:`comparing`: the per-user pass against the store (duplicates, contradictions);
- :mod:`service`: :func:`preview_import` and :func:`import_without_duplicates`.

The preview only reads the store (short read transactions, one batch or one user at a
time); it sits above transfer, curation and the guard, whose public calls it makes.
"""

from memdesk.core.preview.report import ImportPreview
from memdesk.core.preview.service import import_without_duplicates, preview_import

__all__ = ["ImportPreview", "import_without_duplicates", "preview_import"]
