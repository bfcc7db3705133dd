"""The task queue of a team deployment: long questions submitted by any API process, answered by `wenshu worker`
processes, on Redis with RQ (docs/team.md). Only used when WENSHU_REDIS_URL is set; the embedded default
answers every task in the server's own threads (server/runner.py).
"""
