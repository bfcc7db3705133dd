"""The workspace capability: files and commands confined to one folder, for the agent's workspace
tools and workspace tasks. Paths are resolved (symlinks followed) and must stay under the root;
commands run from an allowlist as argument lists, never through a shell, with a time limit and a
scrubbed environment. It takes its limits as parameters; callers pass the settings' values."""
