"""The task queue's messages: one stable code and one English and one Chinese sentence each.

`AnswerPending` is no failure: it is the reply a chat channel gets when its question is still being answered
by a worker and the answer will be pushed to the channel later; it goes through the same type so that every
sentence a person reads has its code and both languages.
"""

from __future__ import annotations

from wenshu.errors import WenshuError


class QueueUnavailable(WenshuError):
    """Redis did not answer while a task was submitted, polled or cancelled (HTTP 503)."""

    code = "queue_unavailable"
    http_status = 503

    def __init__(self, where: str):
        super().__init__(
            f"The task queue (Redis at {where}) does not answer, so nothing was queued or read; try again when "
            "Redis is back, or ask in the conversation instead of as a task.",
            f"任务队列（Redis：{where}）没有响应，任务未排队也未读取；请在 Redis 恢复后重试，或直接在会话中提问。",
        )


class QueueNeedsRedis(WenshuError):
    """`wenshu worker` or `wenshu serve --workers N` without WENSHU_REDIS_URL."""

    code = "queue_needs_redis"
    en = ("Workers take their questions from a task queue on Redis: set WENSHU_REDIS_URL (e.g. "
          "redis://127.0.0.1:6379/0) for the server and every worker.")
    zh = "工作进程从 Redis 上的任务队列取问题：请为服务和每个工作进程设置 WENSHU_REDIS_URL（如 redis://127.0.0.1:6379/0）。"


class WorkerLost(WenshuError):
    """The worker answering a queued question stopped (killed, crashed, its machine gone) before it finished."""

    code = "task_worker_lost"

    def __init__(self, retrying: bool):
        if retrying:
            super().__init__("The worker answering this question stopped before it finished; another worker is "
                             "answering it again.", "回答该问题的工作进程在完成前停止了；另一个工作进程正在重新回答。")
        else:
            super().__init__("The workers answering this question stopped before they finished, so it was given "
                             "up; ask it again.", "回答该问题的工作进程在完成前停止了，该问题已放弃；请重新提问。")


class TaskWorkerLost(WenshuError):
    """The worker running a queued ingest or workspace task stopped before it finished (the question's own
    sentence is WorkerLost's)."""

    code = "task_worker_lost"

    def __init__(self, retrying: bool):
        if retrying:
            super().__init__("The worker running this task stopped before it finished; another worker takes it up "
                             "again where it was.", "运行该任务的工作进程在完成前停止了；另一个工作进程正从中断处继续。")
        else:
            super().__init__("The workers running this task stopped before they finished, so it was given up; "
                             "start it again.", "运行该任务的工作进程在完成前停止了，该任务已放弃；请重新开始。")


class AnswerPending(WenshuError):
    """Not a failure: a chat channel's reply while a worker still answers (the answer is pushed later)."""

    code = "answer_pending"

    def __init__(self, task_id: str):
        super().__init__(f"Still working on it; the answer will be posted here when it is ready (task {task_id}).",
                         f"正在处理中，结果就绪后会发到这里（任务 {task_id}）。")


class UnknownTaskFunction(WenshuError):
    """A job on the queue names a function that is not one of Wenshu's tasks: the worker refuses to run it."""

    code = "task_function_refused"

    def __init__(self, name: str):
        super().__init__(f"The queued job names '{name}', which is not a Wenshu task; it was not run.",
                         f"队列中的作业指向「{name}」，它不是问数的任务，未执行。")
