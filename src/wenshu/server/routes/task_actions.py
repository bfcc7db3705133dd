"""Workspace tasks over HTTP (docs/tasks.md, docs/api.md): `POST /api/tasks` with `kind: "workspace"`
starts one (routes/tasks.py hands it here), `GET /api/tasks/{id}` polls it with its steps, `DELETE`
stops it; this router adds the list, its events, resume, apply and discard, and `GET /api/workspaces`
the folders a task may work in."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from wenshu.server.deps import CurrentUser, LangDep, StateDep
from wenshu.server.sse import PING, SSE_HEADERS, format_event, sse_route
from wenshu.server.workspace_tasks import WorkspaceTasks, step_events, task_out, task_summary
from wenshu.tasks.endings import TaskNotFound

router = APIRouter(prefix="/api/tasks", tags=["tasks"])
folders_router = APIRouter(prefix="/api/workspaces", tags=["tasks"])


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


@folders_router.get("", operation_id="workspaces_list")
def list_workspaces(state: StateDep, user: CurrentUser) -> dict:
    """The folders a workspace task (or the assistant's workspace tools) may work in: each of `workspace_roots`
    and its subfolders."""
    manager(state).require_admin(user)
    return {"folders": manager(state).roots().folders()}


@router.get("", operation_id="tasks_list")
def list_tasks(state: StateDep, user: CurrentUser, lang: LangDep,
               kind: Literal["workspace", "question", "kb_upload"] | None = None,
               limit: int = Query(50, ge=1, le=500)) -> dict:
    """The caller's tasks, newest first, without their steps, result or diff: workspace tasks (an admin's
    only; `kind=workspace` asks for them alone and is refused to others) and, in a team deployment, the
    question tasks and knowledge-base uploads queued for the workers while they are kept. In-process
    question tasks and uploads are not kept on disk and are not listed."""
    tasks = manager(state)
    if kind == "workspace":
        tasks.require_admin(user)
    items = []
    if kind in (None, "workspace") and user.is_admin:
        items += [task_summary(t, lang, tasks.running(t.id)) for t in tasks.store.list(user.user_id)[:limit]]
    if kind != "workspace" and state.queue is not None:
        items += state.queue.listed(user.user_id, lang, (kind,) if kind else ("question", "kb_upload"))
    items.sort(key=lambda t: t.get("created_at") or 0, reverse=True)
    return {"items": items[:limit]}


@router.get("/{task_id}/events", operation_id="tasks_events",
            **sse_route("decision and step events, then one done with the task"))
async def task_events(task_id: str, state: StateDep, user: CurrentUser, lang: LangDep) -> StreamingResponse:
    """A workspace task's steps as they are taken (those already taken first): `decision` when a step starts
    (action, target, reason), `step` with its result; then `done` with the task (ending, diff, verify)."""
    if manager(state).get(task_id, user.user_id) is None:
        raise TaskNotFound(task_id)

    async def events():
        async for kind, data in step_events(manager(state), task_id, user.user_id, lang, state.settings.sse_ping_s):
            yield PING if kind == "ping" else format_event(kind, data)

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


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
