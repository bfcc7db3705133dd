"""Workspace tasks over HTTP (docs/tasks.md, docs/api.md): `POST /api/tasks` with `kind: "workspace"`
starts one (routes/tasks.py hands it here), `GET /api/tasks/{id}` polls it with its steps, `DELETE`
stops it; this router adds its events, resume, apply and discard."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.sse import PING, format_event
from wenshu.server.workspace_tasks import WorkspaceTasks, step_events, task_out
from wenshu.tasks.endings import TaskNotFound

router = APIRouter(prefix="/api/tasks", tags=["tasks"])


class WorkspaceTaskBody(BaseModel):
    kind: Literal["workspace"]
    workspace: str = Field(description="A folder on the server's disk; the task works on a copy of it.")
    goal: str = Field(description="What to reach, e.g. 'make the failing test pass'.")
    max_steps: int | None = Field(None, ge=1, le=100, description="Most model decisions (default: task_max_steps).")


class ResumeBody(BaseModel):
    max_steps: int | None = Field(None, ge=1, le=100)


class ApplyBody(BaseModel):
    force: bool = Field(False, description="Apply even though the tests did not pass in a clean copy.")


def manager(state) -> WorkspaceTasks:
    return state.workspace_tasks


def create(state, user, body: WorkspaceTaskBody, lang: str) -> JSONResponse:
    tasks = manager(state)
    tasks.require_admin(user)
    task = tasks.start(user.user_id, body.workspace, body.goal, body.max_steps)
    return JSONResponse(task_out(task, lang, True), status_code=202)


def find(state, user, task_id: str, lang: str) -> dict | None:
    """The user's workspace task as GET answers it, or None (then it may be a question task)."""
    tasks = manager(state)
    task = tasks.get(task_id, user.user_id)
    return None if task is None else task_out(task, lang, tasks.running(task.id))


def cancel(state, user, task_id: str, lang: str) -> dict | None:
    tasks = manager(state)
    task = tasks.get(task_id, user.user_id)
    if task is None:
        return None
    tasks.require_admin(user)
    tasks.stop(task_id)
    return task_out(task, lang, tasks.running(task_id))


def _owned(state, user, task_id: str):
    task = manager(state).get(task_id, user.user_id)
    if task is None:
        raise TaskNotFound(task_id)
    manager(state).require_admin(user)
    return task


@router.get("/{task_id}/events", operation_id="tasks_events", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}, "description": "step events, then one done"}})
async def task_events(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep) -> StreamingResponse:
    """A workspace task's steps as they are taken (those already taken first), then `done` with the task."""
    if manager(state).get(task_id, user.user_id) is None:
        raise TaskNotFound(task_id)

    async def events():
        async for kind, data in step_events(manager(state), task_id, user.user_id, lang, state.settings.sse_ping_s):
            yield PING if kind == "ping" else format_event(kind, data)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.post("/{task_id}/resume", operation_id="tasks_resume", status_code=202)
def resume_task(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep, body: ResumeBody | None = None) -> dict:
    """Continue an interrupted, failed or step-limited workspace task."""
    task = _owned(state, user, task_id)
    manager(state).resume(task, (body or ResumeBody()).max_steps)
    return task_out(manager(state).get(task_id, user.user_id), lang, True)


@router.post("/{task_id}/apply", operation_id="tasks_apply")
def apply_task(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep, body: ApplyBody | None = None) -> dict:
    """Write a solved task's changes into its folder (any ended task's with `force`)."""
    task = manager(state).apply(_owned(state, user, task_id), (body or ApplyBody()).force)
    return task_out(task, lang, False)


@router.post("/{task_id}/discard", operation_id="tasks_discard")
def discard_task(task_id: str, state: StateDep, user: CurrentUser) -> dict:
    """Remove a workspace task and its scratch copy; the folder is left as it is."""
    manager(state).discard(_owned(state, user, task_id))
    return {"task_id": task_id, "discarded": True}
