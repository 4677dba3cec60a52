"""The workflow verbs and the git they run: start, status, update, prepare, test, done, accept,
ensure.

Each verb is a function `verb(workspace, ...) -> VerbResult` that never prints: it returns the
outcome, the envelope's data, the hints it fired and the git facts its event records. Entry
points (the CLI, the agent hooks) render the result and record it with `record.record_verb`.
"""
