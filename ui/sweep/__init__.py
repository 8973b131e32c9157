"""The revaluation sweep: start page, review page, report, and what the sweeps have taught
the desk."""
