// Package fleet runs many agent tasks at once: a migration across many
// repositories, a nightly triage, an evaluation over a benchmark set. It is
// what `nova batch` is made of, usable from Go.
//
// A Task is one line of a JSONL task file (ParseTasks); RunTask runs one
// task as a full print-mode session — its workspace prepared (a directory,
// or a scratch clone of a git repository), a nova.Session of its own with
// its own transcript, the result collected as `nova -p --output-format
// json` collects it, the git diff taken — and returns its TaskResult: the
// print-mode result object plus the task's id (and diff).
//
// An Engine runs a list of tasks and yields their results as they end.
// Pool is the local one, a worker pool on this machine, running each task
// through RunTask; an engine on a durable workflow system (fleet/temporal)
// is another implementation of the same interface, running each task
// through the pieces RunTask is made of — Prepare, Step (one model call
// and its tools of the task's stored session) until the session ends,
// JoinSteps, Finish — so that the engine is an option and never a fork of
// the agent loop. Batch drives an engine
// for a task file: it skips the tasks a results file already holds as
// done (Results), writes each result as it ends and sums the run up.
package fleet
