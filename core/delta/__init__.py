"""Delta memory (the delta-memory design): weighted memory sets, diffs, attribution, health,
governance.

Modules: ``contracts`` (the DTOs), ``compose`` (stage 1: build a memory set), ``diff``
(stage 2: deltas and attribution), ``health`` (risk), ``decision`` (governance),
``bias`` (search bias), ``sources`` (the store as the ``database`` source), ``models``
(tables), ``snapshots``/``config``/``audit`` (persistence), ``service`` (DeltaMemory,
the API the CLI and GUI use) and ``demo`` (demo snapshot series).

Importing this package registers the delta tables on the shared metadata.
"""

from memdesk.core.delta import models as models
