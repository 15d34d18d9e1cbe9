// Package tool defines what a tool is to the agent loop: a name, a JSON
// Schema generated from a typed Go input struct, whether it only reads, what
// one call will touch (Effects) and a Run method. It also holds the registry that presents tools to models in
// both schema dialects, and the per-session state tools share (the files the
// model has read).
package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/novacode/nova/llm"
)

// Tool is one capability the model may call.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the input object.
	Schema() json.RawMessage
	// ReadOnly reports whether the tool never changes anything: no file,
	// no process, nothing on the network. The permission chain lets such
	// tools run without asking inside the workspace. Which calls run side
	// by side is decided per call from Effects (see Effector), not here.
	ReadOnly() bool
	// Run executes one call. A mistake by the model (bad input, missing file)
	// is a Result with IsError set, not a Go error; a Go error is reserved for
	// failures of the host, and the executor turns it into an error result too.
	Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error)
}

// Interactive is implemented by tools that a person answers rather than
// code (AskUserQuestion): the loop asks through an event instead of
// running them.
type Interactive interface {
	AsksUser() bool
}

// PlanApprover is implemented by a tool whose call asks a person to approve
// a plan rather than to let the call run (ExitPlanMode). The loop's
// permission request carries the plan and offers event.PlanChoices; an
// approval switches the permission mode (event.Decision.Mode; default when
// it names none) before the call runs; a run nobody can answer ends with
// the plan as its final text.
type PlanApprover interface {
	// Plan is the plan a call asks to approve, as Markdown.
	Plan(env *Env, input json.RawMessage) string
	// KeepPlanning is the call's result when the person does not approve
	// and wants more planning; feedback is what they said, if anything.
	KeepPlanning(feedback string) Result
	// Unattended is the call's result in a run nobody can answer: the run
	// ends with the plan.
	Unattended() Result
}

// Pending is a tool known by name before its definition is: a tool of an
// MCP server called while the server is still starting (Registry.SetFallback
// returns one). Whether it may run, and how, depends on the real tool, so the
// loop keeps the call's place and, once the model's answer is complete,
// decides it on the tool Resolve returns. Resolve waits (bounded by the
// tool's own limit, or until ctx ends); an error says why the call cannot
// run (no such tool, the server did not start) and reaches the model as
// "The call of NAME did not run: ERROR.", unless ctx ended.
type Pending interface {
	Tool
	Resolve(ctx context.Context) (Tool, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	Content string
	IsError bool
	// Spent, when the call ran a model of its own (a subagent), is what
	// that cost; the loop adds it to the run's totals. It is not sent to
	// the model.
	Spent *Spent
}

// Spent is what a call that ran a subagent did and cost.
type Spent struct {
	AgentID   string
	AgentType string
	Turns     int
	Usage     llm.Usage
	CostUSD   float64
	// Background: the subagent goes on after the call (its cost is
	// counted when it ends, by whoever learns of its end).
	Background bool
	Transcript string
}

// Errorf builds an error Result for the model.
func Errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Env is what a running tool may know about its surroundings.
type Env struct {
	// Dir is the workspace: relative paths resolve against it.
	Dir string
	// Files tracks what the model has read, so edits can refuse stale files.
	Files *FileState
	// Guard, if set, re-checks every file a tool has actually opened (see
	// PathGuard); nil means no re-check.
	Guard PathGuard
	// Sandbox, if set, wraps every command Bash runs (see Sandbox); nil
	// means commands run unsandboxed.
	Sandbox Sandbox
	// PassEnv names the credentials in NovaCode's environment that the
	// user lets commands see (names, or prefixes ending in *); Bash
	// withholds every other one (permission/cmdenv).
	PassEnv []string
	// Web, if set, is what WebFetch asks the permission layer (see
	// WebPolicy); nil means no host is named by a rule and a redirect to
	// another host is handed back to the model.
	Web WebPolicy
	// AskModel, if set, sends one prompt to a small, fast model and
	// returns its answer (WebFetch condenses long pages with it); nil
	// means no model is at hand.
	AskModel func(ctx context.Context, prompt string) (string, error)
	// Todos is the session's task list (TodoWrite); nil means it is not
	// kept.
	Todos *TodoList
	// PlanFile, if set, returns the session's plan file (plan mode):
	// ExitPlanMode reads the plan from it when its call carries none, and
	// keeps an approved plan there.
	PlanFile func() string
	// Mailbox is the agent's inbox (see Mailbox): background commands
	// and subagents it starts report their end there, and other agents'
	// messages arrive there. nil means nothing can run in the background.
	Mailbox *Mailbox
	// Jobs are the session's background commands (Bash with
	// run_in_background, BashOutput, KillShell); nil means commands
	// cannot run in the background.
	Jobs *Jobs
	// AgentID names the agent the tools run for: "" for the session's own
	// (main) agent, the subagent's id otherwise.
	AgentID string
	// Editor, if set, is the editor the session runs in (an ACP client
	// that offers its file system): Read, Write and Edit read and write
	// files through it, so that they see its unsaved buffers and their
	// edits land in them. Guard still judges every path before the editor
	// is asked. nil means files are read and written on disk.
	Editor EditorFS
}

// EditorFS is an editor's view of the files: open buffers as they stand,
// unsaved changes included, and the disk for the rest. Paths are absolute,
// resolved and re-checked by the path guard before they get here.
type EditorFS interface {
	// ReadTextFile returns the whole text of the file at path.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile makes content the whole text of the file at path,
	// creating it if need be.
	WriteTextFile(ctx context.Context, path, content string) error
}

// PathGuard re-checks, after the open, the file a tool really got: the
// permission check ran on the path the model named, and a symlink swapped in
// between (or a path that resolves differently than it reads) must not let a
// tool touch something the check never saw. The guard also resolves paths
// for the file tools, so that what a tool opens is named the way the guard
// judges it; permission/pathguard's Guard is the implementation (whose
// RealPath and ResolvePath a guard of one's own can use as well).
type PathGuard interface {
	// Recheck returns an error if realPath (the path of the opened file, as
	// the kernel reports it) may not be read (write false) or written.
	// approved lists the resolved paths a person or rule approved for this
	// very call (ApprovedPaths); they pass even outside the workspace.
	Recheck(realPath string, write bool, approved []string) error
	// RealPath returns the path of the open file f as the kernel names it
	// (whatever symlinks led there), for Recheck; an error if it cannot
	// tell, and the tool then refuses the file.
	RealPath(f *os.File) (string, error)
	// ResolvePath resolves every symbolic link in the absolute path p, a
	// dangling one too, the way the guard's checks do, keeping a missing
	// tail as written. File tools write to the file it names, opened
	// without following a final symlink, rather than to whatever a link at
	// p points to by then.
	ResolvePath(p string) (string, error)
}

// WalkGuard is a PathGuard that also judges the entries of a directory walk
// (Grep and Glob over a tree) without a Recheck of each: a walk opens every
// entry relative to its directory's descriptor, never following a symbolic
// link, so an entry's real path is the directory's plus its relative path,
// and what is left to judge is what that relative path and the file's link
// count say. A PathGuard without it is asked Recheck for every entry.
type WalkGuard interface {
	// RecheckWalk judges realDir (the real path of the directory a walk
	// opened) as Recheck judges a read, and returns the judge of what lies
	// below it.
	RecheckWalk(realDir string, approved []string) (WalkCheck, error)
}

// WalkCheck judges one entry below the directory a walk started at: rel is
// its slash-separated path relative to that directory, links the hard-link
// count of a file the walk has opened (0 when not known yet: the entry is
// judged before it is opened, and again once its count is known if that is
// above 1). A nil error lets the walk read a file or enter a directory. An
// alias, so that an implementation need not import this package.
type WalkCheck = func(rel string, isDir bool, links uint64) error

// Sandbox confines the processes Bash starts.
type Sandbox interface {
	// Start starts cmd inside the sandbox. cmd is complete (Path, Args,
	// Dir, Env, streams, SysProcAttr) and not started; Start may rewrite
	// it (a wrapper such as bwrap becomes the process that runs it). On an
	// error the command has not run.
	Start(cmd *exec.Cmd) error
	// Finish is called once for every command Start started, after
	// cmd.Wait has returned (also when the command was killed or
	// cancelled): the sandbox ends what the command left running and
	// undoes what it could not stop while it ran. It returns a note for
	// the model about what it undid, or "". It must finish even when ctx
	// has ended.
	Finish(ctx context.Context, cmd *exec.Cmd) string
	// Describe says in a few words what confines commands, for notices.
	Describe() string
}

type approvedKey struct{}

// WithApprovedPaths records on ctx the resolved paths approved for one call;
// the executor sets it, file tools pass it to PathGuard.Recheck.
func WithApprovedPaths(ctx context.Context, paths []string) context.Context {
	if len(paths) == 0 {
		return ctx
	}
	return context.WithValue(ctx, approvedKey{}, paths)
}

// ApprovedPaths returns what WithApprovedPaths recorded.
func ApprovedPaths(ctx context.Context) []string {
	p, _ := ctx.Value(approvedKey{}).([]string)
	return p
}

// Abs resolves p against the workspace.
func (e *Env) Abs(p string) string { return absPath(e.Dir, p) }

// Typed is a Tool whose input is decoded into In and validated against the
// schema generated from In before Fn sees it.
type Typed[In any] struct {
	ToolName string
	Desc     string
	// Reads: the tool only reads (see Tool.ReadOnly).
	Reads bool
	Fn    func(ctx context.Context, env *Env, in In) (Result, error)
	// EffectsFn, if set, says what one call will touch; nil means
	// everything may be read (Reads) or the call is exclusive.
	EffectsFn func(env *Env, in In) Effects

	schema   json.RawMessage
	resolved *jsonschema.Resolved
	required map[string]bool
}

// New builds a typed tool. The schema comes from In's fields: json tags give
// the names, fields without omitempty are required, `jsonschema:"…"` tags give
// descriptions. readOnly says the tool changes nothing (Tool.ReadOnly). enums
// may add enum constraints by property name, or by a dotted path to a
// property of nested objects ("todos.status": the status of each element
// of the todos array).
func New[In any](name, desc string, readOnly bool, enums map[string][]any, fn func(ctx context.Context, env *Env, in In) (Result, error)) *Typed[In] {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema for %T: %v", name, *new(In), err))
	}
	normalizeSchema(s)
	for prop, values := range enums {
		p := propertyAt(s, prop)
		if p == nil {
			panic(fmt.Sprintf("tool %s: enum for unknown property %q", name, prop))
		}
		p.Enum = values
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool %s: marshal schema: %v", name, err))
	}
	res, err := s.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	return &Typed[In]{ToolName: name, Desc: desc, Reads: readOnly, Fn: fn, schema: raw, resolved: res, required: required}
}

// propertyAt finds the property at a dotted path; a step into an array
// property goes on in its items. nil means there is none.
func propertyAt(s *jsonschema.Schema, path string) *jsonschema.Schema {
	for name := range strings.SplitSeq(path, ".") {
		if s.Properties == nil && s.Items != nil {
			s = s.Items
		}
		p, ok := s.Properties[name]
		if !ok {
			return nil
		}
		s = p
	}
	return s
}

// normalizeSchema makes the generated schema acceptable to every provider:
// optional slices and maps become plain arrays/objects instead of
// ["null","array"], and objects reject unknown properties so typos surface.
func normalizeSchema(s *jsonschema.Schema) {
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		normalizeSchema(p)
	}
	if s.Items != nil {
		normalizeSchema(s.Items)
	}
}

func (t *Typed[In]) Name() string            { return t.ToolName }
func (t *Typed[In]) Description() string     { return t.Desc }
func (t *Typed[In]) Schema() json.RawMessage { return t.schema }
func (t *Typed[In]) ReadOnly() bool          { return t.Reads }

// WithEffects sets what one call touches, from its decoded input; it
// returns t for chaining.
func (t *Typed[In]) WithEffects(fn func(env *Env, in In) Effects) *Typed[In] {
	t.EffectsFn = fn
	return t
}

// Effects decodes input and asks EffectsFn. Input that does not decode
// makes the call exclusive: the call will fail, but the runtime does not
// guess.
func (t *Typed[In]) Effects(env *Env, input json.RawMessage) Effects {
	if t.EffectsFn == nil {
		return defaultEffects(t.Reads)
	}
	var in In
	if len(strings.TrimSpace(string(input))) == 0 {
		input = json.RawMessage("{}")
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return Exclusive()
	}
	return t.EffectsFn(env, in)
}

// Run validates input, decodes it into In and calls Fn.
func (t *Typed[In]) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	input, err := t.check(input)
	if err != nil {
		var je jsonError
		if errors.As(err, &je) {
			return Errorf("Invalid input for %s: arguments are not valid JSON (%v). Send a JSON object matching the tool's schema.", t.ToolName, je.err), nil
		}
		return Errorf("Invalid input for %s: %v. Fix the arguments and call the tool again.", t.ToolName, err), nil
	}
	var in In
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("Invalid input for %s: %v", t.ToolName, err), nil
	}
	return t.Fn(ctx, env, in)
}

// Validate reports whether Run would accept input (see Validate).
func (t *Typed[In]) Validate(input json.RawMessage) error {
	input, err := t.check(input)
	if err != nil {
		return err
	}
	var in In
	return json.Unmarshal(input, &in)
}

type jsonError struct{ err error }

func (e jsonError) Error() string { return "not valid JSON: " + e.err.Error() }

// check validates input against the schema and returns it as Run decodes
// it.
func (t *Typed[In]) check(input json.RawMessage) (json.RawMessage, error) {
	if len(strings.TrimSpace(string(input))) == 0 {
		input = json.RawMessage("{}")
	}
	var generic any
	var err error
	if err = json.Unmarshal(input, &generic); err != nil {
		return nil, jsonError{err}
	}
	// Models often send null for an optional argument they mean to leave
	// out (OpenAI's strict mode even requires every property to be
	// present). Treat that as absent rather than failing validation.
	if obj, ok := generic.(map[string]any); ok {
		dropped := false
		for k, v := range obj {
			if v == nil && !t.required[k] {
				delete(obj, k)
				dropped = true
			}
		}
		if dropped {
			if input, err = json.Marshal(obj); err != nil {
				return nil, err
			}
		}
	}
	if err := t.resolved.Validate(generic); err != nil {
		return nil, err
	}
	return input, nil
}

// Validate checks input against what t accepts, before anything runs it
// (an input a hook rewrote): a tool with a Validate method of its own
// (Typed) decides; any other must be given a JSON object that its
// Schema accepts, where that schema can be read.
func Validate(t Tool, input json.RawMessage) error {
	if v, ok := t.(interface{ Validate(json.RawMessage) error }); ok {
		return v.Validate(input)
	}
	var generic any
	if err := json.Unmarshal(input, &generic); err != nil {
		return jsonError{err}
	}
	if _, ok := generic.(map[string]any); !ok {
		return errors.New("the arguments are not a JSON object")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(t.Schema(), &s); err != nil {
		return nil // a schema this package cannot read: the tool checks
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return res.Validate(generic)
}

// InputType is In's reflect type; useful for documentation and tests.
func (t *Typed[In]) InputType() reflect.Type { return reflect.TypeFor[In]() }
