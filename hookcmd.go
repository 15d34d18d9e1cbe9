package nova

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/novacode/nova/internal/config"
)

// Command hooks: the "hooks" of the settings files, Claude Code's format
// and contract, run as HookFuncs beside the Go ones.
const (
	// hookTimeout is a command hook's time when its settings say none.
	hookTimeout = 60 * time.Second
	// hookOutputCap is how much of a hook's standard output, and of its
	// standard error, is kept; the rest is read and dropped, so that a
	// hook printing without end costs no memory.
	hookOutputCap = 1 << 20
	// hookTextCap is how much of a hook's text goes to the model or into a
	// warning (its context, a block's reason).
	hookTextCap = 10_000
	// hookWaitDelay bounds the wait for a hook's output once it has
	// exited (or been killed) while something it started holds its
	// output open.
	hookWaitDelay = time.Second
)

// commandHooks adds the hooks of the settings files to r, each keeping its
// file; what cannot run (an event or type this version does not know, a
// matcher that is no regular expression) is left out and said in notice.
func (r *hookRunner) commandHooks(files []config.File, dir string, notice *strings.Builder) {
	env := append(os.Environ(), "NOVA_PROJECT_DIR="+dir, "CLAUDE_PROJECT_DIR="+dir)
	for _, f := range files {
		events := f.Settings.Hooks
		for _, event := range sortedEvents(events) {
			if !slices.Contains(hookEvents, event) {
				fmt.Fprintf(notice, "nova: warning: settings file %s: hooks: unknown event %q; its hooks never run\n", f.Path, event)
				continue
			}
			for _, g := range events[event] {
				match, err := settingsMatcher(g.Matcher)
				if err != nil {
					fmt.Fprintf(notice, "nova: warning: settings file %s: hooks.%s: matcher %q is not a regular expression NovaCode reads (%v); its hooks never run\n", f.Path, event, g.Matcher, err)
					continue
				}
				for _, h := range g.Hooks {
					if h.Type != "command" || strings.TrimSpace(h.Command) == "" {
						fmt.Fprintf(notice, "nova: warning: settings file %s: hooks.%s: only hooks of type \"command\" with a command run; %s is left out\n", f.Path, event, hookJSON(h))
						continue
					}
					timeout := hookTimeout
					if h.Timeout > 0 {
						timeout = time.Duration(h.Timeout * float64(time.Second))
					}
					c := cmdHook{event: event, command: h.Command, dir: dir, env: env, timeout: timeout}
					r.events[event] = append(r.events[event], hookEntry{
						match: match, run: c.run, command: h.Command,
						label: fmt.Sprintf("%s hook `%s`", event, oneLine(h.Command, 80)),
						info:  HookInfo{Event: event, Matcher: g.Matcher, Command: h.Command, Timeout: timeout, Source: f.Path},
					})
				}
			}
		}
	}
}

func sortedEvents(m map[string][]config.HookGroup) []string {
	// In the order of hookEvents, then unknown names in order: the order
	// a file lists them is lost in the map, and the runs of one event do
	// not depend on other events anyway.
	var out []string
	for _, e := range hookEvents {
		if _, ok := m[e]; ok {
			out = append(out, e)
		}
	}
	var rest []string
	for e := range m {
		if !slices.Contains(hookEvents, e) {
			rest = append(rest, e)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func hookJSON(h config.HookCommand) string {
	b, _ := json.Marshal(h)
	return string(b)
}

// simpleMatcher is a matcher Claude Code compares as names: "Bash",
// "Edit|Write".
var simpleMatcher = regexp.MustCompile(`^[a-zA-Z0-9_|]+$`)

// settingsMatcher reads a matcher of the settings as Claude Code does:
// empty or "*" matches everything; names (and names joined by |) match
// exactly; anything else is a regular expression found anywhere in the
// value ("mcp__github__.*", "^Notebook").
func settingsMatcher(m string) (func(string) bool, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	if simpleMatcher.MatchString(m) {
		names := strings.Split(m, "|")
		return func(v string) bool { return slices.Contains(names, v) }, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// cmdHook is one command hook.
type cmdHook struct {
	event, command, dir string
	env                 []string
	timeout             time.Duration
}

// run runs the command with in as JSON on its standard input and reads
// its answer: exit status 0 (standard output a JSON answer, or for
// UserPromptSubmit and SessionStart context for the model), 2 (block,
// with standard error as the reason), anything else a failure reported to
// the person.
func (c cmdHook) run(ctx context.Context, in HookInput) (HookOutput, error) {
	stdin, err := json.Marshal(in)
	if err != nil {
		return HookOutput{}, err
	}
	res, err := runHookCommand(ctx, c.command, c.dir, c.env, stdin, c.timeout)
	if err != nil {
		return HookOutput{}, err
	}
	return hookAnswer(c.event, res)
}

// hookResult is how a command hook ended.
type hookResult struct {
	code           int
	stdout, stderr capped
}

// runHookCommand runs command with a shell in a process group of its own,
// killed at timeout or when ctx ends.
func runHookCommand(ctx context.Context, command, dir string, env []string, stdin []byte, timeout time.Duration) (*hookResult, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := hookShell(runCtx, command)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(stdin)
	res := &hookResult{stdout: capped{max: hookOutputCap}, stderr: capped{max: hookOutputCap}}
	cmd.Stdout, cmd.Stderr = &res.stdout, &res.stderr
	cmd.WaitDelay = hookWaitDelay
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("interrupted: %w", ctx.Err())
	case runCtx.Err() != nil:
		return nil, fmt.Errorf("did not finish within %v and was killed", timeout)
	}
	var exit *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		// Exited; something it started may still hold its output.
		res.code = cmd.ProcessState.ExitCode()
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
		if res.code < 0 {
			return nil, fmt.Errorf("ended by %v", exit.ProcessState)
		}
	default:
		return nil, fmt.Errorf("could not run: %w", err)
	}
	return res, nil
}

// hookAnswer reads a command hook's answer from how it ended.
func hookAnswer(event string, res *hookResult) (HookOutput, error) {
	switch res.code {
	case 0:
	case 2:
		reason := hookText(res.stderr.String())
		switch event {
		case HookSessionStart, HookSessionEnd, HookNotification, HookPreCompact:
			// Nothing to block: the person is told.
			return HookOutput{}, fmt.Errorf("exited with status 2: %s", cmp.Or(reason, "(nothing on standard error)"))
		}
		return HookOutput{Block: true, Reason: reason}, nil
	default:
		msg := fmt.Sprintf("exited with status %d", res.code)
		if e := hookText(res.stderr.String()); e != "" {
			msg += ": " + e
		}
		return HookOutput{}, errors.New(msg)
	}
	if res.stdout.dropped > 0 {
		return HookOutput{}, fmt.Errorf("printed more than %d bytes on standard output; its answer is ignored", hookOutputCap)
	}
	out := strings.TrimSpace(res.stdout.String())
	if strings.HasPrefix(out, "{") {
		o, err := parseHookJSON(event, []byte(out))
		if err != nil {
			return HookOutput{}, fmt.Errorf("printed JSON NovaCode cannot read on standard output (%v); it is ignored, as if the hook had not answered", err)
		}
		o.Reason, o.AdditionalContext = hookText(o.Reason), hookText(o.AdditionalContext)
		o.PermissionDecisionReason = hookText(o.PermissionDecisionReason)
		return o, nil
	}
	if event == HookUserPromptSubmit || event == HookSessionStart {
		return HookOutput{AdditionalContext: hookText(out)}, nil
	}
	return HookOutput{}, nil
}

// hookWire is a command hook's JSON answer, in Claude Code's format.
type hookWire struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	// Decision is "block" (with Reason), or PreToolUse's older "approve".
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		// Decision is PermissionRequest's answer.
		Decision *struct {
			Behavior     string          `json:"behavior"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Message      string          `json:"message"`
			Interrupt    bool            `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func parseHookJSON(event string, data []byte) (HookOutput, error) {
	var w hookWire
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&w); err != nil {
		return HookOutput{}, err
	}
	if dec.More() {
		return HookOutput{}, errors.New("more than one JSON value")
	}
	o := HookOutput{Continue: w.Continue, StopReason: w.StopReason, SuppressOutput: w.SuppressOutput,
		SystemMessage: w.SystemMessage, Reason: w.Reason}
	switch w.Decision {
	case "":
	case "block":
		o.Block = true
	case "approve":
		if event == HookPreToolUse {
			o.PermissionDecision, o.PermissionDecisionReason = "allow", w.Reason
			o.Reason = ""
		}
	default:
		return HookOutput{}, fmt.Errorf(`"decision" is %q, want "block"`, w.Decision)
	}
	h := w.HookSpecificOutput
	if h == nil {
		return o, nil
	}
	o.AdditionalContext = h.AdditionalContext
	o.PermissionDecisionReason = cmp.Or(h.PermissionDecisionReason, o.PermissionDecisionReason)
	switch h.PermissionDecision {
	case "", "allow", "deny", "ask":
		o.PermissionDecision = cmp.Or(h.PermissionDecision, o.PermissionDecision)
	default:
		return HookOutput{}, fmt.Errorf(`"permissionDecision" is %q, want "allow", "deny" or "ask"`, h.PermissionDecision)
	}
	o.UpdatedInput = h.UpdatedInput
	if d := h.Decision; d != nil {
		switch d.Behavior {
		case "allow", "deny":
			o.PermissionDecision = d.Behavior
		default:
			return HookOutput{}, fmt.Errorf(`"decision.behavior" is %q, want "allow" or "deny"`, d.Behavior)
		}
		if d.UpdatedInput != nil {
			o.UpdatedInput = d.UpdatedInput
		}
		if d.Message != "" {
			o.PermissionDecisionReason = d.Message
		}
		if d.Interrupt {
			o.Continue = new(false)
		}
	}
	if o.UpdatedInput != nil {
		if string(o.UpdatedInput) == "null" {
			o.UpdatedInput = nil
		} else if !bytes.HasPrefix(bytes.TrimSpace(o.UpdatedInput), []byte("{")) {
			return HookOutput{}, errors.New(`"updatedInput" is not a JSON object`)
		}
	}
	return o, nil
}

// hookText is a hook's text as it is passed on: trimmed, valid UTF-8, cut to
// hookTextCap characters.
func hookText(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if utf8.RuneCountInString(s) <= hookTextCap {
		return s
	}
	r := []rune(s)
	return string(r[:hookTextCap]) + fmt.Sprintf("\n[… %d more characters cut]", len(r)-hookTextCap)
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max     int
	buf     bytes.Buffer
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// oneLine shortens s to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
