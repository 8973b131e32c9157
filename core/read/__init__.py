"""The read path: hybrid retrieval (full-text, vector, entity graph), dispositional
injection of preferences, decay and maintenance, and the retrieval evaluation."""
