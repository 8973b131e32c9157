"""The write path's commands: extract (dry run), store, jobs, worker, embed, and the
long-text options of add.  Real subprocesses where streams and exit codes matter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.cli import run as cli
from tests.helpers.fake_ollama import FakeOllama, Reply, unit, units
from tests.helpers.mcp_http import free_port


def test_extract_is_a_dry_run_that_names_its_extractor(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    r = cli("--db", str(db), "extract", "--offline", "What if I were a doctor?")
    assert r.returncode == 0, r.stderr
    assert "extractor: heuristic" in r.stdout and "nothing was stored" in r.stdout
    assert re.search(r"conf 0\.[0-3]\d .*doctor", r.stdout)
    assert not db.exists()  # stores nothing, not even an empty store


def test_extract_json_from_stdin_and_the_empty_answer() -> None:
    r = cli("extract", "--offline", "--json", "-", stdin="I'm allergic to peanuts. Thanks!")
    out = json.loads(r.stdout)
    assert out["extractor"] == "heuristic"
    [u] = out["units"]
    assert (u["attribute"], u["value"], u["layer"]) == ("allergic_to", "peanuts", "semantic")
    r = cli("extract", "--offline", "--json", "Thanks, that's helpful!")
    assert json.loads(r.stdout)["units"] == []


def test_extract_through_ollama_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOllama([units(unit("The user prefers Go.", value="Go"))]) as fake:
        assert main(["extract", "--json", "--ollama-host", fake.host, "--ollama-model",
                     "tiny", "I prefer Go"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["extractor"], out["model"]) == ("ollama", "tiny")
    assert fake.requests[0]["model"] == "tiny"


def test_extract_fallback_is_said_and_no_fallback_fails_readably() -> None:
    host = f"http://127.0.0.1:{free_port()}"
    r = cli("extract", "--ollama-host", host, "I work at Acme.")
    assert r.returncode == 0 and "ollama failed: no Ollama server answers" in r.stdout
    assert "works at Acme" in r.stdout
    r = cli("extract", "--no-fallback", "--ollama-host", host, "I work at Acme.")
    assert r.returncode == 1 and "no Ollama server answers" in r.stderr
    assert "Traceback" not in r.stderr
    r = cli("extract", "--timeout", "-1", "x y")
    assert r.returncode == 2 and "--timeout" in r.stderr


def test_malformed_ollama_json_via_cli_falls_back(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOllama([Reply('{"memories": [{"text": "x", "importance": NaN')]) as fake:
        assert main(["extract", "--ollama-host", fake.host, "I'm allergic to cats"]) == 0
    out = capsys.readouterr().out
    assert "not valid JSON" in out and "allergic to cats" in out


def test_store_jobs_worker_retry(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    r = cli("--db", db, "store", "--user", "alice", "--session", "s1", "--topic", "health",
            "-", stdin="I'm allergic to peanuts.\nI live in Oslo.")
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{32}", job_id)
    r = cli("--db", db, "jobs", "--status", "pending", "--json")
    [job] = json.loads(r.stdout)
    assert job["id"] == job_id and job["status"] == "pending"
    r = cli("--db", db, "worker", "--offline", "--drain", "--no-embed")
    assert r.returncode == 0 and f"{job_id} done 2 memories" in r.stdout
    r = cli("--db", db, "list", "--json")
    # the two facts, and the turn itself kept as said (its episode)
    assert sorted((m["type"], m["layer"]) for m in json.loads(r.stdout)) == [
        ("episode", "episodic"), ("fact", "semantic"), ("fact", "semantic")]
    r = cli("--db", db, "jobs")
    assert "done: 1" in r.stdout and job_id in r.stdout
    r = cli("--db", db, "jobs", "retry", job_id)
    assert r.returncode == 2 and "only failed jobs" in r.stderr
    r = cli("--db", db, "jobs", "retry", "nope")
    assert r.returncode == 4


def test_store_rejects_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    r = cli("--db", str(db), "store", "--user", "u", "   ")
    assert r.returncode == 2 and "text" in r.stderr and not db.exists()
    r = cli("--db", str(db), "store", "--user", "u", "-", stdin="x" * 100_001)
    assert r.returncode == 2 and "limit" in r.stderr


def test_add_reads_long_text_from_a_file_or_stdin(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    long = "line one\n" + "ü" * 50_000 + "\nend"
    f = tmp_path / "t.txt"
    f.write_text(long, encoding="utf-8")
    r = cli("--db", db, "add", "--user", "u", "--type", "note", "--text-file", str(f), "--json")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["text"] == long and rec["layer"] == "episodic"
    r = cli("--db", db, "add", "--user", "u", "--type", "fact", "--text", "-", "--json",
            stdin="from standard input")
    assert json.loads(r.stdout)["text"] == "from standard input"
    r = cli("--db", db, "add", "--user", "u", "--type", "fact", "--text-file",
            str(tmp_path / "missing.txt"))
    assert r.returncode == 2 and "cannot read --text-file" in r.stderr
    r = cli("--db", db, "add", "--user", "u", "--type", "fact", "--text", "a",
            "--text-file", str(f))
    assert r.returncode == 2  # one source only
    r = cli("--db", db, "add", "--user", "u", "--type", "fact", "--layer", "working",
            "--text", "x")
    assert r.returncode == 2 and "never stored" in r.stderr


def test_embed_command(tmp_path: Path, embedder,  # type: ignore[no-untyped-def]
                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    s = MemoryStore.open(db)
    s.add_many([{"user_id": "u", "text": f"memory number {i}", "type": "note"}
                for i in range(5)])
    s.close()
    # in-process: the session's model is loaded already
    assert main(["--db", str(db), "embed", "--batch", "0"]) == 2
    assert main(["--db", str(db), "embed", "--backfill", "--batch", "2"]) == 0
    assert "embedded 5 memories with all-MiniLM-L6-v2" in capsys.readouterr().out
    assert main(["--db", str(db), "embed"]) == 0
    out = capsys.readouterr().out
    assert "embedded 0 memories" in out and "0 still without" in out
