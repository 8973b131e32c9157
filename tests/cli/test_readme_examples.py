"""Every command of README's "Command line" block, run as written against one store, in
the README's order, and checked to do what its line says.

A concrete line is run with ``--db`` added and its example values (the id ``3f2a``, the
event ``12``, the versions of ``--if-version``, ``GROUP``) replaced by the ones this
store printed; three lines get a flag the README leaves out because it describes an
interactive use (``demo`` writes 2,000 rows instead of 1,000,000, ``worker`` drains the
queue offline instead of running in the foreground).  A synopsis line is checked per
alternative: a list of subcommands (``start|status``) or a placeholder (``JOB_ID``) by
each one's ``--help``; a command with optional parts (``db check [--repair]``) runs
without them.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

import pytest

from memdesk.app.cli.main import build_parser
from tests.helpers.cli import cli

README = Path(__file__).resolve().parents[2] / "README.md"
PLACEHOLDERS = {"ID", "JOB_ID", "CLUSTER", "IDS", "BACKUP", "EVENT", "PATH", "U"}
# What a line the README describes interactively gets here (and why: see the docstring).
ADJUSTED = {
    "demo": lambda a: [x if x != "1000000" else "2000" for x in a],
    "worker": lambda a: [*a, "--offline", "--drain"],
}
# Exit codes other than 0 a line is expected to end with (with the reason).
EXPECTED_CODE = {
    # the README store holds no failed job: "jobs retry" is only shown by its help
}


COMMANDS = "|".join(
    next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    .choices)


def _lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = text.split("## Command line", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        if not line.startswith("memdesk "):
            continue
        # "memdesk jobs --status failed; memdesk jobs retry JOB_ID": two commands (a ";"
        # in a comment, "# audited; prints its event", is not)
        out += [part if part.startswith("memdesk ") else "memdesk " + part for part in
                (p.strip() for p in re.split(rf";\s+(?=(?:memdesk )?(?:{COMMANDS})\s)", line))]
    return out


def _words(line: str) -> list[str]:
    words = shlex.split(line, comments=True)
    return words[1:] if words and words[0] == "memdesk" else words


def _synopsis(words: list[str]) -> bool:
    return any("|" in w or w.startswith("[") or w in PLACEHOLDERS for w in words)


def _alternatives(words: list[str]) -> list[list[str]]:
    """The commands a synopsis line stands for: each alternative of its first ``a|b``
    word (the subcommands), its bracketed options dropped."""
    words = [w for w in words if not (w.startswith("[") or w.endswith("]"))]
    for i, w in enumerate(words):
        if "|" in w and not w.startswith("-"):
            return [[*words[:i], alt, *words[i + 1:]] for alt in w.split("|")]
    return [words]


def test_the_block_is_read() -> None:
    lines = _lines()
    assert lines[0].startswith("memdesk add --user alice")
    assert any(line.startswith("memdesk jobs retry JOB_ID") for line in lines)
    assert len(lines) > 30


@pytest.mark.slow
@pytest.mark.timeout(900)  # the first vector loads the model (a fresh cache: its export)
def test_every_readme_command_line_does_what_it_says(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    db, other = str(tmp_path / "store.db"), str(tmp_path / "other.db")
    seen: dict[str, str] = {}

    def run(words: list[str], code: int = 0, store: str = db) -> str:
        # demo writes a new file (--out), eval runs its fixtures in a store of its own
        args = [*words] if words[0] in ("demo", "eval") else [*words, "--db", store]
        r = cli(*args)
        assert r.returncode == code, (words, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
        return r.stdout

    def version(mid: str) -> str:
        return str(json.loads(run(["show", mid, "--json"]))["version"])

    (tmp_path / "chat.jsonl").write_text(json.dumps({
        "user_id": "alice", "text": "I moved to Porto last week.", "speaker": "Alice",
        "session_id": "s2", "said_at": "2026-05-09T10:00Z"}) + "\n")
    ran: list[str] = []
    for line in _lines():
        words = _words(line)
        if _synopsis(words):
            alts = _alternatives(words)
            for alt in alts:
                # A list of subcommands names them (their --help); a line of one command
                # with optional parts runs without them.
                if len(alts) > 1 or any(w in PLACEHOLDERS or "|" in w for w in alt):
                    cut = next((i for i, w in enumerate(alt)
                                if w in PLACEHOLDERS or "|" in w or w.startswith("-")), len(alt))
                    assert cli(*alt[:cut], "--help").returncode == 0, alt
                else:
                    run(alt)
                    ran.append(" ".join(alt))
            continue
        name = words[0]
        words = ADJUSTED.get(name, lambda a: a)(words)
        if name == "add":
            out = run(words)
            m = re.fullmatch(r"added ([0-9a-f]{32}) \(event (\d+); `memdesk undo \2` takes "
                             r"it back\)\n", out)
            assert m, out  # what the README's comment line shows
            seen["id"], seen["event"] = m.group(1), m.group(2)
        elif name == "list":
            rows = json.loads(run(words))
            assert [r["id"] for r in rows] == [seen["id"]]  # "the memory just added"
        elif name == "show":
            out = run([seen["id"][:4] if w == "3f2a" else w for w in words])
            assert seen["id"] in out and "operator add" in out  # fields and audit history
        elif name == "undo" and "12" in words:
            # Undo an add of its own, so the memory the next lines edit stays.
            extra = json.loads(run(["add", "--user", "bob", "--type", "note", "--text",
                                    "scratch", "--json"]))
            run(["undo", str(extra["event_id"])])
            assert json.loads(run(["show", extra["id"], "--json"]))["status"] == "deleted"
        elif name in ("edit", "delete"):
            now = version(seen["id"])
            words = [seen["id"][:4] if w == "3f2a" else w for w in words]
            i = words.index("--if-version")
            out = run([*words[:i + 1], now, *words[i + 2:]])
            assert "event" in out
            status = json.loads(run(["show", seen["id"], "--json"]))["status"]
            assert status == ("deleted" if name == "delete" else "active")
        elif name == "demo":
            out = run(words)
            assert "wrote 2,000 memories to demo.db" in out and "vectors: " in out
        elif name == "export":
            run(words)
            assert (tmp_path / "all.jsonl").stat().st_size > 0
        elif name == "import" and words[1] == "all.jsonl":
            # Into another store: this one holds every exported memory already.
            out = run(words, store=other)
            seen["group"] = out.split("undo this import: memdesk undo ")[1].split()[0]
        elif name == "undo" and "GROUP" in words:
            out = run(["undo", seen["group"]], store=other)
            assert out.startswith(f"undone: action group {seen['group']}")
        elif name == "store":
            assert re.search(r"[0-9a-f]{32}", run(words))  # "prints a job id"
        elif name == "extract":
            assert "nothing was stored" in run(words)
        else:
            run(words, EXPECTED_CODE.get(name, 0))
        ran.append(" ".join(words))
    assert len(ran) > 25, ran
