"""The app store's errors: a database URL Wenshu cannot use (checked when the store opens: `wenshu serve`,
`wenshu doctor`, every command) and the database going away while Wenshu runs. One stable code and one
English and one Chinese sentence each; passwords never appear (URLs are shown with `***`)."""

from __future__ import annotations

from wenshu.errors import WenshuError


class StoreUnusable(WenshuError):
    """WENSHU_DATABASE_URL names no database Wenshu can open."""

    code = "database_unreachable"

    def __init__(self, code: str, url: str, detail: str = ""):
        said = f" ({detail})" if detail else ""
        en, zh = {
            "database_bad_url": (
                f"WENSHU_DATABASE_URL ({url}) is not a database URL Wenshu can use{said}; write "
                "postgresql://user:password@host:5432/wenshu, or leave it empty for the SQLite file in WENSHU_HOME.",
                f"WENSHU_DATABASE_URL（{url}）不是问数可用的数据库地址{said}；请写成 "
                "postgresql://user:password@host:5432/wenshu，或留空以使用 WENSHU_HOME 中的 SQLite 文件。"),
            "database_unreachable": (
                f"Cannot reach the app store's database at {url}{said}: start it, or correct the host and port "
                "in WENSHU_DATABASE_URL.",
                f"无法连接应用数据库 {url}{said}：请启动它，或修正 WENSHU_DATABASE_URL 中的主机和端口。"),
            "database_auth_failed": (
                f"The app store's database at {url} refused the user or password in WENSHU_DATABASE_URL; correct "
                "them (the database's log says which).",
                f"应用数据库 {url} 拒绝了 WENSHU_DATABASE_URL 中的用户名或密码，请修正（数据库日志会说明原因）。"),
            "database_missing": (
                f"The database in WENSHU_DATABASE_URL does not exist on its server ({url}); create it first "
                "(createdb), or name an existing one.",
                f"WENSHU_DATABASE_URL 中的数据库在服务器上不存在（{url}）；请先创建（createdb），或填写已有的数据库。"),
        }[code]
        super().__init__(en, zh, code=code)


class StoreUnavailable(WenshuError):
    """The app store's database stopped answering while Wenshu runs (HTTP 503). Nothing of the request was
    acknowledged; Wenshu reconnects by itself once the database is back."""

    code = "store_unavailable"
    http_status = 503
    en = ("The app store's database is not answering right now, so this request was not saved; try again in a "
          "moment (Wenshu reconnects by itself when the database is back).")
    zh = "应用数据库暂时无法响应，本次请求未保存；请稍后重试（数据库恢复后问数会自动重新连接）。"


class RedisDown(WenshuError):
    """A warning, not a failure: the shared Redis stopped answering and each process goes on alone."""

    code = "redis_unreachable"
    en = ("Redis is unreachable: answers go on without the shared result cache, with per-process rate limits and "
          "session memory, until it is back.")
    zh = "Redis 无法连接：回答照常进行，但不使用共享结果缓存，限流与会话记忆暂为各进程独立，直到 Redis 恢复。"
