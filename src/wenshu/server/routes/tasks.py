"""Long questions as tasks: POST /api/tasks, GET /api/tasks/{id} (poll), DELETE /api/tasks/{id} (cancel).

With WENSHU_REDIS_URL set, a question task goes to the task queue and a `wenshu worker` process answers it;
any API process polls or cancels it (wenshu.queue). Without, this process answers it in a thread (runner.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import Discriminator, Tag

from wenshu.errors import NotFound
from wenshu.server.answers import start_answer, submit_task
from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.routes import kb, task_actions
from wenshu.server.routes.task_actions import WorkspaceTaskBody
from wenshu.server.schemas import AskBody, TaskCreated, TaskOut



def _kind(body) -> str:
    kind = body.get("kind") if isinstance(body, dict) else getattr(body, "kind", None)
    return "workspace" if kind == "workspace" else "question"


# a body with kind "workspace" is a workspace task (routes/task_actions.py); anything else a question, as before
TaskBody = Annotated[Annotated[WorkspaceTaskBody, Tag("workspace")] | Annotated[AskBody, Tag("question")],
                     Discriminator(_kind)]

router = APIRouter(prefix="/api/tasks", tags=["tasks"])


def _task(state, user, task_id: str):
    run = state.runner.get(task_id, user.user_id)
    if run is None:
        raise NotFound(f"There is no task '{task_id}'.", f"任务「{task_id}」不存在。", code="task_not_found")
    return run


@router.post("", operation_id="tasks_create", response_model=TaskCreated, status_code=202)
def create_task(body: TaskBody, state: StateDep, user: CurrentUser, lang: LangDep) -> TaskCreated:
    if isinstance(body, WorkspaceTaskBody):
        return task_actions.create(state, user, body, lang)
    if state.queue is not None:  # a team deployment: a worker process answers it (docs/team.md)
        task_id, cid = submit_task(state, user, body.message, body.conversation_id, body.datasource, plan=body.plan)
        return TaskCreated(task_id=task_id, conversation_id=cid)
    run = start_answer(state, user, body.message, body.conversation_id, body.datasource, plan=body.plan)
    return TaskCreated(task_id=run.id, conversation_id=run.conversation_id)


def _queued(state, user, task_id: str, lang: str, cancel: bool = False) -> dict | None:
    if state.queue is None:
        return None
    return (state.queue.cancel if cancel else state.queue.view)(task_id, user.user_id, lang)


@router.get("/{task_id}", operation_id="tasks_get", response_model=None, responses={200: {"model": TaskOut}})
def get_task(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep) -> dict:
    """The task's status, the nodes finished so far, and its result or error once it has one; for a workspace
    task, its steps so far and, once it ended, its ending and diff; for a knowledge-base upload, its files."""
    found = task_actions.find(state, user, task_id, lang) or kb.find_task(state, user, task_id, lang)
    return found or _queued(state, user, task_id, lang) or _task(state, user, task_id).to_task(lang)


@router.delete("/{task_id}", operation_id="tasks_cancel", response_model=None, responses={200: {"model": TaskOut}})
def cancel_task(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep) -> dict:
    """Cancel a queued or running task (a finished one is left as it is)."""
    stopped = task_actions.cancel(state, user, task_id, lang)
    if stopped is not None:
        return stopped
    queued = _queued(state, user, task_id, lang, cancel=True)
    if queued is not None:
        return queued
    run = _task(state, user, task_id)
    if state.runner.cancel(run):
        run.done_event.wait(10)
    return run.to_task(lang)
