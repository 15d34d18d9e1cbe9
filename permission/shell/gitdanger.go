package shell

// git's dangerous forms: what destroys work or history (reset --hard,
// clean, push --force, reflog expire, branch -D, stash clear, a checkout
// or restore of the whole tree), and what escalates (configuration that
// names programs git runs later, configuration for every repository).

import (
	"slices"
	"strings"
)

// gitSetting is one -c key=value of a git command line.
type gitSetting struct {
	key string // lower case
	val wordInfo
}

// gitShellKeys are configuration keys whose value git runs as a shell
// command (sh -c), or as a program: setting one is running code.
// Patterns: "diff.*.command" matches any middle part.
var gitShellKeys = []string{"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass",
	"core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external", "diff.*.command",
	"diff.*.textconv", "merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process", "gpg.program",
	"gpg.*.program", "pager.*", "credential.helper", "credential.*.helper", "alias.*", "interactive.difffilter",
	"mergetool.*.cmd", "difftool.*.cmd", "tar.*.command", "uploadpack.packobjectshook", "man.*.cmd",
	"browser.*.cmd", "web.browser", "sendemail.smtpserver", "sendemail.*.smtpserver", "sendemail.tocmd",
	"sendemail.cccmd", "sendemail.headercmd", "sendemail.sendmailcmd", "remote.*.uploadpack",
	"remote.*.receivepack", "ssh.variant", "core.sshcommand"}

// gitCodeKeys are keys that make git run code from elsewhere: hooks from
// another directory, another configuration file, templates with hooks.
var gitCodeKeys = []string{"core.hookspath", "include.path", "includeif.*.path", "init.templatedir",
	"protocol.ext.allow", "protocol.allow", "core.worktree", "safe.directory"}

// matchKey reports whether a lower-case key matches one of the patterns.
func matchKey(key string, patterns []string) bool {
	kp := strings.Split(key, ".")
	for _, p := range patterns {
		pp := strings.Split(p, ".")
		switch {
		case len(pp) == 2 && pp[1] == "*":
			if len(kp) >= 2 && kp[0] == pp[0] {
				return true
			}
		case len(pp) == 3 && pp[1] == "*":
			if len(kp) >= 3 && kp[0] == pp[0] && kp[len(kp)-1] == pp[2] {
				return true
			}
		case key == p:
			return true
		}
	}
	return false
}

// gitSettingCode judges one configuration value git will run: a program
// key's value is analysed as the shell command it is (git -c
// core.pager='rm -rf ~' log is rm -rf ~); a value only known at run time is
// hidden code.
func (z *analyzer) gitSettingCode(c *cmd, s gitSetting, persistent bool) {
	shell := matchKey(s.key, gitShellKeys)
	code := matchKey(s.key, gitCodeKeys)
	if !shell && !code {
		return
	}
	what := "git -c " + s.key
	if persistent {
		what = "git config " + s.key
		z.dangerous(escalates, "git config %s sets a program git runs later, for every git command here: %s", s.key, c.text)
	}
	v := s.val
	if code && !persistent {
		z.dangerous(escalates, "%s makes git run code the analyser cannot see (hooks, other configuration): %s", what, c.text)
		return
	}
	if !v.full {
		z.dangerous(escalates, "%s sets a program git runs, only known at run time: %s", what, c.text)
		return
	}
	script := v.val
	switch {
	case strings.HasPrefix(s.key, "alias.") || strings.HasPrefix(s.key, "credential."):
		if !strings.HasPrefix(script, "!") {
			return // a git subcommand or a git-credential-* helper
		}
		script = script[1:]
	case s.key == "core.fsmonitor" && (script == "true" || script == "false"):
		return
	}
	z.script(script, c.st, what)
}

// gitDanger judges the subcommands that destroy work or history.
func (z *analyzer) gitDanger(c *cmd, sub string, args []wordInfo, settings []gitSetting) {
	has := func(names ...string) bool {
		return slices.ContainsFunc(args, func(w wordInfo) bool {
			name, _, _ := strings.Cut(w.val, "=")
			return slices.Contains(names, name)
		})
	}
	short := func(letter byte) bool {
		return slices.ContainsFunc(args, func(w wordInfo) bool { return shortFlag(w.val, letter, "") })
	}
	operands := func() []string {
		var out []string
		for _, w := range args {
			if !strings.HasPrefix(w.val, "-") || !w.full {
				out = append(out, w.val)
			}
		}
		return out
	}
	wholeTree := func() bool {
		for _, o := range operands() {
			if o == "." || o == ":/" || o == "*" || o == "./" || o == ":(top)" {
				return true
			}
			if a, ok := z.absPath(o, c.st); ok && z.opt.Workspace != "" && within(z.opt.Workspace, a) {
				return true
			}
		}
		return false
	}
	switch sub {
	case "reset":
		if has("--hard") {
			z.dangerous(destroys, "git reset --hard discards every uncommitted change: %s", c.text)
		}
	case "checkout":
		if has("-f", "--force") || wholeTree() {
			z.dangerous(destroys, "git checkout %s discards the uncommitted changes of the whole tree: %s", strings.Join(operands(), " "), c.text)
		}
	case "restore":
		staged := has("-S", "--staged") || short('S')
		worktree := has("-W", "--worktree") || short('W') || !staged
		if worktree && wholeTree() {
			z.dangerous(destroys, "git restore discards the uncommitted changes of the whole tree: %s", c.text)
		}
	case "switch":
		if has("--discard-changes", "-f", "--force") {
			z.dangerous(destroys, "git switch --discard-changes discards uncommitted changes: %s", c.text)
		}
	case "clean":
		if !has("-n", "--dry-run", "-i", "--interactive") && !short('n') && !short('i') {
			z.dangerous(destroys, "git clean deletes untracked files, which no commit can restore: %s", c.text)
		}
	case "reflog":
		if len(args) > 0 && (args[0].val == "expire" || args[0].val == "delete") {
			z.dangerous(destroys, "git reflog %s drops the record of commits nothing else points at, so they can be lost: %s", args[0].val, c.text)
		}
	case "gc":
		for _, w := range args {
			if v, ok := strings.CutPrefix(w.val, "--prune="); ok && (v == "now" || v == "all" || v == "0") {
				z.dangerous(destroys, "git gc --prune=%s deletes every unreachable commit at once: %s", v, c.text)
			}
		}
	case "prune":
		if !has("-n", "--dry-run") {
			z.dangerous(destroys, "git prune deletes unreachable commits: %s", c.text)
		}
	case "update-ref":
		if has("-d", "--delete", "--stdin") {
			z.dangerous(destroys, "git update-ref deletes or rewrites refs, losing what they pointed at: %s", c.text)
		}
	case "filter-branch", "filter-repo":
		z.dangerous(destroys, "git %s rewrites every commit of the history: %s", sub, c.text)
	case "push":
		force := has("-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "--prune") || short('f') || short('d')
		for _, o := range operands() {
			if strings.HasPrefix(o, "+") || strings.HasPrefix(o, ":") {
				force = true
			}
		}
		if force {
			z.dangerous(destroys, "git push rewrites or deletes history on the remote: %s", c.text)
		}
	case "branch":
		if has("-D") || short('D') ||
			(has("-d", "--delete", "-m", "--move") || short('d')) && (has("-f", "--force") || short('f')) ||
			(has("-f", "--force") || short('f')) && len(operands()) > 0 {
			z.dangerous(destroys, "git branch %s deletes or moves a branch, with commits no other branch holds: %s", strings.Join(operands(), " "), c.text)
		}
	case "stash":
		if len(args) > 0 && (args[0].val == "clear" || args[0].val == "drop") {
			z.dangerous(destroys, "git stash %s deletes stashed work: %s", args[0].val, c.text)
		}
	case "config":
		z.gitConfigDanger(c, args)
	}
	for _, s := range settings {
		z.gitSettingCode(c, s, false)
	}
}

// gitConfigDanger: writing the global or system configuration changes
// every repository's git; setting a key that names a program makes git
// run it later.
func (z *analyzer) gitConfigDanger(c *cmd, args []wordInfo) {
	scope, file := "", ""
	var ops []wordInfo
	reads := false
	for k := 0; k < len(args); k++ {
		a := args[k].val
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "--global" || name == "--system":
			scope = name
		case name == "--file" || name == "-f":
			file = val
			if !hasVal && k+1 < len(args) {
				k++
				file = args[k].val
			}
		case name == "--get" || name == "--get-all" || name == "--get-regexp" || name == "--get-urlmatch" ||
			name == "--get-color" || name == "--get-colorbool" || name == "-l" || name == "--list" || a == "get" || a == "list":
			reads = true
		case name == "--type" || name == "--default" || name == "--blob" || name == "--comment":
			if !hasVal {
				k++
			}
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, args[k])
		}
	}
	if reads || len(ops) == 0 && !slices.ContainsFunc(args, func(w wordInfo) bool { return w.val == "--edit" || w.val == "-e" }) {
		return
	}
	if len(ops) > 0 && (ops[0].val == "set" || ops[0].val == "unset") {
		ops = ops[1:]
	} else if len(ops) == 1 && !slices.ContainsFunc(args, func(w wordInfo) bool {
		return strings.HasPrefix(w.val, "--unset") || w.val == "--edit" || w.val == "-e" || w.val == "--add" || w.val == "--replace-all"
	}) {
		return // git config key: a read
	}
	if file != "" {
		if a, ok := z.absPath(file, c.st); ok && (z.opt.Home != "" && within(a, z.opt.Home) && !within(a, z.opt.Workspace) || within(a, "/etc")) {
			scope = "--file " + file
		}
	}
	if scope != "" {
		z.dangerous(escalates, "git config %s changes git's configuration for every repository: %s", scope, c.text)
	}
	if len(ops) >= 2 {
		z.gitSettingCode(c, gitSetting{key: strings.ToLower(ops[0].val), val: ops[1]}, true)
	}
}
