"""Is the agent asking a question, or asking for something to be done?

"What do I do for a living?" wants a fact; "Find a place for dinner tonight" wants
the user's *preferences* (vegetarian restaurants), and no fact answers it.  MiniLM puts
such a preference a few robust deviations above the user's other memories, well under
a result's floor, so before this a task prompt got its relevant preference only as an
injected one, and its results were whatever facts happened to share its topic
("We had dinner at Lucia's on Friday.").  For a task prompt the retriever therefore
ranks the preferences relevant to it first among the results (retriever.py).

The test is about the sentence's form, not its topic, and errs towards "not a task":
a task starts with one of the common request verbs ("Book me a massage", "Find a
place …", "Suggest …"), states a need ("I need a gift for my mother", "I'd like …",
"help me …", "let's …"), or is a request put as a question ("Can you find me a quiet
café?").  Questions and keyword queries ("kayak club") are not tasks.  A misread costs
little: a task read as a question gets its relevant preferences injected as before; a
question read as a task gets at most ``task_preferences`` preferences that passed the
injection bar ahead of its answers.
"""

from __future__ import annotations

import re

# The request verbs an agent is most often asked to act with (base form, sentence-initial).
_VERBS = (
    "add arrange ask book bring buy call cancel check choose compare cook create design "
    "draft email find fix get give help hire invite list look make message note order "
    "organise organize pack pick plan play post prepare put recommend remind rent "
    "reply reschedule reserve schedule search select send set show sign sort suggest "
    "summarise summarize text translate update write")
_VERB = r"(?:" + "|".join(_VERBS.split()) + r")\b"
# A request put as a question: "Can you book a table?" (not "Can you remember …?").
_REQUEST = re.compile(
    r"^(?:can|could|would|will) you (?:please )?(?!remember|recall|tell me)" + _VERB,
    re.IGNORECASE)
# An imperative ("Book me a massage"; not "list of …", "check-in …") or a stated need.
_TASK = re.compile(
    r"^(?:" + _VERB + r"(?!\s*(?:\?|$|of\b|-))"
    r"|i(?: really)? (?:need|want|would like|'d like|d like)\b"
    r"|(?:let's|lets) \w)",
    re.IGNORECASE)
_LEAD = re.compile(r"^[\s\"'“‘(\[]*(?:(?:hey|hi|ok|okay|so|please|pls|now)\b[\s,!.]*)*",
                   re.IGNORECASE)


def is_task(query: str) -> bool:
    """True when ``query`` asks for something to be done rather than asks about something."""
    text = _LEAD.sub("", query.strip()[:500]).strip()
    if not text:
        return False
    if text.rstrip(" .!\"'”’)").endswith("?"):
        # An imperative is not asked ("Note taking app?" is a question about a noun);
        # a request put as a question is ("Can you book a table?").
        return _REQUEST.match(text) is not None
    return _REQUEST.match(text) is not None or _TASK.match(text) is not None
