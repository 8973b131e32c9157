"""The poisoning guard (issue 12): agents' writes that read as instructions wait for review.

- :mod:`rules`: the rules, as data (id, description, pattern or predicate, reason);
- :mod:`screen`: evaluates them on the units a job produced, inside the worker's
  write transaction, and quarantines the ones that match (with the reasons);
- :mod:`origin`: the immutable agent provenance of a job (client, session, source)
  and the curated-memory check agents are held to;
- :mod:`curated`: who may supersede what: a correction is linked as soon as it is
  written, and one that would supersede a curated memory (or a crowd) is held instead;
- :mod:`review`: the operator's inbox: list, approve, edit, reject (audited, undoable).
"""

# The write path's interface to the guard's supersede rules: the worker links (or
# holds) a job's corrections through this name, not through the module.
from memdesk.core.guard.curated import link_new_corrections_in

__all__ = ["link_new_corrections_in"]
