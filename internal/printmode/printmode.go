// Package printmode is the non-interactive frontend: it consumes the loop's
// events and writes them for scripts and CI — plain text, one JSON result, or
// NDJSON with one object per event and a final result line.
package printmode

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/novacode/nova/event"
)

// Format is an --output-format value.
type Format string

const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat validates an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q (want text, json or stream-json)", s)
}

// Result subtypes.
const (
	SubtypeSuccess   = "success"
	SubtypeMaxTurns  = "error_max_turns"
	SubtypeError     = "error_during_execution"
	SubtypeCancelled = "cancelled"
)

// Result is the last line of stream-json and the whole of json output.
type Result struct {
	Type         string     `json:"type"`
	Subtype      string     `json:"subtype"`
	IsError      bool       `json:"is_error"`
	Result       string     `json:"result"`
	Error        string     `json:"error,omitempty"`
	NumTurns     int        `json:"num_turns"`
	DurationMS   int64      `json:"duration_ms"`
	SessionID    string     `json:"session_id"`
	Usage        Usage      `json:"usage"`
	TotalCostUSD float64    `json:"total_cost_usd"`
	ToolCalls    []ToolCall `json:"tool_calls"`
	// Sources are the pages the answer cites (citation events), each once,
	// in the order first cited.
	Sources []Source `json:"sources,omitempty"`
	// PermissionDenials lists the calls the permission chain denied, as
	// Claude Code's result does; empty, not absent, when there were none.
	// A subagent's denied calls are listed too (its work was refused as
	// much as the run's own), marked with the Task call that started it,
	// though tool_calls lists only the run's own calls.
	PermissionDenials []PermissionDenial `json:"permission_denials"`
	// Subagents are the subagents the run's own Task calls ran, in the
	// order the calls ended. What they cost is in usage and
	// total_cost_usd already; a subagent's own subagents are in its
	// figures, not listed.
	Subagents []Subagent `json:"subagents,omitempty"`
}

// PermissionDenial is one denied call in the result.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
	// ParentToolUseID and AgentID name, for a subagent's call, the Task
	// call that started the subagent and the subagent (the innermost, for
	// a subagent's subagent), as its events' lines do.
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`
	AgentID         string `json:"agent_id,omitempty"`
}

// Subagent is what a subagent did and cost, with the Task call that ran it.
type Subagent struct {
	ToolUseID string `json:"tool_use_id"`
	event.SubagentRun
}

// Usage is the run's token totals.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	// ServerToolUse counts what the provider's own tools did, billed apart
	// from tokens (in total_cost_usd): its web searches.
	ServerToolUse ServerToolUse `json:"server_tool_use,omitzero"`
}

// ServerToolUse counts the provider's own tool calls.
type ServerToolUse struct {
	WebSearchRequests int64 `json:"web_search_requests"`
}

// Source is a page the answer cites.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// ToolCall summarises one call for the result line.
type ToolCall struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input"`
	IsError    bool            `json:"is_error"`
	DurationMS int64           `json:"duration_ms"`
	// Denied marks a call the permission chain (or nobody, in print mode)
	// did not allow; Reason says why.
	Denied bool   `json:"denied,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Exit codes.
const (
	ExitOK        = 0
	ExitError     = 1
	ExitCancelled = 130 // as a shell reports SIGINT
)

// Printer writes one run's events in one format. Not safe for concurrent use:
// it is driven by the goroutine ranging over the loop.
type Printer struct {
	out       io.Writer
	errOut    io.Writer
	format    Format
	sessionID string

	calls     []ToolCall
	byID      map[string]int
	sources   []Source
	denials   []denied
	subagents []Subagent
	result    *Result
	// childCalls are subagents' calls waiting for their result, by
	// childKey: only a denied one is kept after it.
	childCalls map[string]ToolCall
}

// denied is what the summary on standard error says about one denied call.
type denied struct {
	call          ToolCall
	needsApproval bool
	suggest       []string
	mode          string
	// parent and agent are set for a subagent's call.
	parent, agent string
}

// New returns a printer for format writing to out (errors to errOut).
func New(out, errOut io.Writer, format Format, sessionID string) *Printer {
	return &Printer{out: out, errOut: errOut, format: format, sessionID: sessionID, byID: map[string]int{}, childCalls: map[string]ToolCall{}}
}

// Handle writes e (stream-json) and keeps what the result needs. A write
// error (a closed pipe) is returned so the caller can stop the loop.
//
// A subagent's events (event.Child) are written like the run's own, with
// their parent_tool_use_id; otherwise only its denied calls, retries and
// warnings count: its answer, calls and end are its parent's Task call's
// business, which reports them in that call's result.
func (p *Printer) Handle(e event.Event) error {
	switch e := e.(type) {
	case event.Child:
		p.child(e)
	case event.ToolUse:
		p.byID[e.ID] = len(p.calls)
		p.calls = append(p.calls, ToolCall{ID: e.ID, Name: e.Name, Input: validInput(e.Input)})
	case event.ToolResult:
		if i, ok := p.byID[e.ID]; ok {
			c := &p.calls[i]
			c.IsError = e.IsError
			c.DurationMS = e.DurationMS
			if e.Denied {
				c.Denied, c.Reason = true, e.Reason
				p.denials = append(p.denials, denied{call: *c, needsApproval: e.NeedsApproval, suggest: e.Suggest, mode: e.SuggestMode})
			}
		}
		if e.Subagent != nil {
			p.subagents = append(p.subagents, Subagent{ToolUseID: e.ID, SubagentRun: *e.Subagent})
		}
	case event.Citation:
		if !slices.ContainsFunc(p.sources, func(s Source) bool { return s.URL == e.URL }) {
			p.sources = append(p.sources, Source{URL: e.URL, Title: e.Title})
		}
	case event.WebSearch:
		if p.format == FormatText {
			// A line per search, beside the answer on standard output:
			// what the provider did (and billed) while it thought.
			if line := searchLine(e); line != "" {
				fmt.Fprintf(p.errOut, "nova: %s\n", line)
			}
		}
	case event.LoopComplete:
		r := p.resultOf(e)
		p.result = &r
	case event.Retry:
		// stream-json carries it as an event line; the other formats keep
		// standard output for the answer, and a wait must not look like a
		// hang.
		if p.format != FormatStreamJSON {
			fmt.Fprintf(p.errOut, "nova: %s: %s\n", e.Notice(), e.Error)
		}
	case event.Warning:
		if p.format != FormatStreamJSON {
			fmt.Fprintf(p.errOut, "nova: warning: %s\n", e.Message)
		}
	}
	if p.format == FormatStreamJSON {
		b, err := event.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode %s event: %w", e.Type(), err)
		}
		b = append(b, '\n')
		if _, err := p.out.Write(b); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
	}
	return nil
}

// child keeps what the result and standard error say of a subagent's
// event: its denied calls, and (outside stream-json, whose lines carry
// them) its retries and warnings, marked with its id.
func (p *Printer) child(c event.Child) {
	e, parent, agent := innermost(c)
	switch e := e.(type) {
	case event.ToolUse:
		p.childCalls[childKey(parent, e.ID)] = ToolCall{ID: e.ID, Name: e.Name, Input: validInput(e.Input)}
	case event.ToolResult:
		k := childKey(parent, e.ID)
		call, ok := p.childCalls[k]
		delete(p.childCalls, k)
		if !e.Denied {
			return
		}
		if !ok {
			call = ToolCall{ID: e.ID, Name: e.Name, Input: json.RawMessage("null")}
		}
		call.IsError, call.DurationMS, call.Denied, call.Reason = e.IsError, e.DurationMS, true, e.Reason
		p.denials = append(p.denials, denied{call: call, needsApproval: e.NeedsApproval, suggest: e.Suggest, mode: e.SuggestMode,
			parent: parent, agent: agent})
	case event.Retry:
		if p.format != FormatStreamJSON {
			fmt.Fprintf(p.errOut, "nova: %s: %s: %s\n", agent, e.Notice(), e.Error)
		}
	case event.Warning:
		if p.format != FormatStreamJSON {
			fmt.Fprintf(p.errOut, "nova: %s: warning: %s\n", agent, e.Message)
		}
	}
}

// innermost is the event a Child carries, however deeply nested, with the
// Task call and the subagent that produced it: the innermost Child's, as
// its stream-json line says.
func innermost(c event.Child) (e event.Event, parent, agent string) {
	for {
		inner, ok := c.Event.(event.Child)
		if !ok {
			return c.Event, c.ParentToolUseID, c.AgentID
		}
		c = inner
	}
}

// childKey keys a subagent's call: tool use ids are the model's, unique
// per conversation, and each subagent has its own.
func childKey(parent, id string) string { return parent + "\x00" + id }

// validInput keeps the result line valid JSON even when the model's
// arguments were not: it carries them as a string.
func validInput(in json.RawMessage) json.RawMessage {
	if json.Valid(in) {
		return in
	}
	b, _ := json.Marshal(string(in))
	return b
}

func (p *Printer) resultOf(e event.LoopComplete) Result {
	r := Result{
		Type: "result", Result: e.FinalText, NumTurns: e.Turns, DurationMS: e.DurationMS,
		SessionID: p.sessionID, TotalCostUSD: e.CostUSD, ToolCalls: p.calls, Sources: p.sources, Subagents: p.subagents,
		Usage: Usage{
			InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens,
			CacheReadInputTokens: e.Usage.CacheReadTokens, CacheCreationInputTokens: e.Usage.CacheWriteTokens,
			ServerToolUse: ServerToolUse{WebSearchRequests: e.Usage.WebSearchRequests},
		},
	}
	if r.ToolCalls == nil {
		r.ToolCalls = []ToolCall{}
	}
	r.PermissionDenials = p.permissionDenials()
	switch e.Reason {
	case event.ReasonDone:
		r.Subtype = SubtypeSuccess
	case event.ReasonMaxTurns:
		r.Subtype, r.IsError = SubtypeMaxTurns, true
	case event.ReasonCancelled:
		r.Subtype, r.IsError = SubtypeCancelled, true
	default:
		r.Subtype, r.IsError = SubtypeError, true
	}
	if r.IsError {
		r.Error = e.Error
	}
	return r
}

// Result is the result line of the events handled so far: what Finish
// writes in json and stream-json. Before a LoopComplete (the loop cannot
// stop without one, unless the printer itself stopped it) it is an error
// result saying so. Callers that keep results themselves (nova batch) take
// it instead of calling Finish.
func (p *Printer) Result() Result {
	if p.result != nil {
		return *p.result
	}
	return Result{Type: "result", Subtype: SubtypeError, IsError: true, Error: "the run ended without a result", SessionID: p.sessionID,
		ToolCalls: p.calls, PermissionDenials: p.permissionDenials(), Subagents: p.subagents}
}

// Finish writes the closing output and returns the process exit code.
func (p *Printer) Finish() int {
	res := p.Result()
	r := &res
	// Whatever the format: a run that "succeeded" while its edits and
	// commands were refused must not look like one that did the work.
	// Standard error is for the person; the JSON result carries the same.
	p.writeDenials()
	switch p.format {
	case FormatStreamJSON, FormatJSON:
		b, err := json.Marshal(r)
		if err == nil {
			b = append(b, '\n')
			_, err = p.out.Write(b)
		}
		if err != nil {
			fmt.Fprintf(p.errOut, "nova: could not write the result: %v\n", err)
			return ExitError
		}
	default:
		if r.Result != "" {
			fmt.Fprintln(p.out, r.Result)
			if len(r.Sources) > 0 {
				// The answer's citations, which its text does not carry.
				fmt.Fprint(p.out, "\nSources:\n")
				for i, s := range r.Sources {
					fmt.Fprintf(p.out, "[%d] %s\n", i+1, sourceLine(s))
				}
			}
		}
		if r.IsError {
			fmt.Fprintf(p.errOut, "nova: %s\n", describe(r))
		}
	}
	switch {
	case r.Subtype == SubtypeCancelled:
		return ExitCancelled
	case r.IsError:
		return ExitError
	}
	return ExitOK
}

// searchLine is the text-mode line of a web_search event, "" for none.
func searchLine(e event.WebSearch) string {
	switch e.Status {
	case event.SearchDone:
		n := len(e.Results)
		plural := "s"
		if n == 1 {
			plural = ""
		}
		return fmt.Sprintf("searched the web for %q: %d result%s", e.Query, n, plural)
	case event.SearchFailed:
		return fmt.Sprintf("web search for %q failed: %s", e.Query, e.Error)
	case event.SearchUnavailable:
		return e.Error
	}
	return ""
}

func sourceLine(s Source) string {
	if s.Title == "" {
		return s.URL
	}
	return s.Title + " — " + s.URL
}

func describe(r *Result) string {
	switch r.Subtype {
	case SubtypeCancelled:
		return "cancelled"
	case SubtypeMaxTurns:
		return r.Error
	}
	if r.Error == "" {
		return "the run failed"
	}
	return r.Error
}

func (p *Printer) permissionDenials() []PermissionDenial {
	out := []PermissionDenial{}
	for _, d := range p.denials {
		out = append(out, PermissionDenial{ToolName: d.call.Name, ToolUseID: d.call.ID, ToolInput: d.call.Input,
			ParentToolUseID: d.parent, AgentID: d.agent})
	}
	return out
}

// writeDenials tells the person which calls were denied and which flags
// would allow them next time:
//
//	nova: 2 tool calls were denied (print mode cannot ask for approval):
//	  Write hello.txt: Write changes files
//	  Bash go test ./...: running a command needs approval
//	To allow them, run again with: --permission-mode acceptEdits --allowedTools 'Bash(go test:*)'
func (p *Printer) writeDenials() {
	if len(p.denials) == 0 {
		return
	}
	var b strings.Builder
	n := len(p.denials)
	calls := "tool calls were"
	if n == 1 {
		calls = "tool call was"
	}
	why := ""
	var mode string
	var rules []string
	flagged := 0
	for _, d := range p.denials {
		if d.needsApproval {
			why = " (print mode cannot ask for approval)"
		}
		if d.mode != "" || len(d.suggest) > 0 {
			flagged++
			if d.mode != "" {
				mode = d.mode
			}
			for _, r := range d.suggest {
				if !slices.Contains(rules, r) {
					rules = append(rules, r)
				}
			}
		}
	}
	fmt.Fprintf(&b, "nova: %d %s denied%s:\n", n, calls, why)
	for _, d := range p.denials {
		reason := d.call.Reason
		if reason == "" {
			reason = "denied"
		}
		b.WriteString("  ")
		if d.agent != "" {
			b.WriteString(d.agent + ": ") // a subagent's call
		}
		fmt.Fprintf(&b, "%s %s: %s", d.call.Name, keyArgument(d.call.Input), reason)
		if d.needsApproval && d.mode == "" && len(d.suggest) == 0 {
			b.WriteString(" (no flag allows this; only a person can approve it: run nova without -p)")
		}
		b.WriteByte('\n')
	}
	if flagged > 0 {
		them := "them"
		if flagged < n {
			them = "those a flag can allow"
		}
		if n == 1 {
			them = "it"
		}
		fmt.Fprintf(&b, "To allow %s, run again with: %s\n", them, allowFlags(rules, mode))
	}
	io.WriteString(p.errOut, b.String())
}

// keyArgument is the part of a call's input a person recognises it by:
// the command, the file, the pattern; else the input itself, shortened.
func keyArgument(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) == nil {
		for _, k := range []string{"command", "file_path", "notebook_path", "path", "pattern", "url", "query"} {
			if s, ok := m[k].(string); ok && s != "" {
				return shorten(s)
			}
		}
	}
	return shorten(string(in))
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}

// allowFlags spells rules and a mode as flags, quoted for a POSIX shell
// (as the agent words them for the model; printmode imports only
// event).
func allowFlags(rules []string, mode string) string {
	var parts []string
	if mode != "" {
		parts = append(parts, "--permission-mode "+mode)
	}
	for _, r := range rules {
		parts = append(parts, "--allowedTools '"+strings.ReplaceAll(r, "'", `'\''`)+"'")
	}
	return strings.Join(parts, " ")
}
