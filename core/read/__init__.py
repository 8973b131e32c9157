"""The read path: hybrid retrieval with dispositional injection, decay and maintenance.

``retriever`` orchestrates ``channels`` (full-text, vector, entity graph and seed
002's candidate pools), ``fusion`` (RRF, score, relevance floor, week diversity),
``injection`` (active preferences with fair rotation) and ``recorder`` (the
``retrievals`` table, off the hot path).  ``decay`` and ``maintain`` keep scores and
correction chains current; ``evaluation`` runs the dispositional-memory design's fixtures.
"""
