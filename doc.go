// Package nova is NovaCode as a Go library: the same runtime the nova
// command runs, in-process and typed, with no subprocess. The CLI itself is
// built on this package, so a program gets everything it does: the model
// client chosen from the environment and settings, the environment block
// and memory files (AGENTS.md, NOVA.md, CLAUDE.md) at the start of the
// conversation, the built-in tools, the permission chain with its OS
// sandbox and "always" rules, transcripts that `nova --resume` continues,
// compaction, web search, and hooks.
//
// # First steps
//
// For one task, call Run (the Result) or Query (the events as they
// happen):
//
//	res, err := nova.Run(ctx, "add a unit test for the parser", nova.Options{})
//	fmt.Println(res.Text, res.CostUSD)
//
// For a conversation, Open a Session and Send prompts to it; Close it when
// done:
//
//	s, err := nova.Open(ctx, nova.Options{Dir: repo})
//	defer s.Close()
//	for ev, err := range s.Send(ctx, "why does the build fail?") { ... }
//	for ev, err := range s.Send(ctx, "fix it") { ... }
//
// The events are the structs of package event, the ones `nova -p
// --output-format stream-json` prints; the last is event.LoopComplete, and
// Session.Result sums the run up.
//
// # Options
//
// The zero Options behave as `nova` run in the current directory. The
// fields group as the CLI's flags do: where (Dir, DataDir), which model
// (Client or Provider/Model, Effort), what the model is told (SystemPrompt,
// AppendSystemPrompt, NoContext), what it may use (Tools: the built-in set,
// a subset from BuiltinTools, your own typed tools from tool.New), who
// decides (PermissionMode, Allow/Ask/Deny rules, CanUseTool for what would
// be asked of a person, Interactive for a frontend that answers the events
// itself), which settings files apply (SettingSources, TrustWorkspace,
// Trust), where the session lives (Resume, Continue, InMemory), and how
// long it runs (MaxTurns, CompactThreshold). Without CanUseTool and
// Interactive nobody is asked: calls that need approval are denied with a
// result that tells the model why, as in print mode, and
// Result.Denied lists them.
//
// Hooks runs Go functions at the events Claude Code's hooks know
// (SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
// PostToolUse, PostToolUseFailure, Notification, Stop, PreCompact,
// SessionEnd), with the same inputs and answers, beside the command hooks
// of the settings files (Session.Hooks lists them all).
//
// Call InitProcess first in main if the program runs commands under the
// OS sandbox and may have inherited open files it must not pass on.
//
// # Stability
//
// Until version 1, this package's names may still change, with a note in
// the changelog. Options fields are only ever added; the zero value of a
// new field keeps the old behaviour. The event structs (package event) and
// their JSON are the stream-json contract and change only by addition.
// Packages agent, llm, tool and permission are the parts this package is
// made of: usable directly, and more likely to change.
package nova
