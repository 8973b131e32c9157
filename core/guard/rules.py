"""The poisoning guard's rules, as data: one row per rule, each with the reason an operator
sees on every item it holds.

A memory is a statement about the user or the world.  What an attacker plants reads
differently: it is addressed to the model ("ignore previous instructions", "you must"),
prescribes what future answers say ("always reply with …"), carries a link or tool-call
/ markup syntax for the model to act on, or contradicts what an operator has curated.

Telling that apart from a user's real preference ("always reply in French") rests on
three questions, each one a column of the table:

- **who is addressed**: a pattern matches text aimed at the model, not facts about
  the user; ``unless`` removes a match that only looks like one (a user's correction
  of *their own* earlier instruction; "reply with bullet points" is a format);
- **whose preference it is**: "reply *in* French" asks for a manner of answering,
  "reply *with* X" dictates content, so only the latter is a payload rule;
- **whether it arrives as the user's statement**: ``user_exempt`` is checked only when
  the turn's source is the user's own words; the same sentence in a tool result, a web
  page or the assistant's output is somebody else speaking to the model, and is held.

``sources`` limits a rule to turns from some sources: a directive about how to answer
is the user's preference only when the user said it.

A rule has a ``pattern`` (a regular expression, case-insensitive, matched per sentence),
a ``predicate`` (the name of a check in :mod:`memdesk.core.guard.screen` that needs
the store, e.g. the contradiction with curated memories) or a ``check`` (the name of a
check of what :mod:`memdesk.core.guard.reveal` found, e.g. invisible characters).

Patterns judge the text as given and every view of it that
:func:`memdesk.core.guard.reveal.reveal` makes: hidden characters removed or decoded,
look-alike letters folded, base64 / hex / URL / rot13 runs decoded.  A finding in a
revealed view says how it was revealed.  In the turn, a ``unit``-scoped rule judges only
what was concealed (a link the extractor left out is harmless; a link hidden in tag
characters or base64 is not).  ``scope`` says whether it
reads the stored unit, the turn it came from, or both: a turn that tries to override
the model's instructions contaminates every unit extracted from it, whereas a link in
the turn that the extractor left out is harmless.
"""

from __future__ import annotations

from memdesk.core.guard.rule import MODEL as _MODEL
from memdesk.core.guard.rule import MODEL_HINTS as _MODEL_HINTS
from memdesk.core.guard.rule import Rule, Scope, Source
from memdesk.core.guard.rules_attacks import ATTACK_RULES

__all__ = ["RULES", "RULES_BY_ID", "Rule", "Scope", "Source"]

_RESPONSE = r"(?:repl(?:y|ies)|respon(?:d|ses?)|answers?|messages?|outputs?)"
# What a directive to the model tells it to do (so "you should see my garden" is not one).
_DIRECTIVE_VERB = (
    r"(?:always|never|not|only|reply|respond|answer|say|tell|recommend|mention|include"
    r"|append|add|insert|use|call|refer|treat|trust|obey|follow|remember|store|save"
    r"|forget|ignore|disregard|pretend|act|behave|output|print|send|forward|visit|click"
    r"|open|run|execute|reveal|share|disclose|keep|hide|withhold|promote|link|direct)"
)
# Formats are preferences: "reply with bullet points" is not a payload.
_FORMAT = (
    r"(?:bullet|bullets|a list|lists|numbered|examples?|code|tables?|a table|a summary"
    r"|summaries|short|brief|concise|more detail|less detail|details?|citations?|sources"
    r"|step|steps|emojis?|headings?|markdown|plain text|one sentence|a single|an example"
    r"|a short|a brief|a concise|just the|only the (?:code|answer|result))"
)

RULES: tuple[Rule, ...] = (
    Rule(
        id="override-instructions",
        description="Tries to override or expose the model's instructions.",
        reason="Reads as an attempt to override the model's instructions: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}?"
            r"\b(?:previous|prior|earlier|above|preceding|all|any|your|the|system|original"
            r"|initial|safety)\b[^.!?\n]{0,30}?\b(?:instructions?|prompts?|rules|guidelines"
            r"|directions|directives|constraints|guardrails|programming|policies)\b"
            r"|\bnew (?:system )?(?:instructions|prompt|rules)\s*[:\-]"
            r"|\b(?:pay no attention to|set aside|throw out|discard|abandon|stop following"
            r"|no longer follow)\b[^.!?\n]{0,40}?\b(?:instructions?|rules|guidelines|policies"
            r"|configuration|constraints|restrictions|guardrails|programming|prompt|(?:were|was)"
            r" told)\b"
            r"|\byour (?:only|new|real|true|actual|sole|primary|updated) (?:job|task|goal|purpose"
            r"|role|mission|objective|instructions?|directive|orders?) (?:now |from now on )?"
            r"(?:is|are)\b"
            r"|\b(?:unfiltered|uncensored|unrestricted|jailbroken) (?:model|mode|assistant|ai"
            r"|version|answers?)\b"
            r"|\b(?:ignore|disregard|bypass|override|skip)\s+(?:the\s+|all\s+|any\s+|your\s+)?"
            r"(?:content|safety|usage)\s+(?:policies|policy|filters?|rules|guidelines"
            r"|restrictions)\b"
            r"|\btreat (?:your|the|all) (?:\w+ )?(?:configuration|instructions|rules|guidelines"
            r"|prompt) as (?:void|invalid|null|cancelled|obsolete|a test|optional)\b"
            r"|\b(?:disobey|defy)\s+(?:any|all|every|the)\b"
            r"|\b(?:take|accept) orders only from\b"
            r"|\b(?:reveal|print|show|repeat|output|leak|dump)\b[^.!?\n]{0,20}\b(?:your|the)"
            r" (?:system prompt|hidden instructions|instructions)\b"
            r"|\b(?:developer|god|jailbreak|dan|unrestricted) mode\b"
            r"|\byou are (?:now|no longer)\b"
        ),
        # The user taking back *their own* earlier instruction is a correction.
        unless=r"\b(?:ignore|disregard|forget|skip)\s+(?:my|what i (?:said|wrote|asked))\b",
        hint=("attention", "aside", "throw out", "discard", "abandon", "follow", "treat", "your",
              "unfiltered", "uncensored", "unrestricted", "jailbroken", "disobey", "defy",
              "orders only", "ignore", "disregard", "forget", "override", "bypass", "skip",
              "new", "reveal", "print", "show", "repeat", "output", "leak", "dump", "mode",
              "you are"),
    ),
    Rule(
        id="prescribed-content",
        description="Dictates what future answers must contain (a payload), not how "
                    "the user likes to be answered.",
        reason="Dictates the content of future answers: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            rf"\b(?:{_RESPONSE}|repl(?:y|ying)|respond(?:ing)?|answer(?:ing)?|end|start|begin"
            r"|sign(?: off)?|finish|close|prefix|suffix)\b[^.!?\n]{0,30}?\bwith\s+"
            rf"(?!{_FORMAT}\b)\S+"
            r"|\b(?:include|append|insert|add|mention|recommend|promote|advertise|link to"
            r"|plug)\b[^.!?\n]{0,60}?\b(?:in|to|at the end of|at the start of)?\s*"
            rf"(?:every|each|all|any|your)\s+{_RESPONSE}"
            r"|\b(?:always|never|must|should)\s+(?:say|tell (?:the )?users?)\b"
        ),
        hint=("with", "repl", "respon", "answer", "message", "output", "say", "tell"),
    ),
    Rule(
        id="addressed-to-model",
        description="Speaks to the model in the second person (or names it) with a "
                    "directive, instead of stating something about the user.",
        reason="Is addressed to the model as an instruction: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\byou\s+(?:must|should|shall|will|need to|have to|are (?:required|instructed"
            r"|supposed|expected|obliged|ordered) to|are not allowed to|may not|must not"
            rf"|cannot|can't)\s+(?:\w+\s+){{0,2}}?{_DIRECTIVE_VERB}\b"
            rf"|\b(?:the\s+)?{_MODEL}\s+(?:must|should|shall|will|needs to|has to"
            rf"|is (?:required|instructed|supposed) to)\s+(?:\w+\s+){{0,2}}?{_DIRECTIVE_VERB}\b"
            r"|\bfrom now on\b"
            r"|\b(?:always|never)\s+(?:give|share|provide|quote|read out|hand out|mention"
            r"|recommend|suggest|promote)\b[^.!?\n]{0,30}?\b(?:to (?:anyone|everyone|users"
            r"|whoever)|when(?:ever)? (?:asked|they ask|someone asks)|on request)\b"
            r"|\b(?:do not|don't|never)\s+(?:tell|inform|reveal to|mention to|let)\s+"
            r"(?:the user|users|anyone|them|him|her)\b"
        ),
        # Said by the user: their own wish about how they are answered, or a sentence
        # about themselves ("you should know I'm vegetarian").
        user_exempt=(
            r"\b(?:i|i'm|i am|i'd|my|me|mine)\b"
            rf"|\b(?:{_RESPONSE}|repl(?:y|ying)|respond|answer|write|speak|talk|explain)\w*\b"
            r"[^.!?\n]{0,25}?\b(?:in|using)\s+\w+"
            r"|\b(?:briefly|concisely|formally|informally|politely|casually|in detail|slowly)\b"
        ),
        hint=("you", *_MODEL_HINTS, "from now on", "always", "never", "do not", "don't"),
    ),
    Rule(
        id="directive-not-from-user",
        description="Tells the model how to answer, but the turn was not the user's own "
                    "words (a tool result, a document, the assistant's output).",
        reason="Tells the model how to answer, yet did not come from the user: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:always|never|please|from now on|going forward)\b[^.!?\n]{0,40}?\b(?:reply"
            r"|respond|answer|write|speak|talk|use|call|say|tell|recommend|mention|include)\b"
            r"|\b(?:reply|respond|answer)\w*\s+(?:in|with|using|only)\b"
            r"|\bwants the (?:assistant|model|ai) to\b"
        ),
        sources=(Source.ASSISTANT, Source.TOOL, Source.DOCUMENT),
        hint=("always", "never", "please", "from now on", "going forward", "repl", "respond",
              "answer", "wants the"),
    ),
    *ATTACK_RULES,
    Rule(
        id="link",
        description="Carries a URL (something for the model to visit, fetch or pass on).",
        reason="Carries a link: “{evidence}”.",
        scope=Scope.UNIT,
        pattern=(
            r"\b(?:https?|ftp|file|data|javascript|vbscript)\s*:\s*\S+"
            r"|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+\S*"
            r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?/\S*"
        ),
        hint=(":", "www.", "/"),
    ),
    Rule(
        id="markup",
        description="Carries tool-call, chat-template or HTML/Markdown markup that a "
                    "model or a renderer would act on.",
        reason="Carries tool-call or markup syntax: “{evidence}”.",
        scope=Scope.UNIT,
        pattern=(
            r"<\s*/?\s*(?:script|iframe|img|a|object|embed|style|link|meta|form|svg|system"
            r"|user|assistant|tool|tools|tool_call|tool_use|tool_result|function_call"
            r"|function|functions|instructions?|im_start|im_end|invoke|parameter)\b[^>]{0,200}>"
            r"|<\|[a-z_]{2,30}\|>"
            r"|\[/?INST\]|<</?SYS>>"
            r"|\{\s*\"(?:name|tool|tool_name|function|arguments|action|tool_calls)\"\s*:"
            r"|!\[[^\]]{0,200}\]\([^)]{0,500}\)"
            r"|\[[^\]]{1,200}\]\(\s*[a-z]+:[^)]{0,500}\)"
            r"|```"
            r"|\{\{[^}]{0,200}\}\}|\{%[^%]{0,200}%\}"
        ),
    ),
    Rule(
        id="role-marker",
        description="Imitates a conversation transcript's role labels (system, assistant, "
                    "tool), to pass its text off as the model's own context.",
        reason="Imitates a transcript role label: “{evidence}”.",
        scope=Scope.UNIT,
        # At the start of a line, or of a sentence that follows another on the same line.
        pattern=(r"(?:^|\n|(?<=[.!?])\s)\s*#{0,3}\s*(?:system|assistant|developer|tool"
                 r"|instruction)s?\s*:"),
        hint=(":",),
    ),
    Rule(
        id="hidden-text",
        description="Carries characters a reader cannot see (Unicode tag characters, "
                    "zero-width or bidirectional controls, variation selectors outside "
                    "emoji): the operator sees what they hide.",
        reason="Carries invisible characters: {evidence}.",
        scope=Scope.BOTH,
        check="hidden_text",
    ),
    Rule(
        id="contradicts-curated",
        description="Contradicts a memory an operator curated (same user, entity and "
                    "attribute, another value); agents may not overrule the operator.",
        reason="Contradicts a memory an operator curated: {evidence}.",
        scope=Scope.UNIT,
        predicate="contradicts_curated",
    ),
)

RULES_BY_ID = {r.id: r for r in RULES}
if len(RULES_BY_ID) != len(RULES):  # pragma: no cover - a typo in the table above
    raise RuntimeError("guard rule ids must be unique")
