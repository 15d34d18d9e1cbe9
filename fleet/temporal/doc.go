// Package temporal runs a fleet's tasks on a Temporal cluster
// (go.temporal.io/sdk): `nova batch --engine temporal` submits them (Engine,
// a fleet.Engine) and `nova worker` runs them (NewWorker), on any number of
// machines, surviving crashed workers without redoing finished work.
//
// Each task is one workflow (Workflow), its id the task's id, so that
// submitting a task twice starts nothing twice: the second submission
// collects the first one's result. The workflow runs three kinds of
// activity, each through the same fleet functions the local pool's
// fleet.RunTask is made of:
//
//   - Prepare: the task's workspace (fleet.Prepare: its cwd, or a clone
//     into a directory named after the task, so that any worker finds it);
//   - Step, again and again: one model call and its tool batch
//     (fleet.Step: the task's stored session, fleet.StepSessionID, opened
//     with MaxTurns 1 — started with the prompt, then continued). Its
//     result is written beside the session, not returned: the workflow's
//     history keeps only ids, counts and small outcomes, and continues as
//     new past StepsPerRun steps;
//   - Finish: the steps' results joined (fleet.JoinSteps), the diff of a
//     git task and the clone removed (fleet.Finish).
//
// The conversation lives in the session store, NovaCode's data directory,
// whose transcript is append-only and repaired on resume. A step retried on
// another worker after a crash continues the stored session: a model call
// whose answer was recorded is never made again, a call cut short is made
// again, and tool calls cut short come back to the model as interrupted.
// So every worker must see the same data directory (NOVA_HOME) and the same
// workspaces — a task's cwd, the scratch directory its clone is made in —
// at the same paths: shared storage, for workers on several machines.
package temporal
