"""Cancelling pending jobs: no worker claims a cancelled job, a running one is refused
with a clear message, the cancel is audited and undoable (core, CLI, and the Jobs view
through the desk's action pipeline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.app.main import main
from memdesk.core.errors import NotFoundError, UndoConflictError
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.records import Changed
from memdesk.core.undo.generic import undo_changes
from memdesk.core.write.extract_heuristic import HeuristicExtractor
from memdesk.core.write.jobs import JobQueue, JobStateError
from memdesk.core.write.units import Turn
from memdesk.core.write.worker import Worker, WorkerConfig


def offline_worker(store: MemoryStore) -> Worker:
    return Worker(store, HeuristicExtractor(), WorkerConfig(embed=False))


def test_a_cancelled_job_is_never_claimed_and_undo_puts_it_back(store: MemoryStore) -> None:
    q = JobQueue(store)
    keep = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    drop = JobQueue(store).enqueue(Turn("I work at Acme Corp.", "u"))
    changes = q.cancel(drop)
    job = q.get(drop)
    assert job.status == "cancelled" and job.finished_at is not None
    assert any("cancelled by the operator" in e["msg"] for e in job.log)
    [ev] = [e for e in store.events("*") if e.action == "cancel_job"]
    assert ev.before == {"job_id": drop, "status": "pending"}
    assert ev.after == {"job_id": drop, "status": "cancelled"}
    assert changes.group_id is not None and changes.undoable

    assert offline_worker(store).run(drain=True) == 1  # only the other job
    assert q.get(keep).status == "done" and q.get(drop).status == "cancelled"
    assert [j.id for j in q.list(("cancelled",))] == [drop]
    assert q.counts()["cancelled"] == 1
    assert store.count() == 2  # the kept job's unit and its turn's episode

    undone = undo_changes(store, changes)
    assert q.get(drop).status == "pending" and q.get(drop).finished_at is None
    # The desk refreshes by kind: the jobs view and the history, not the memories.
    assert undone.kinds == Changed.JOBS | Changed.HISTORY
    redone = undo_changes(store, undone)  # redo: cancelled again
    assert q.get(drop).status == "cancelled"
    undo_changes(store, redone)
    assert offline_worker(store).run(drain=True) == 1
    done = q.get(drop)
    assert done.status == "done" and len(done.memory_ids) == 1 and done.attempts == 1


def test_running_and_finished_jobs_cannot_be_cancelled(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    q.claim("host:1:w")
    with pytest.raises(JobStateError, match="is running: a worker is processing it"):
        q.cancel(job_id)
    assert q.get(job_id).status == "running"
    assert not [e for e in store.events("*") if e.action == "cancel_job"]
    q.fail(job_id, "host:1:w", "boom")
    with pytest.raises(JobStateError, match="only pending jobs can be cancelled"):
        q.cancel(job_id)
    with pytest.raises(NotFoundError):
        q.cancel("nope")


def test_undo_refuses_when_a_worker_took_the_job_since(store: MemoryStore) -> None:
    q = JobQueue(store)
    job_id = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    changes = q.cancel(job_id)
    undone = undo_changes(store, changes)
    q.claim("host:1:w")  # pending again, and claimed at once
    with pytest.raises(UndoConflictError, match="running now, not pending"):
        undo_changes(store, undone)
    assert q.get(job_id).status == "running"


def test_cli_cancel_exit_codes_listing_and_undo(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.db"
    store = MemoryStore.open(db)
    q = JobQueue(store)
    pending = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    running = JobQueue(store).enqueue(Turn("I work at Acme Corp.", "u"))
    assert q.claim("host:1:w").id == pending  # the oldest: now running
    capsys.readouterr()
    assert main(["--db", str(db), "jobs", "cancel", running[:12]]) == 0
    out = capsys.readouterr().out
    assert f"job {running} cancelled" in out
    event = int(out.split("(event ")[1].split(";")[0])
    assert q.get(running).status == "cancelled"
    assert main(["--db", str(db), "jobs", "cancel", pending]) == 5
    assert "is running" in capsys.readouterr().err
    assert main(["--db", str(db), "jobs", "cancel", running]) == 5  # already cancelled
    assert main(["--db", str(db), "jobs", "cancel", "f" * 32]) == 4
    capsys.readouterr()
    assert main(["--db", str(db), "jobs", "--status", "cancelled"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "cancelled: 1" in lines[0] and [ln.split()[0] for ln in lines[1:]] == [running]
    assert main(["--db", str(db), "undo", str(event)]) == 0
    assert q.get(running).status == "pending"
    store.close()


@pytest.mark.gui
def test_jobs_view_cancel_goes_through_the_desk_and_undoes(qtbot, store: MemoryStore,
                                                         desk_for) -> None:  # type: ignore[no-untyped-def]
    from memdesk.ui.jobs.view import JobsView

    desk = desk_for(store)
    running = JobQueue(store).enqueue(Turn("I work at Acme Corp.", "u"))
    JobQueue(store).claim("host:1:w")
    pending = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    view = JobsView(desk)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(lambda: view.model.rowCount() == 2)
    rows = {view.model.row_at(r).id: r for r in range(2)}
    view.table.selectRow(rows[running])
    assert not view.cancel_button.isEnabled()
    view.table.selectRow(rows[pending])
    assert view.cancel_button.isEnabled()
    view.cancel_button.click()
    assert JobQueue(store).get(pending).status == "cancelled"
    assert desk.undo_stack.undoText() == "cancel of 1 job"
    qtbot.waitUntil(lambda: "cancelled: 1" in view.summary.text())
    qtbot.waitUntil(lambda: not view.cancel_button.isEnabled())
    desk.undo_stack.undo()
    assert JobQueue(store).get(pending).status == "pending"
    qtbot.waitUntil(lambda: "cancelled: 0" in view.summary.text())
    desk.undo_stack.redo()
    assert JobQueue(store).get(pending).status == "cancelled"
    view.wait_idle()


def test_undo_of_one_cancel_event_reports_the_jobs_view(store: MemoryStore) -> None:
    from memdesk.core.undo.generic import undo_event

    q = JobQueue(store)
    job = JobQueue(store).enqueue(Turn("I live in Oslo.", "u"))
    [event] = q.cancel(job).event_ids
    undone = undo_event(store, event)  # `memdesk undo EVENT` on the cancel event
    assert q.get(job).status == "pending"
    assert undone.kinds == Changed.JOBS | Changed.HISTORY and len(undone.event_ids) == 1
