package nova

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/rules"
	"github.com/novacode/nova/permission/sandbox"
)

// permissionInputs are the permission-related flags, shared by the root
// command and `nova permission check`.
type permissionInputs struct {
	Mode     string // "" = from settings, else default
	Allow    []string
	Ask      []string
	Deny     []string
	DebugLog io.Writer // --debug permissions; nil = off
	// Sandbox, if set, builds the OS sandbox for commands once the extra
	// directories are known; the chain trusts rules for project runners
	// only when it is active.
	Sandbox func(additional []string) (*sandbox.Sandbox, error)
	// Sandboxed, without Sandbox, tells the chain to decide as if commands
	// were fully confined (nova permission check --sandboxed).
	Sandboxed bool
	// Always are the rules the person answered "allow always" to in this
	// workspace, kept in their own settings file, AlwaysFrom
	// (config.WorkspaceRecord.Allow). They apply whether or not the
	// workspace is trusted.
	Always     []string
	AlwaysFrom string
	// DataDir is NovaCode's data directory, protected like ~/.novacode
	// wherever it lies (Options.DataDir, $NOVA_HOME).
	DataDir string
}

// buildChecker assembles the chain from the settings files (in order) and
// the flags. A malformed rule is reported on errOut with its file and
// position; the other rules still load.
func buildChecker(in permissionInputs, workspace string, files []config.File, errOut io.Writer) (*permission.Checker, *sandbox.Sandbox, error) {
	var cfg permission.Config
	cfg.Workspace = workspace
	cfg.DataDir = in.DataDir
	cfg.Home, _ = os.UserHomeDir()
	warn := func(e rules.ParseError) { fmt.Fprintf(errOut, "nova: warning: %v (rule ignored)\n", e) }
	mode := ""
	for _, f := range files {
		if len(bytes.TrimSpace(f.Data)) == 0 {
			continue // an empty file sets nothing, as config reads it
		}
		lists, perrs, err := rules.ParseJSONLists(f.Path, f.Data)
		if err != nil {
			// err names the file (and the line) already.
			return nil, nil, fmt.Errorf("settings: %w; fix or remove the file and run again", err)
		}
		for _, e := range perrs {
			warn(e)
		}
		cfg.Allow = append(cfg.Allow, lists.Allow...)
		cfg.Ask = append(cfg.Ask, lists.Ask...)
		cfg.Deny = append(cfg.Deny, lists.Deny...)
		for _, d := range lists.AdditionalDirectories {
			cfg.AdditionalDirs = append(cfg.AdditionalDirs, expandDir(d, workspace, cfg.Home))
		}
		if lists.DefaultMode != "" {
			mode = lists.DefaultMode
		}
	}
	for _, text := range in.Always {
		r, err := rules.Parse(text)
		if err != nil {
			warn(rules.ParseError{Source: rules.Source{File: in.AlwaysFrom}, Rule: text, Err: err})
			continue
		}
		r.Source = rules.Source{File: in.AlwaysFrom}
		cfg.Allow = append(cfg.Allow, r)
	}
	for _, l := range []struct {
		flag   string
		values []string
		into   *[]rules.Rule
	}{{"--allowedTools", in.Allow, &cfg.Allow}, {"--ask", in.Ask, &cfg.Ask}, {"--disallowedTools", in.Deny, &cfg.Deny}} {
		rs, perrs := rules.ParseFlagList(l.flag, l.values)
		for _, e := range perrs {
			warn(e)
		}
		*l.into = append(*l.into, rs...)
	}
	if in.Mode != "" {
		mode = in.Mode
	}
	m, err := permission.ParseMode(mode)
	if err != nil {
		return nil, nil, err
	}
	cfg.Mode = m
	var sb *sandbox.Sandbox
	if in.Sandbox != nil {
		if sb, err = in.Sandbox(cfg.AdditionalDirs); err != nil {
			return nil, nil, err
		}
		cfg.Sandboxed = sb.Kind() != sandbox.KindNone
		cfg.SandboxGap = sandboxGap(sb)
	} else {
		cfg.Sandboxed = in.Sandboxed
	}
	if in.DebugLog != nil {
		w := in.DebugLog
		cfg.Log = func(c permission.Call, d permission.Decision) {
			rule := ""
			if d.Rule != "" {
				rule = " [" + d.Rule + "]"
			}
			fmt.Fprintf(w, "nova: permission: %s %s → %s: %s%s\n", c.Tool, compact(c.Input), d.Behavior, d.Reason, rule)
		}
	}
	c, err := permission.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return c, sb, nil
}

func expandDir(d, workspace, home string) string {
	switch {
	case d == "~":
		return home
	case strings.HasPrefix(d, "~/"):
		return filepath.Join(home, d[2:])
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	}
	return filepath.Join(workspace, d)
}

func compact(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// rememberAlways is the agent's AllowAlways: the session keeps the rules,
// and the person's own settings file gets them for next time, in the
// workspace's record. Not .novacode/settings.local.json: a repository can
// ship that file, so its allow rules wait for trust, and the person's own
// answers must not.
//
// A rule that cannot be saved is the loop's warning event (it holds for the
// session all the same): every frontend shows it its own way, and none
// writes to a terminal the TUI owns.
func rememberAlways(c *permission.Checker, ws *config.Workspace) func(agent.ToolCall, permission.Decision) error {
	return func(call agent.ToolCall, d permission.Decision) error {
		var rs []rules.Rule
		var texts []string
		for _, s := range d.Suggest {
			if r, err := rules.Parse(s); err == nil {
				rs = append(rs, r)
				texts = append(texts, r.String())
			}
		}
		if len(rs) == 0 {
			return nil
		}
		c.AllowAlways(rs...)
		if err := config.RememberAllow(ws.UserPath, ws.Key, texts); err != nil {
			return fmt.Errorf("could not save %s for next time (it holds for this session): %w", strings.Join(texts, ", "), err)
		}
		return nil
	}
}

// bareNames are the plain tool names among --disallowedTools values: those
// tools are also hidden from the model.
func bareNames(values []string) []string {
	rs, _ := rules.ParseFlagList("--disallowedTools", values)
	var out []string
	for _, r := range rs {
		if r.Kind == rules.KindTool {
			out = append(out, r.Tool)
		}
	}
	return out
}

// sandboxGap is the chain's SandboxGap: what the sandbox cannot promise
// about a command that runs project code, asked each time a rule for one
// would allow it (under bubblewrap that walks the writable directories
// again for hard links: one may have been made from outside since).
func sandboxGap(sb *sandbox.Sandbox) func() string {
	return func() string {
		ctx, cancel := context.WithTimeout(context.Background(), gapTimeout)
		defer cancel()
		g := sb.Guarantees(ctx)
		if g.ConfinesProjectCode() {
			return ""
		}
		return strings.Join(g.Gaps, "; ")
	}
}

// gapTimeout bounds the wait for the sandbox's answer; past it, the
// sandbox promises nothing and the rule asks.
const gapTimeout = 30 * time.Second

// sandboxLimits is the notice, once per session, of what a sandbox that
// confines commands cannot promise whatever the workspace holds (Landlock:
// git metadata, hard links), or "".
func sandboxLimits(ctx context.Context, sb *sandbox.Sandbox) string {
	if sb.Kind() != sandbox.KindLandlock {
		return ""
	}
	return "commands run in a Landlock sandbox, but " + strings.Join(sb.Guarantees(ctx).Gaps, ", and ") +
		": rules for commands that run project code (npm test, make, …) ask instead of allowing; install bubblewrap (apt-get install bubblewrap) for a sandbox that can"
}

// sandboxMode is the "sandbox" setting, auto when unset.
func sandboxMode(s config.Settings) (sandbox.Mode, error) {
	if s.Sandbox == nil {
		return sandbox.ModeAuto, nil
	}
	m, err := sandbox.ParseMode(*s.Sandbox)
	if err != nil {
		return "", fmt.Errorf("setting \"sandbox\": %w", err)
	}
	return m, nil
}

// newSandbox sets up the OS sandbox for Bash from the "sandbox" setting.
func newSandbox(s config.Settings, workspace string, additional []string, tmp, dataDir string) (*sandbox.Sandbox, error) {
	mode, err := sandboxMode(s)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("create the sandbox's temp dir: %w", err)
	}
	return sandbox.New(mode, sandbox.Policy{Workspace: workspace, Writable: additional, TempDir: tmp, ReadOnly: []string{dataDir}})
}
