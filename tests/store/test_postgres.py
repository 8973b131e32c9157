"""PostgreSQL specifics: opening and migrating a new database, the schema state, and
the full-text query built from any operator input (unit tests run without a server)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from memdesk.core.errors import SchemaTooNewError, StoreOpenError
from memdesk.core.store.fts import tsquery_text
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.store.query import MemoryFilter
from memdesk.core.store.schema import head_revision, schema_state


def test_tsquery_quotes_every_chunk_and_prefixes_the_last() -> None:
    assert tsquery_text("python back") == "'python' & 'back':*"
    assert tsquery_text("o'brien \\x") == "'o''brien' & '\\\\x':*"
    # chunks without a word character are dropped; the rest stay quoted operands
    assert tsquery_text("acme & ( !x") == "'acme' & '!x':*"
    assert tsquery_text("a b", joiner=" | ", prefix_all=True) == "'a':* | 'b':*"
    assert tsquery_text("🧠 <>") is None and tsquery_text("   ") is None


def test_new_database_is_created_and_migrated(pg_server) -> None:
    url = pg_server.new_database()
    try:
        s = MemoryStore.open(url)
        assert s.report is not None and s.report.created
        assert schema_state(s.engine).revision == head_revision()
        s.close()
        again = MemoryStore.open(url)  # a current store opens without migrating
        assert again.report is not None and again.report.message is None
        again.close()
    finally:
        pg_server.drop_database(url)


def test_newer_schema_is_refused(pg_server) -> None:
    url = pg_server.new_database()
    try:
        MemoryStore.open(url).close()
        s = MemoryStore.open(url)
        with s.write() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
        s.close()
        with pytest.raises(SchemaTooNewError):
            MemoryStore.open(url)
    finally:
        pg_server.drop_database(url)


def test_foreign_database_is_not_taken_over(pg_server) -> None:
    url = pg_server.new_database()
    try:
        s = MemoryStore.open(url)
        with s.write() as conn:  # make it look like someone else's database
            conn.execute(text("DROP TABLE alembic_version"))
            conn.execute(text("ALTER TABLE memories RENAME TO not_memories"))
        s.close()
        with pytest.raises(StoreOpenError, match="other tables"):
            MemoryStore.open(url)
    finally:
        pg_server.drop_database(url)


def test_text_filter_uses_the_gin_index(store: MemoryStore, backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("PostgreSQL plan")
    store.add_many([dict(user_id="u", text=f"filler {i}", type="note") for i in range(50)])
    store.add(user_id="u", text="needle in the haystack", type="note")
    from sqlalchemy import func, select

    from memdesk.core.store.models import Memory

    stmt = select(func.count()).select_from(Memory.__table__).where(
        *MemoryFilter(text="needl").clauses("postgresql"))
    with store.read() as conn:
        conn.execute(text("SET enable_seqscan = off"))  # tiny table: force the choice
        plan = " ".join(r[0] for r in conn.execute(text("EXPLAIN " + str(
            stmt.compile(conn, compile_kwargs={"literal_binds": True})))))
    assert "ix_memories_text_fts" in plan, plan
    assert store.count(MemoryFilter(text="needl")) == 1


@settings(max_examples=60, deadline=None)
@given(q=st.text(max_size=40))
def test_any_input_is_a_valid_query_on_postgres(pg_shared_store: MemoryStore, q: str) -> None:
    """Whatever is typed, the text filter runs (no tsquery syntax error) on PostgreSQL."""
    n = pg_shared_store.count(MemoryFilter(text=q))
    assert 0 <= n <= 3


def test_words_and_tokens_match_as_postgres_indexes_them(store: MemoryStore) -> None:
    for t in ("Upgrade to Python 3.11 soon", "mail alice@example.com today",
              "the backend-work list"):
        store.add(user_id="u", text=t, type="note")

    def found(q: str) -> list[str]:
        return [r.text for r in store.page(MemoryFilter(text=q), limit=None)]

    assert found("python 3.11") == ["Upgrade to Python 3.11 soon"]
    assert found("alice@example.com") == ["mail alice@example.com today"]
    assert found("backend") == ["the backend-work list"]
    assert found("backend-wo") == ["the backend-work list"]
    assert found("UPGRADE py") == ["Upgrade to Python 3.11 soon"]
    assert found("python mail") == []


@pytest.fixture(scope="module")
def pg_shared_store(pg_server, pg_template):
    url = pg_server.new_database(template=pg_template)
    s = MemoryStore.open(url)
    for t in ("User prefers Python", "Acme Corp (since 2024)", "Café au lait"):
        s.add(user_id="u", text=t, type="note")
    yield s
    s.close()
    pg_server.drop_database(url)


def test_bare_postgresql_url_uses_psycopg(pg_server, pg_template) -> None:
    url = pg_server.new_database(template=pg_template)
    try:
        s = MemoryStore.open(url.replace("postgresql+psycopg://", "postgresql://"))
        assert s.engine.dialect.driver == "psycopg"
        assert s.count() == 0
        s.close()
    finally:
        pg_server.drop_database(url)


def test_open_errors_never_show_the_password(pg_server) -> None:
    url = f"postgresql+psycopg://postgres:s3cret-pw@127.0.0.1:{pg_server.port}/no_such_db"
    with pytest.raises(StoreOpenError) as err:
        MemoryStore.open(url)
    assert "no_such_db" in str(err.value) and "s3cret-pw" not in str(err.value)


def test_job_claim_skips_a_job_another_worker_has_locked(store: MemoryStore) -> None:
    """Workers never wait on each other's job: on PostgreSQL the claim is
    ``SELECT … FOR UPDATE SKIP LOCKED`` (on SQLite one writer at a time does the same)."""
    from memdesk.core.write.jobs import JobQueue
    from memdesk.core.write.units import Turn

    q = JobQueue(store)
    first = q.enqueue(Turn(text="I moved to Berlin.", user_id="u"))
    second = q.enqueue(Turn(text="I like tea.", user_id="u"))
    if store.dialect != "postgresql":
        assert q.claim("w1").id == first and q.claim("w2").id == second
        return
    with store.engine.connect() as other:  # worker 1 is inside its claim of the oldest job
        tx = other.begin()
        other.execute(text("SELECT id FROM jobs WHERE id = :i FOR UPDATE"), {"i": first})
        got = q.claim("w2")  # returns at once with the next job instead of blocking
        assert got is not None and got.id == second
        tx.rollback()
    assert q.claim("w1").id == first
