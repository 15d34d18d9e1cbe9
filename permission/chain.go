package permission

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/novacode/nova/permission/pathguard"
	"github.com/novacode/nova/permission/rules"
	"github.com/novacode/nova/permission/shell"
)

// Config is everything the chain decides with.
type Config struct {
	Mode             Mode
	Allow, Ask, Deny []rules.Rule
	// Workspace and AdditionalDirs are where file tools may go without
	// asking; Home expands "~".
	Workspace      string
	AdditionalDirs []string
	Home           string
	// DataDir is NovaCode's data directory when it is not ~/.novacode
	// (which is protected anyway): writing there is asked of a person in
	// every mode, as for $NOVA_HOME, and its settings.json is a secret.
	DataDir string
	// Sandboxed says commands run inside the OS sandbox (no writes outside
	// the workspace, no network). Rules for commands that run code the
	// project defines count only then: see unconfinedRunner.
	Sandboxed bool
	// SandboxGap, if set, is asked before such a rule is trusted while
	// Sandboxed: why the sandbox cannot confine a command that runs
	// project code right now (it cannot keep git's hooks and config
	// read-only, a file is hard-linked from outside), or "" if it can.
	SandboxGap func() string
	// Log, if set, is told every decision (--debug permissions).
	Log func(Call, Decision)
	// PlanFile is the session's plan file (an absolute path, normally
	// under the data directory): in plan mode the one file Write and Edit
	// may change, in every mode one Read may read without asking. Empty:
	// none. SetPlanFile changes it (the session switched).
	PlanFile string
}

// Checker is the permission chain of one session. Safe for concurrent use:
// the loop checks while "always allow" answers add rules.
type Checker struct {
	mu     sync.RWMutex
	cfg    Config
	guard  *pathguard.Guard
	always []rules.Rule // allowed for the rest of the session
}

// New builds a chain.
func New(cfg Config) (*Checker, error) {
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeDefault
	}
	g, err := pathguard.New(cfg.Workspace, cfg.AdditionalDirs, cfg.Home)
	if err != nil {
		return nil, fmt.Errorf("set up the path sandbox: %w", err)
	}
	g.AddDataDir(cfg.DataDir)
	return &Checker{cfg: cfg, guard: g}, nil
}

// NewChecker is the chain with bare tool-name rules only, for callers that
// have no settings (tests, embedders).
func NewChecker(mode Mode, allow, deny []string) *Checker {
	parse := func(names []string) []rules.Rule {
		var out []rules.Rule
		for _, n := range names {
			if r, err := rules.Parse(n); err == nil {
				out = append(out, r)
			}
		}
		return out
	}
	wd, _ := os.Getwd()
	c, err := New(Config{Mode: mode, Allow: parse(allow), Deny: parse(deny), Workspace: wd})
	if err != nil {
		// Only an unreadable working directory gets here; a chain that
		// asks for everything is the safe fallback.
		return &Checker{cfg: Config{Mode: ModeDefault}}
	}
	return c
}

// AdditionalDirs are the directories besides the workspace file tools may use.
func (c *Checker) AdditionalDirs() []string { return slices.Clone(c.cfg.AdditionalDirs) }

// Guard is the path sandbox, for file tools to re-check what they open.
func (c *Checker) Guard() *pathguard.Guard { return c.guard }

// Mode returns the current mode.
func (c *Checker) Mode() Mode {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cfg.Mode
}

// SetMode changes the mode (a frontend's mode switch).
func (c *Checker) SetMode(m Mode) {
	c.mu.Lock()
	c.cfg.Mode = m
	c.mu.Unlock()
}

// SetPlanFile changes the session's plan file (Config.PlanFile).
func (c *Checker) SetPlanFile(path string) {
	c.mu.Lock()
	c.cfg.PlanFile = path
	c.mu.Unlock()
}

// AllowAlways adds rules for the rest of the session.
func (c *Checker) AllowAlways(rs ...rules.Rule) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range rs {
		if !slices.ContainsFunc(c.always, func(x rules.Rule) bool { return x.String() == r.String() }) {
			c.always = append(c.always, r)
		}
	}
}

// Check decides one call: deny rules, then the hard checks (dangerous
// commands, protected and linked paths, secrets, commands the analyser
// cannot prove safe), then ask rules, then allow rules, then the mode.
func (c *Checker) Check(call Call) Decision {
	c.mu.RLock()
	d := c.decide(call)
	log := c.cfg.Log
	c.mu.RUnlock()
	if log != nil {
		log(call, d)
	}
	return d
}

// Tool families the chain knows by their conventional names and fields.
var (
	readTools  = []string{"Read", "Glob", "Grep", "LS", "NotebookRead"}
	writeTools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
)

// subject is what a call touches, as the chain sees it.
type subject struct {
	command  *shell.Analysis
	files    commandPaths     // what the command reads and writes, inspected
	paths    []pathguard.Info // files a file tool reads or writes
	write    bool
	host     string
	badInput string // arguments the chain cannot read: ask
}

func (c *Checker) subjectOf(call Call) subject {
	var in map[string]any
	if len(call.Input) > 0 {
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return subject{badInput: "its arguments are not a JSON object"}
		}
	}
	str := func(k string) (string, bool) { s, ok := in[k].(string); return s, ok }
	var s subject
	switch {
	case call.Tool == "Bash":
		cmd, ok := str("command")
		if !ok {
			return subject{badInput: "it has no command"}
		}
		s.command = shell.Analyze(cmd, shell.Options{Workspace: c.cfg.Workspace, Home: c.cfg.Home})
		s.files = c.inspectCommand(s.command)
	case slices.Contains(writeTools, call.Tool):
		p, ok := str("file_path")
		if !ok {
			p, ok = str("notebook_path")
		}
		if !ok || p == "" {
			return subject{badInput: "it names no file"}
		}
		s.write = true
		s.paths = []pathguard.Info{c.guard.Inspect(p, c.cfg.Workspace)}
	case slices.Contains(readTools, call.Tool):
		p, ok := str("file_path")
		if !ok {
			p, _ = str("path")
		}
		if p == "" {
			p = c.cfg.Workspace
		}
		s.paths = []pathguard.Info{c.guard.Inspect(p, c.cfg.Workspace)}
	case call.Tool == "WebFetch":
		raw, _ := str("url")
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return subject{badInput: "its url is not a URL"}
		}
		s.host = strings.ToLower(u.Hostname())
	}
	return s
}

func (c *Checker) decide(call Call) Decision {
	cfg := &c.cfg
	s := c.subjectOf(call)
	base := rules.Base{ProjectRoot: cfg.Workspace, Home: cfg.Home}
	d := Decision{}
	for _, p := range s.paths {
		d.Paths = append(d.Paths, p.Resolved)
	}
	if s.command != nil {
		for _, w := range s.command.Writes {
			if !w.Dynamic {
				d.Paths = append(d.Paths, c.guard.Inspect(w.Path, cfg.Workspace).Resolved)
			}
		}
		d.Paths = append(d.Paths, c.fileOperands(s.command)...)
	}
	out := func(b Behavior, reason, rule string) Decision {
		d.Behavior, d.Reason, d.Rule = b, reason, rule
		if b == Ask {
			d.Suggest = c.suggest(call, s, base)
		}
		return d
	}
	// hard asks where no allow rule can answer (Decision.NeedsPerson).
	hard := func(reason, rule string) Decision {
		d := out(Ask, reason, rule)
		d.NeedsPerson = true
		return d
	}
	// pathAsk asks about a place a rule naming it can open: a file tool's
	// Suggest names it; a command's names the command, which would not.
	pathAsk := func(reason string) Decision {
		if s.command != nil {
			return hard(reason, "")
		}
		d := out(Ask, reason, "")
		d.Hard = true
		return d
	}

	// 1. Deny rules, for every way of naming the program or file the
	// analyser can see; what it cannot resolve against them is asked.
	if r, ok := c.match(cfg.Deny, call, s, base, true); ok {
		return out(Deny, fmt.Sprintf("denied by rule %s", r), r.String())
	}
	if call.Tool == ExitPlanModeTool {
		return c.exitPlanMode()
	}
	if s.badInput != "" {
		if cfg.Mode == ModePlan && !call.ReadOnly {
			return out(Deny, c.planRefusal(call), "")
		}
		return hard(fmt.Sprintf("%s: %s", call.Tool, s.badInput), "")
	}
	// Plan mode: the plan file is the one file the model may write, and
	// nothing else that is not read-only runs, whatever the rules allow.
	if call.OnlyReads && !planReadOnly(call, s) {
		return out(Deny, c.readOnlyRefusal(call), "")
	}
	if c.isPlanFile(call, s) {
		return out(Allow, "the session's plan file", "")
	}
	if cfg.Mode == ModePlan && !planReadOnly(call, s) {
		return out(Deny, c.planRefusal(call), "")
	}
	if why := c.unresolvedByDeny(s); why != "" {
		return hard(why, "")
	}

	// 2. Hard checks: these ask whatever the rules and the mode say (an
	// explicit rule for the very path lifts the ones about secrets and
	// places outside the workspace).
	if a := s.command; a != nil {
		if a.ParseError != "" {
			return hard("the command could not be parsed: "+a.ParseError, "")
		}
		if len(a.Dangerous) > 0 {
			return hard("dangerous command: "+strings.Join(a.Dangerous, "; "), "")
		}
	}
	bypass := cfg.Mode == ModeBypass
	allowed := append(slices.Clone(c.always), cfg.Allow...)
	for _, p := range c.touched(s) {
		write := s.write || p.write
		switch {
		case p.Err != "":
			return hard(fmt.Sprintf("cannot tell where %s leads: %s", p.Input, p.Err), "")
		case write && p.Special != "":
			return hard(fmt.Sprintf("%s is %s", p.Input, p.Special), "")
		case write && p.Protected != "":
			return hard(fmt.Sprintf("writing %s: %s", p.Input, p.Protected), "")
		case write && p.maybe:
			// A program the analyser cannot bound names it: only what
			// no write may touch is asked here; the OS sandbox keeps
			// such programs inside the workspace.
		case write && p.HardLinks > 1 && !p.remove:
			return hard(fmt.Sprintf("%s has %d hard links; one may be outside the workspace", p.Input, p.HardLinks), "")
		case write && !p.Inside:
			tool := call.Tool
			if s.command != nil {
				tool = "Edit"
			}
			if _, ok := c.pathRule(allowed, tool, p.Info, base); ok {
				continue // a rule names this very place: the rules decide below
			}
			return pathAsk(fmt.Sprintf("writing %s, outside the workspace", p.Input))
		case !write && p.Secret != "":
			tool := call.Tool
			if s.command != nil {
				tool = "Read"
			}
			if r, ok := c.pathRule(allowed, tool, p.Info, base); ok {
				if s.command == nil {
					return out(Allow, fmt.Sprintf("secret %s allowed by rule %s", p.Input, r), r.String())
				}
				continue
			}
			return pathAsk(fmt.Sprintf("reading %s: %s", p.Input, p.Secret))
		case !write && !p.Inside && s.command != nil && !bypass:
			if _, ok := c.pathRule(allowed, "Read", p.Info, base); !ok {
				return hard(fmt.Sprintf("reads %s, outside the workspace", p.Input), "")
			}
		}
	}
	if why := c.treeSecrets(s); why != "" {
		return hard(why, "")
	}
	if a := s.command; a != nil && len(a.Unsafe) > 0 {
		if bypass {
			return out(Allow, "bypassPermissions mode", "")
		}
		return hard("the command cannot be checked safely: "+strings.Join(a.Unsafe, "; "), "")
	}

	// 3. Ask rules: like deny rules, one part of the call is enough.
	if r, ok := c.match(cfg.Ask, call, s, base, true); ok {
		return hard(fmt.Sprintf("rule %s asks", r), r.String())
	}

	// 4. Allow rules (including "always" answers of this session).
	allow := append(slices.Clone(c.always), cfg.Allow...)
	if r, ok := c.match(allow, call, s, base, false); ok {
		if runner, why := c.unconfinedRunner(s); runner != "" && !bypass {
			return hard(fmt.Sprintf("%q runs code the project defines (scripts, build files, tests), which an edit or the repository itself can change; "+
				"a rule allows it only while the OS sandbox confines commands fully, and %s", runner, why), r.String())
		}
		return out(Allow, fmt.Sprintf("allowed by rule %s", r), r.String())
	}

	// 5. The mode.
	d = c.byMode(call, s, out)
	if d.Behavior == Ask && s.command != nil && len(s.command.ProjectCode) > 0 && !cfg.Sandboxed {
		// The rule Suggest lists would meet the check above.
		d.NeedsPerson = true
	}
	return d
}

// touchedPath is a path a call reads or writes, with whether it writes.
type touchedPath struct {
	pathguard.Info
	write bool
	// maybe: a command the analyser cannot bound names the path; it may
	// read or write it.
	maybe bool
	// remove: the command only deletes it (rm): another name of a
	// hard-linked file is left as it was.
	remove bool
}

// touched lists what a call reads and writes: a file tool's path, or what
// a command line writes for certain, what its unbounded commands name
// (as possible writes) and what it reads.
func (c *Checker) touched(s subject) []touchedPath {
	var out []touchedPath
	for _, p := range s.paths {
		out = append(out, touchedPath{Info: p, write: s.write})
	}
	f := s.files
	for _, p := range f.writes {
		out = append(out, touchedPath{Info: p, write: true, remove: f.removes[p.Abs]})
	}
	for _, p := range f.mayWrite {
		out = append(out, touchedPath{Info: p, write: true, maybe: true})
	}
	for _, r := range f.reads {
		out = append(out, touchedPath{Info: r.Info, maybe: r.maybe})
	}
	return out
}

func (c *Checker) byMode(call Call, s subject, out func(Behavior, string, string) Decision) Decision {
	mode := c.cfg.Mode
	if mode == ModeBypass {
		return out(Allow, "bypassPermissions mode", "")
	}
	inside := true
	for _, p := range c.touched(s) {
		if p.write && !p.maybe || s.command == nil {
			inside = inside && p.Inside
		}
	}
	if s.host != "" {
		// A fetch changes nothing here but leaks its URL there: however
		// the tool describes itself, each host needs a rule or a person,
		// in plan mode too (reading the web is part of planning).
		return out(Ask, fetchReason(s.host), "")
	}
	if call.Tool == "WebSearch" {
		// The provider's own search: nothing changes here, but queries the
		// model writes from the conversation go to a search engine, and
		// each search is billed. Asked in every mode but bypass (plan
		// mode too: it changes nothing), once for the whole session.
		return out(Ask, "the model may search the web at the model provider for the rest of this session; the provider bills each search", "")
	}
	readOnly := call.ReadOnly && s.command == nil
	if a := s.command; a != nil && a.ReadOnly() {
		// A command that only reads is treated like the read-only
		// tools: no question inside the workspace, in every mode.
		if why := c.readsOutsideOrSecret(s); why != "" {
			d := out(Ask, why, "")
			d.NeedsPerson = true // a rule for the command does not lift it
			return d
		}
		return out(Allow, "read-only command inside the workspace", "")
	}
	switch {
	case readOnly && inside:
		return out(Allow, "read-only tool inside the workspace", "")
	case readOnly:
		if mode == ModePlan {
			return out(Ask, "reads outside the workspace", "")
		}
		return out(Ask, fmt.Sprintf("%s reads outside the workspace", call.Tool), "")
	case mode == ModePlan:
		return out(Deny, "plan mode allows read-only tools only", "")
	}
	if mode == ModeAcceptEdits {
		if slices.Contains(writeTools, call.Tool) && inside {
			return out(Allow, "acceptEdits mode allows file edits in the workspace", "")
		}
		if s.command != nil {
			if len(s.command.Commands) == 0 && inside && len(s.command.Writes) > 0 {
				return out(Allow, "acceptEdits mode allows writes in the workspace", "")
			}
		}
	}
	switch {
	case s.command != nil:
		d := out(Ask, "running a command needs approval", "")
		if mode == ModeDefault && len(s.command.Writes) > 0 && c.writesInside(s) {
			// A rule for the command covers its writes in the workspace
			// only where edits are allowed (writesCovered); a line of
			// redirections alone needs nothing else.
			d.SuggestMode = ModeAcceptEdits
			d.ModeSuffices = len(s.command.Commands) == 0
		}
		return d
	case !inside:
		return out(Ask, fmt.Sprintf("%s changes files outside the workspace", call.Tool), "")
	case slices.Contains(writeTools, call.Tool):
		d := out(Ask, fmt.Sprintf("%s changes files", call.Tool), "")
		if mode == ModeDefault {
			d.SuggestMode, d.ModeSuffices = ModeAcceptEdits, true
		}
		return d
	}
	return out(Ask, fmt.Sprintf("%s may change files or run commands", call.Tool), "")
}

// readsOutsideOrSecret says why a read-only command's reads need a person,
// or "": a path outside the workspace (and additional directories), one
// that cannot be resolved, a special file, a protected or secret path, or a
// tree read for contents that holds a secret (grep -r, rg).
func (c *Checker) readsOutsideOrSecret(s subject) string {
	for _, r := range s.files.reads {
		switch p := r.Info; {
		case p.Err != "":
			return fmt.Sprintf("cannot tell where %s leads: %s", p.Input, p.Err)
		case !p.Inside:
			return fmt.Sprintf("reads %s, outside the workspace", p.Input)
		case p.Special != "":
			return fmt.Sprintf("reads %s, which is %s", p.Input, p.Special)
		case p.Secret != "":
			return fmt.Sprintf("reading %s: %s", p.Input, p.Secret)
		case p.Protected != "":
			return fmt.Sprintf("reading %s: %s", p.Input, p.Protected)
		}
	}
	return c.treeSecrets(s)
}

// shellMatches keeps the matches of pattern that bash would expand to: a
// * or ? never matches a leading dot (filepath.Glob's do). A component that
// starts with a bracket keeps every match: whether [.] matches a leading
// dot is not worth guessing.
func shellMatches(pattern string, matches []string) []string {
	pp := strings.Split(pattern, string(filepath.Separator))
	var out []string
	for _, m := range matches {
		mp := strings.Split(m, string(filepath.Separator))
		keep := true
		for i := range min(len(pp), len(mp)) {
			if strings.HasPrefix(mp[i], ".") && pp[i] != "" && pp[i][0] != '.' && pp[i][0] != '[' {
				keep = false
			}
		}
		if keep {
			out = append(out, m)
		}
	}
	return out
}

// match finds the first rule of rs that covers the whole call. For a
// command, every simple command must be covered (by any rule of rs) and
// every file it writes must be covered by an Edit rule; for deny, one
// covered part is enough.
func (c *Checker) match(rs []rules.Rule, call Call, s subject, base rules.Base, any bool) (rules.Rule, bool) {
	for _, r := range rs {
		if r.Kind == rules.KindTool && r.MatchTool(call.Tool) {
			// A rule for every command covers its writes inside the
			// workspace too (it would allow `tee file` anyway); writes
			// elsewhere still need an Edit rule.
			if s.command != nil && !any && !c.writesInside(s) && !c.writesCovered(rs, s, base) {
				continue
			}
			return r, true
		}
	}
	switch {
	case s.command != nil && any:
		return c.denyMatch(rs, s, base)
	case s.command != nil:
		return c.matchCommand(rs, s, base)
	case len(s.paths) > 0:
		var first rules.Rule
		for i, p := range s.paths {
			r, ok := c.pathRule(rs, call.Tool, p, base)
			if ok && any {
				return r, true
			}
			if !ok && !any {
				return rules.Rule{}, false
			}
			if i == 0 {
				first = r
			}
		}
		return first, !any
	case s.host != "":
		for _, r := range rs {
			if r.Kind == rules.KindDomain && r.Tool == call.Tool && r.MatchDomain(s.host) {
				return r, true
			}
		}
	}
	return rules.Rule{}, false
}

// matchCommand finds the allow rule covering a whole command line: every
// simple command covered, every file it writes covered.
func (c *Checker) matchCommand(rs []rules.Rule, s subject, base rules.Base) (rules.Rule, bool) {
	a := s.command
	var first rules.Rule
	for i, cmd := range a.Commands {
		r, ok := commandRule(rs, cmd, false)
		if !ok {
			return rules.Rule{}, false
		}
		if i == 0 {
			first = r
		}
	}
	if len(a.Commands) == 0 || !c.writesCovered(rs, s, base) {
		return rules.Rule{}, false
	}
	return first, true
}

// writesInside reports whether every file a command writes is a fixed path
// inside the workspace or an additional directory.
func (c *Checker) writesInside(s subject) bool {
	for _, w := range s.command.Writes {
		if w.Dynamic || !c.guard.Inspect(w.Path, c.cfg.Workspace).Inside {
			return false
		}
	}
	return true
}

// writesCovered reports whether every file a command writes is inside the
// workspace with edits allowed by the mode, or covered by an Edit rule.
func (c *Checker) writesCovered(rs []rules.Rule, s subject, base rules.Base) bool {
	for _, w := range s.command.Writes {
		if w.Dynamic {
			return false
		}
		p := c.guard.Inspect(w.Path, c.cfg.Workspace)
		if _, ok := c.pathRule(rs, "Edit", p, base); ok {
			continue
		}
		if p.Inside && (c.cfg.Mode == ModeAcceptEdits || c.cfg.Mode == ModeBypass) {
			continue
		}
		return false
	}
	return true
}

// commandRule finds a rule covering one simple command. A command whose
// words are not all fixed strings is covered by no allow rule (its
// meaning is only known at run time) but may still hit a deny rule by its
// literal leading words.
func commandRule(rs []rules.Rule, cmd shell.Command, deny bool) (rules.Rule, bool) {
	literal := true
	n := len(cmd.Args)
	for i, dyn := range cmd.Dynamic {
		if dyn {
			literal = false
			if i < n {
				n = i
			}
		}
	}
	for _, r := range rs {
		if r.Kind != rules.KindCommand || r.Tool != "Bash" {
			continue
		}
		if literal && r.MatchCommand(cmd.Args) {
			return r, true
		}
		if deny && !literal && n > 0 && r.MatchCommand(cmd.Args[:n]) {
			return r, true
		}
		if deny && !literal && r.Prefix && n >= len(r.Words) && r.MatchCommand(cmd.Args[:n]) {
			return r, true
		}
	}
	return rules.Rule{}, false
}

func (c *Checker) pathRule(rs []rules.Rule, tool string, p pathguard.Info, base rules.Base) (rules.Rule, bool) {
	for _, r := range rs {
		if r.Kind != rules.KindPath || !rules.Covers(r.Tool, tool) {
			continue
		}
		// Both spellings: the rule may name the path as written or as
		// it resolves (a rule for a symlinked dir should match either).
		if r.MatchPath(p.Resolved, base) || (p.Abs != p.Resolved && r.MatchPath(p.Abs, base) && p.Inside) {
			return r, true
		}
	}
	return rules.Rule{}, false
}

func (c *Checker) suggest(call Call, s subject, base rules.Base) []string {
	var out []string
	add := func(r rules.Rule) {
		if t := r.String(); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	switch {
	case s.command != nil:
		for _, cmd := range s.command.Commands {
			if slices.Contains(cmd.Dynamic, true) {
				continue
			}
			add(rules.SuggestCommand(cmd.Args))
		}
	case len(s.paths) > 0:
		for _, p := range s.paths {
			add(rules.SuggestPath(call.Tool, p.Resolved, base))
		}
	case s.host != "":
		if r, err := rules.Parse(call.Tool + "(domain:" + hostRule(s.host) + ")"); err == nil {
			add(r)
		}
	default:
		if r, err := rules.Parse(call.Tool); err == nil {
			add(r)
		}
	}
	return out
}

// unconfinedRunner returns a command that runs project-defined code when
// the sandbox does not confine it, and why not; else "". Such a command's
// meaning lives in files (package.json scripts, a Makefile, conftest.py,
// build.rs, test files) that the model can edit, or that came with a
// hostile repository: an allow rule for "npm test" would otherwise be an
// allow rule for anything. Inside the OS sandbox the damage is confined to
// the workspace, so the rule holds there, as long as the sandbox also keeps
// git's hooks and config (which run outside it) and files hard-linked from
// outside read-only (SandboxGap).
func (c *Checker) unconfinedRunner(s subject) (runner, why string) {
	if s.command == nil || len(s.command.ProjectCode) == 0 {
		return "", ""
	}
	if !c.cfg.Sandboxed {
		return s.command.ProjectCode[0], "commands run outside it"
	}
	if c.cfg.SandboxGap != nil {
		if gap := c.cfg.SandboxGap(); gap != "" {
			return s.command.ProjectCode[0], gap
		}
	}
	return "", ""
}

// fileChangers are commands whose plain operands are files they delete,
// move, overwrite or create. Their operands join Decision.Paths so that the
// files' prior content can be snapshotted for rewinding; permission does not
// depend on them (the OS sandbox confines what commands write).
var fileChangers = map[string]bool{"rm": true, "unlink": true, "mv": true, "cp": true, "truncate": true, "touch": true, "install": true}

func (c *Checker) fileOperands(a *shell.Analysis) []string {
	var out []string
	for _, cmd := range a.Commands {
		if len(cmd.Args) == 0 || !fileChangers[cmd.Args[0]] {
			continue
		}
		for i, arg := range cmd.Args[1:] {
			if cmd.Dynamic[i+1] || strings.HasPrefix(arg, "-") {
				continue
			}
			if p := c.guard.Inspect(arg, c.cfg.Workspace); p.Inside && p.Err == "" {
				out = append(out, p.Resolved)
			}
		}
	}
	return out
}
