"""The guard's rules for what an attacker plants beyond overriding instructions: sending
the user's data away, planted secrets, tool calls and commands, claimed authority, skipped
safety steps, claimed consensus of earlier sessions, and redirected records (the bridging
steps of memory-injection attacks).  Part of the table in core/guard/rules.py.
"""

from __future__ import annotations

from memdesk.core.guard.rule import MODEL as _MODEL
from memdesk.core.guard.rule import MODEL_HINTS as _MODEL_HINTS
from memdesk.core.guard.rule import Rule, Scope

# The user speaking of themselves: their habits are not orders to the model.
_FIRST_PERSON = r"\b(?:i|i'm|i've|i'll|i'd|my|me|mine|we|our|us)\b"
# A verb, not the noun ("a copy of all their documents", "their post about every …").
_SEND_VERB = (r"(?<!\ba )(?<!\bthe )(?<!\btheir )(?<!\bmy )(?:send|forward|upload|post|leak"
              r"|share|copy|transmit|relay|exfiltrate|dump|paste|read out|cc|bcc|put|embed"
              r"|insert|include|attach|append|redirect|route|sync|mirror|add"
              r"|(?:e-?)?mail(?=\s+(?:the|all|their|them|it|this|a copy|any|each|every)\b))")
_PRIVATE = (
    r"(?:passwords?|passcodes?|credentials?|logins?|login details|api keys?|keys|tokens?"
    r"|secrets?|e-?mails?|messages?|(?:chat|conversation|browsing|search) history|history"
    r"|conversations?|contacts?|files?|documents?|folders?|data|address(?:es)?|phone numbers?"
    r"|cards?(?: numbers?)?|credit cards?|bank details|iban|salary|salaries|records?|notes"
    r"|memories|location|security alerts?|alerts|invoices?|receipts?|statements?|calendar"
    r"|invites?|invitations?|photos?|pictures?|addresses|conversations|chats|orders)"
)

ATTACK_RULES: tuple[Rule, ...] = (
    Rule(
        id="exfiltration",
        description="Tells the model to send, post or copy the user's data or secrets "
                    "somewhere (an address, an outside server, whoever asks).",
        reason="Asks for the user's data to be sent somewhere: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            rf"\b{_SEND_VERB}\b[^.!?\n]{{0,40}}?\b(?:the user'?s?|users'|their|every|any|all)"
            rf"\b[^.!?\n]{{0,30}}?\b{_PRIVATE}\b"
            rf"|\b{_SEND_VERB}\b[^.!?\n]{{0,60}}?\bto\s+(?:an?\s+|the\s+)?(?:external|outside"
            r"|third[- ]party|remote|unknown)\s+(?:address|server|e-?mail|account|endpoint|site"
            r"|drive|inbox|url|number)\b"
            rf"|\b{_SEND_VERB}\b[^.!?\n]{{0,80}}?\b(?:to|at|cc|bcc)\s+[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
        ),
        # "I send all my files to my own backup" is the user describing their habits.
        user_exempt=_FIRST_PERSON,
        hint=("redirect", "route", "sync", "mirror", "add", "send", "forward", "mail", "upload",
              "post", "leak", "share", "copy", "transmit", "relay", "exfiltrate", "dump", "put",
              "embed", "insert", "include", "attach", "append", "paste", "read out", "cc"),
    ),
    Rule(
        id="secret-value",
        description="Plants a password, key, code or new payment details (a memory is "
                    "injected into prompts: a real secret there leaks, a planted one lures).",
        reason="Holds a secret or payment details: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:password|passcode|passphrase|pin|pin code|api[ _-]?key|secret(?: key)?"
            r"|(?:master|root|admin|encryption|decryption|license|licence|signing|ssh|gpg|pgp"
            r"|door|safe|alarm|gate) (?:key|code)"
            r"|(?:access|auth|authentication|bearer|session) token|token|private key|reset code"
            r"|recovery code|one-time code|otp|2fa code|security code|cvv|cvc)"
            r"\s+(?:for\s+[^.!?\n]{1,40}?\s+)?(?:is|=|:|was (?:changed|set|reset) to|has been"
            r" (?:changed|set|reset) to|now)\s*[\"'“]?(?=[^\s\"'”]*[\d!@#$%^&*_])[^\s\"'”]{4,}"
            r"|\b(?:seed|recovery|mnemonic|backup) phrase\s+(?:is|:)\s*\S+"
            r"|\bnew\s+(?:iban|account number|routing number|sort code|wallet(?: address)?"
            r"|bank (?:details|account)|payment details)\b[^.!?\n]{0,40}?\b(?:is|are|:)\s*\S+"
        ),
        hint=("pass", "pin", "api", "key", "secret", "token", "code", "otp", "cvv", "cvc",
              "phrase", "new"),
    ),
    Rule(
        id="tool-or-command",
        description="Tells the model to call a tool or function, or carries a destructive "
                    "shell/SQL command or a destructive order.",
        reason="Tells the model to run a tool or command: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:call|invoke|trigger|execute)\s+(?:the\s+)?[`'\"]?[a-z][a-z0-9]*_[a-z0-9_]+"
            r"|\b(?:call|invoke|trigger|execute|run)\s+(?:the\s+)?[\w-]+\s+(?:tool|function"
            r"|plugin|action|api|endpoint)\b"
            r"|(?:^|(?<=[.;:!?])\s+|\b(?:please|then|now|and)\s+)use (?:the|your) [\w-]+ tool\b"
            r"|\b[a-z][a-z0-9]*_[a-z0-9_]+\s*\([^)]{0,200}\)"
            r"|\brm\s+-[a-z]*[rf]|\b(?:curl|wget)\s+\S+[^|\n]{0,40}\|\s*(?:ba|z)?sh\b"
            r"|\bsudo\s+\S+|\bdrop\s+(?:table|database)\b|\bformat\s+c:|\bchmod\s+(?:-R\s+)?777"
            r"|\bmkfs\b|\bdel\s+/[sfq]\b|\b(?:shutdown|reboot|poweroff|halt)\s+-\w"
            r"|\bkill(?:all)?\s+-9\b|\bdd\s+if="
            r"|\b(?:execute|run|type|enter|paste)\s*:?\s*`[^`\n]{2,200}`"
            r"|(?:^|(?<=[.;:!?,])\s*|\b(?:and|then|please|now|must|should|will)\s+)(?:delete|erase"
            r"|wipe|destroy|purge)\s+(?:all|every|each|any|the user'?s|their)\b"
        ),
        user_exempt=_FIRST_PERSON,
        hint=("shutdown", "reboot", "poweroff", "halt", "kill", "dd", "`", "type", "enter",
              "paste", "call", "invoke", "trigger", "execute", "run", "tool", "_", "rm", "curl",
              "wget", "sudo", "drop", "format", "chmod", "mkfs", "del", "erase", "wipe",
              "destroy", "purge"),
    ),
    Rule(
        id="authority-claim",
        description="Claims to speak for the system, the developers or an administrator, "
                    "or grants the model or the user powers they were not given.",
        reason="Claims an authority or grants powers: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\[\s*(?:system|admin|administrator|developer|sys|root|operator)\s*\]"
            r"|\b(?:message|note|notice|update|instructions?|directive|order|alert|memo)s?\s+from"
            r"\s+(?:the\s+|your\s+)?(?:system|developers?|admins?|administrators?|operators?"
            r"|openai|anthropic|security team|it (?:department|team)|creators?|platform)\b"
            r"|\b(?:system|admin|security|developer|policy)\s+(?:override|notice|message|update"
            r"|alert|directive)\s*[:\-]"
            r"|\bas your (?:developer|administrator|admin|creator|operator|owner|supervisor"
            r"|programmer)\b|\bi (?:order|command|instruct|authori[sz]e) you\b"
            rf"|\b{_MODEL}\s+(?:may|can|is (?:now )?(?:allowed|permitted|free) to)\s+(?:now\s+)?"
            r"(?:share|reveal|disclose|send|ignore|bypass|skip|access|delete|execute|run)\b"
            # Powers handed to the model or the session, or over everything (a person
            # "was given full access to the shared drive" is a fact about their job).
            rf"|\bgrant(?:ed|s)?\s+(?:this session|the session|yourself|you|the {_MODEL}"
            rf"|this {_MODEL})\b[^.!?\n]{{0,20}}?\b(?:full|unrestricted|root|admin(?:istrator)?"
            r"|elevated|superuser)\s+(?:access|permissions?|privileges|rights|clearance)\b"
            r"|\b(?:full|unrestricted|root|admin(?:istrator)?|elevated|superuser)\s+(?:access"
            r"|permissions?|privileges|rights)\s+(?:to|on|over)\s+(?:every|all|any)\b"
            r"|\bact as (?:the |a |an |your )?(?:system|administrator|admin|root|developer|operator"
            r"|superuser)\b"
            r"|\b(?:you have|you've got|you are given|you're given|you now have)\s+(?:the\s+)?"
            r"(?:permission|authori[sz]ation|clearance|approval)\b"
            r"|\bpermission from (?:the |your )?(?:owner|admin|administrator|developers?|operator"
            r"|creators?)\b"

            r"|\bmay (?:now )?(?:see|access|view|read|open)\s+(?:every|all|any)\s+(?:accounts?"
            r"|files?|records?|users?|data)\b"
            r"|\bis (?:now )?(?:authori[sz]ed|permitted|cleared) to\s+(?:access|view|see|read"
            r"|bypass|override|approve|transfer|delete|share|make)\s+(?:all|every|any)\b"
            r"|\b(?:this is|i am|i'm)\s+(?:the\s+|your\s+)(?:system|developers?|administrator"
            r"|admin|creator|operator|openai|anthropic)(?:\s+(?:speaking|here|team))?\s*[.,:;!]"
            r"|\b(?:identity|account|profile|session|role)\s+(?:is|has been)\s+(?:now\s+)?"
            r"(?:linked|mapped|bound|switched|upgraded|elevated)\s+(?:to|with)\b"
            r"|\bact\s+(?:with|using|under)\s+[^.!?\n]{1,30}?\b(?:permissions|privileges|rights"
            r"|authority|credentials)\b"
        ),
        hint=("act as", "have", "has", "had", "official", "urgent", "important", "you", "[",
              "from", "override", "notice", "message", "update", "alert", "directive", "as your",
              "order", "command", "instruct", *_MODEL_HINTS, "grant", "given", "may", "authori",
              "permitted", "cleared", "system", "develop", "admin", "creator", "operator",
              "openai", "anthropic", "linked", "mapped", "bound", "switched", "upgraded",
              "elevated", "permission", "privilege", "rights", "authority", "credential"),
    ),
    Rule(
        id="safety-bypass",
        description="Tells the model to skip a confirmation, a verification or a safety "
                    "control (the logic corruption of a plausible-looking lesson).",
        reason="Tells the model to skip a safety step: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:skip(?:ping)?|bypass(?:ing)?|disabl(?:e|ing)|omit(?:ting)?|turn(?:ing)? off"
            r"|switch(?:ing)? off|deactivat(?:e|ing)|circumvent(?:ing)?)\s+(?:the\s+|any\s+"
            r"|all\s+|a\s+|its\s+|their\s+)?(?:user'?s\s+)?(?:confirmation|verification|approval"
            r"|authentication|two[- ]factor|2fa|mfa|consent|safety (?:checks?|filters?|steps?)"
            r"|security (?:checks?|alerts?|software|warnings?|settings)|content filter|antivirus"
            r"|firewall|logging|audit(?:ing| logs?| trail)?|human review|review step|fraud checks?)"
            r"\b"
            r"|\b(?:make|approve|send|transfer|pay|delete|purchase|buy|share|sign)\b[^.!?\n]{0,40}?"
            r"\bwithout\s+(?:asking|checking|confirm(?:ing|ation)|verif(?:ying|ication)|approval"
            r"|consent|permission)\b"
            r"|\b(?:suppress|silence|mute|hide|ignore|skip)\w*\s+(?:all\s+|any\s+|the\s+)?"
            r"(?:security|safety|phishing|fraud|virus|malware)\s+(?:warnings?|alerts?|prompts?"
            r"|checks?|notices?)\b"
            r"|\b(?:security|safety|phishing|fraud)\s+(?:warnings?|alerts?|prompts?|checks?)\s+"
            r"(?:\w+\s+){0,2}?(?:suppressed|disabled|turned off|ignored|muted|silenced|skipped"
            r"|can be skipped|are unnecessary|only confuse)\b"
            r"|\b(?:warning|alerting|telling) (?:the user|users|them) about (?:phishing|fraud"
            r"|scams?|malware|risks?)\b[^.!?\n]{0,30}?\b(?:confuses?|annoys?|unnecessary"
            r"|pointless)\b"
            r"|\b(?:approv|authori[sz]|transfer|delet|execut|install|wir)\w*\b[^.!?\n]{0,40}?"
            r"\bwithout\s+(?:a\s+|any\s+)?(?:second look|double[- ]check\w*|review\w*|checks?"
            r"|looking)\b"
            r"|\b(?:two[- ]factor|2fa|mfa|two[- ]step|one-time) (?:codes?|login|checks?"
            r"|verification)\b[^.!?\n]{0,20}?\b(?:can|should|may) be (?:skipped|ignored"
            r"|disabled|bypassed)\b"
            r"|\bturn(?:ing)? off (?:the\s+)?(?:two[- ]step|two[- ]factor|2fa|mfa)\b"
            r"|\bdelet\w*\s+(?:the\s+|all\s+)?backups?\b"
            r"|\bnever\s+(?:ask|check|confirm|verify|request|wait)\s+(?:for\s+)?(?:permission"
            r"|confirmation|approval|consent|verification|before)\b"
            r"|\b(?:two[- ]factor(?: authentication)?|2fa|mfa|verification|confirmation"
            r"|authentication|security checks?)\s+(?:is|are)\s+(?:unnecessary|not (?:needed"
            r"|necessary|required)|no longer (?:needed|required))\b"
        ),
        user_exempt=_FIRST_PERSON,
        hint=("suppress", "silenc", "mute", "hide", "ignor", "warning", "alert", "telling",
              "skipped", "backup", "can be", "should be", "may be", "skip", "bypass", "disabl",
              "omit", "off", "deactivat", "circumvent", "without", "never", "unnecessary",
              "not ", "no longer"),
    ),
    Rule(
        id="false-consensus",
        description="Cites agreement of earlier sessions, agents or runs, or a blanket "
                    "prior approval, to make an entry look established.",
        reason="Claims an earlier consensus or a blanket approval: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\bas (?:established|agreed|confirmed|decided|approved|settled)\s+(?:in|during"
            r"|across|by|with)\s+(?:the\s+)?(?:earlier|previous|prior|past|all|other|former)\b"
            # The model's own kind (sessions, agents, runs, answers) vouching for a claim;
            # "multiple reviewers approved my pull request" is not that.
            r"|\b(?:all|every|most|several|many|multiple|the|two|three|\d+)?\s*(?:previous|prior"
            r"|past|earlier|other|multiple|several|many)\s+(?:sessions?|agents?|conversations?|runs?"
            r"|assistants?|instances?|models?|chats?|answers?|replies|responses|turns"
            r"|interactions)\s+(?:have\s+)?(?:already\s+)?(?:agreed|agree|confirmed|concluded"
            r"|decided|established|showed|shown|found|verified|proved|proven|checked|approved"
            r"|reviewed)(?:\s+(?:that|this|it)\b|\s*:)"
            r"|\bbased on (?:many |numerous |several |all |our |the )?(?:past|previous|prior"
            r"|earlier) (?:interactions|sessions|conversations|runs|tasks|answers)\b"
            r"|\b(?:it was|it's been|it has been|was) agreed (?:by|in|among|across) (?:all|every"
            r"|the|previous|prior|earlier|other)\b"
            r"|\blesson (?:from|of) (?:past|previous|prior|earlier) (?:tasks?|runs?|sessions?)\b"
            r"|\bconsensus\s+(?:of|among|from|across)\s+(?:the\s+)?(?:prior|previous|past|other"
            r"|all|earlier)\b"
            r"|\bexperience (?:from|of|in) (?:earlier|previous|prior|past) (?:tasks?|runs?"
            r"|sessions?|episodes?)\b"
            r"|\b(?:pre-?approved|pre-?authori[sz]ed|already (?:approved|authori[sz]ed"
            r"|consented to))\s+(?:all|every|any|each|future)\b"
            rf"|\b(?:has|have)\s+(?:already\s+)?(?:agreed|consented)\s+to\s+(?:let|allow)\s+"
            rf"(?:you|the {_MODEL})\b"
        ),
        hint=("check", "review", "based on", "lesson", "establish", "agree", "confirm", "conclu",
              "decide", "approv", "settle", "show", "found", "verif", "prove", "consensus",
              "experience", "authori", "consent"),
    ),
    Rule(
        id="record-redirect",
        description="Redirects one person's or account's records to another's, or plants "
                    "a trigger that swaps what a later request gets (bridging steps that "
                    "make a harmful record look like a reasoned memory).",
        reason="Redirects records or plants a trigger for later requests: “{evidence}”.",
        scope=Scope.BOTH,
        pattern=(
            r"\b(?:data|records?|files?|history|account|chart|profile|results|details"
            r"|information)\s+(?:of|for)\s+[^.!?\n]{1,40}?\s+(?:is|are|has been|have been)\s+"
            r"(?:now\s+)?(?:saved|stored|moved|kept|merged|filed|listed|transferred|relocated"
            r"|found|located)\s+(?:under|in|into|as|with|at)\b"
            r"|\b(?:refer to|use|consult|read|open|look up|return|fetch|retrieve|pull)\s+"
            r"(?:that|this|the other|the)?\s*(?:record|records|data|file|files|account|profile"
            r"|chart|entry|figures|results)\b[^.!?\n]{0,40}?\binstead\b"
            r"|\brefer to\s+[^.!?\n]{1,40}?\s+whenever\b"
            r"|\b(?:whenever|every time|each time|when|if)\s+(?:the user|a user|users|someone"
            r"|anyone|a customer|customers|they|people)\s+(?:asks?|mentions?|requests?|searche?s?"
            r"|wants?|quer(?:y|ies)|says?|types?|brings? up|talks? about)\b[^.!?\n]{0,60}?"
            r"(?:,|\bthen\b)\s*(?:you\s+(?:should|must)\s+)?(?:always\s+)?(?:recommend|buy"
            r"|purchase|order|book|choose|select|pick|redirect|send|forward|open|visit|answer with"
            r"|reply with|respond with|give|show|use|refer to|treat|substitute|replace|transfer"
            r"|pay|add|suggest|promote|push|sell|link)\b"
            r"|\btreat\s+(?:every|all|any|each)\s+(?:requests?|questions?|quer(?:y|ies)"
            r"|mentions?|messages?|references?)\s+(?:about|for|of|to|mentioning)\s+"
            r"[^.!?\n]{1,40}?\s+as\b"
            r"|\b(?:substitute|replace|swap)\s+(?:every|all|any|each)\s+(?:mentions?|references?"
            r"|instances?|occurrences?)\s+of\b"
            r"|\bis the same (?:person|patient|user|customer|client|account|individual|entity) as\b"
            r"|\bmerge (?:their|the|both|these|those) (?:records?|prescriptions?|accounts?|files?"
            r"|profiles?|histories|charts?)\b"
            r"|\b(?:look up|use|answer from|consult|open|pull up)\s+(?:customer|patient|client"
            r"|account|user|profile)\s+\S+\s+(?:rather than|instead of)\b"
            r"|\b(?:belongs? to|now holds|holds all of) (?:the user|the user's|their)\b"
            r"[^.!?\n]{0,40}?\b(?:use|answer|refer|read)\b"
            r"|\b(?:reveal|give|share|tell|read out|confirm)\s+(?:it|this|that|them)\b"
            r"[^.!?\n]{0,30}?\b(?:if|when(?:ever)?)\s+(?:someone|anyone|they|somebody"
            r"|the (?:bank|caller))\b"

        ),
        hint=("same", "merge", "rather than", "belong", "holds", "reveal", "give", "share",
              "tell", "read out", "confirm", "saved", "stored", "moved", "kept", "merged",
              "filed", "listed", "transferred", "relocated", "found", "located", "instead",
              "whenever", "user", "someone", "anyone", "customer", "they", "people", "treat",
              "substitut", "replac", "swap"),
    ),
)
