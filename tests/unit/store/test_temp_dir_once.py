"""SQLite's temp folder (`PRAGMA temp_store_directory`) is process-wide, and changing it while another thread uses
SQLite is undefined behaviour: it is set by the first library a process opens and never changed afterwards."""

from __future__ import annotations

from searchapp.store.db import Store


def test_opening_another_library_leaves_sqlites_temp_folder_as_it_was(tmp_path):
    first = Store(tmp_path / "a" / "library.sqlite")
    try:
        before = first.conn.execute("PRAGMA temp_store_directory").fetchone()[0]
        assert before  # set by this library, or by one this process opened before it
        second = Store(tmp_path / "b" / "library.sqlite")
        try:
            assert second.conn.execute("PRAGMA temp_store_directory").fetchone()[0] == before
        finally:
            second.close()
    finally:
        first.close()
