"""Workspace tasks: a goal for a folder ("make the failing test pass", "add a CSV export with a test")
reached by a perceive -> decide -> execute -> feedback loop on a scratch copy of the folder, one structured
action at a time, and called done only when the tests pass in a clean copy (verify). The result is a diff
the user applies; test files stay as they were. docs/tasks.md describes it."""
