"""Datasource registry: add/get/list/remove, names, URLs and paths."""

from __future__ import annotations

from datetime import UTC

import pytest

from wenshu.errors import InputError, UnknownDatasource
from wenshu.storage.datasources import normalize_url
from wenshu.storage.db import open_store


@pytest.fixture
def store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


def test_add_get_list_remove(store):
    rec = store.datasources.add(
        "shop", "postgresql+psycopg://bob:secret@db.local:5432/shop", {"schema": "public"}
    )
    assert rec.dialect == "postgresql"
    assert rec.created_at.tzinfo is not None and rec.created_at.utcoffset() == UTC.utcoffset(None)

    got = store.datasources.get("shop")
    assert got == rec
    assert got.options == {"schema": "public"}
    assert "secret" not in repr(got) and "secret" not in got.safe_url

    store.datasources.add("a-demo_1", "sqlite:////tmp/demo.sqlite")
    assert [r.name for r in store.datasources.list()] == ["a-demo_1", "shop"]
    assert store.datasources.get("a-demo_1").options == {}

    store.datasources.remove("shop")
    assert [r.name for r in store.datasources.list()] == ["a-demo_1"]
    with pytest.raises(UnknownDatasource):
        store.datasources.get("shop")


def test_duplicate_name(store):
    store.datasources.add("shop", "sqlite:////tmp/a.db")
    with pytest.raises(InputError) as err:
        store.datasources.add("shop", "sqlite:////tmp/b.db")
    assert err.value.code == "datasource_exists"
    assert store.datasources.get("shop").url == "sqlite:////tmp/a.db"


def test_unknown_lists_known_names(store):
    store.datasources.add("one", "sqlite:////tmp/one.db")
    with pytest.raises(UnknownDatasource) as err:
        store.datasources.get("two")
    assert err.value.code == "unknown_datasource"
    assert "one" in err.value.en and "one" in err.value.zh
    with pytest.raises(UnknownDatasource):
        store.datasources.remove("two")


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "semi;colon", "点", None])
def test_bad_names(store, name):
    with pytest.raises(InputError) as err:
        store.datasources.add(name, "sqlite:////tmp/a.db")
    assert err.value.code == "bad_datasource_name"


def test_name_limits_accepted(store):
    store.datasources.add("x" * 64, "sqlite:////tmp/a.db")
    assert store.datasources.get("x" * 64).name == "x" * 64


@pytest.mark.parametrize(
    "url", ["", "   ", "not a url", "://nohost", "localhost:5432/shop", "http://example.com/db"]
)
def test_bad_urls(store, url):
    with pytest.raises(InputError) as err:
        store.datasources.add("x", url)
    assert err.value.code == "bad_url"
    assert err.value.en != err.value.zh  # both languages are written out
    assert store.datasources.list() == []


def test_bad_url_message_hides_password():
    with pytest.raises(InputError) as err:
        normalize_url("nosuchdb://bob:secret@host/db")
    assert "secret" not in err.value.en and "secret" not in err.value.zh


@pytest.mark.parametrize("suffix", [".sqlite", ".db", ".SQLITE3"])
def test_path_becomes_absolute_sqlite_url(store, tmp_path, monkeypatch, suffix):
    monkeypatch.chdir(tmp_path)
    rec = store.datasources.add("local", f"data/shop{suffix}")
    assert rec.dialect == "sqlite"
    assert rec.url == f"sqlite:///{(tmp_path / 'data' / f'shop{suffix}').resolve()}"
    assert store.datasources.get("local").url == rec.url


def test_absolute_path_and_relative_sqlite_url(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "abs.db"
    assert normalize_url(str(path)) == (f"sqlite:///{path.resolve()}", "sqlite")
    assert normalize_url("sqlite:///rel.db") == (
        f"sqlite:///{(tmp_path / 'rel.db').resolve()}",
        "sqlite",
    )
    assert normalize_url("sqlite://") == ("sqlite://", "sqlite")
    assert normalize_url(" mysql+pymysql://u:p@h/db ") == ("mysql+pymysql://u:p@h/db", "mysql")


def test_survives_reopen(tmp_path):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    with open_store(url) as s:
        s.datasources.add("keep", "sqlite:////tmp/keep.db", {"k": [1, 2]})
    with open_store(url) as s:
        assert s.datasources.get("keep").options == {"k": [1, 2]}
