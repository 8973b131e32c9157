"""How many values an attribute holds at once: the one declaration the extractor and the
contradictions queue both read.

Most attributes have one true value at a time (where a person lives, which editor they
prefer): two different values are a contradiction, and a correction supersedes every
older value.  Some are held several at once: a person has two allergies, speaks three
languages, has two children.  Two values of such an attribute are two facts, never a
contradiction, and "Actually, I'm allergic to cats too" must not drop a peanut allergy.
"""

from __future__ import annotations

# Attributes a person holds several values of at once.  The extractor's own names
# (relation, likes, …) and the ones agents commonly write (has_child, has_pet, …).
MULTI_VALUED: frozenset[str] = frozenset((
    "allergic_to", "intolerant_to", "condition", "speaks", "relation", "likes", "dislikes",
    "avoids_topic", "plays", "has_child", "has_pet", "has_sibling", "hobby", "hobbies",
    "interest", "interests", "member_of", "owns", "visited", "knows",
))


def multi_valued(attribute: str | None) -> bool:
    """Whether ``attribute`` holds several values at once (case and spacing ignored)."""
    if not attribute:
        return False
    return "_".join(attribute.split()).casefold() in MULTI_VALUED
