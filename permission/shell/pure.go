package shell

// Pure programs: they touch no file (echo, true, basename) or only the
// shell's own state, which the analyser follows (cd, read, unset). Their
// words are text, except cd's directory.

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func init() {
	register(&program{handler: noop, text: true, pure: true}, "echo", "true", "false", ":", "pwd", "basename",
		"dirname", "seq", "sleep", "yes", "expr", "whoami", "id", "uname", "nproc", "tty", "arch", "logname",
		"groups", "getconf", "locale", "cal", "factor", "numfmt", "which", "type", "dirs", "shift", "exit",
		"return", "break", "continue", "let", "pgrep", "uptime", "free", "umask")
	register(&program{handler: hHostname, text: true}, "hostname")
	register(&program{handler: noop, text: true, unbounded: "shows or changes the state of the shell, the terminal or the system"},
		"users", "tput", "clear", "wait", "jobs", "ulimit", "times", "help", "whereis", "caller", "disown",
		"suspend", "logout", "ps", "sync")
	register(&program{handler: printsSecrets, text: true, unbounded: "prints the environment"}, "printenv")
	register(&program{rest: asText, check: dateCheck, opts: []option{
		flags("-u --utc --universal -R --rfc-email --debug -j -n"),
		texts("-I=? --iso-8601=? --rfc-3339= -d= --date="),
		o("-s= --set=", widens, "sets the system clock"),
		o("-f= --file=", asRead),
		o("-r= --reference=", asRead),
	}}, "date")
}

// pureEffects: pure commands read no file, but a glob among their words
// lists a directory (echo ~/.ssh/*), and test names paths whose existence
// it reveals (test -f ~/.ssh/id_rsa).
func (z *analyzer) pureEffects(c *cmd) {
	for _, w := range c.argv[1:] {
		switch {
		case w.glob:
			z.readWord(c, w, Read{})
		case (c.base == "test" || c.base == "[") && w.full &&
			(strings.HasPrefix(w.val, "/") || strings.HasPrefix(w.val, "~") || hasDotDot(w.val)):
			z.readWord(c, w, Read{})
		}
	}
}

// hHostname: hostname alone prints the name; with arguments it may set it.
func hHostname(z *analyzer, c *cmd) {
	if len(c.argv) > 1 {
		z.cannotBound(c, "hostname with arguments may change the host's name")
	}
}

// dateCheck: an operand that is not a +FORMAT sets the clock (date
// 0101120020).
func dateCheck(z *analyzer, c *cmd, r *tableRun) {
	for _, i := range r.operands {
		if w := c.argv[i]; !w.full || !strings.HasPrefix(w.val, "+") {
			r.acts |= widens
			r.whyWidens = "sets the system clock"
		}
	}
}

// printsSecrets marks a command that prints the environment, tokens and
// all.
func printsSecrets(z *analyzer, c *cmd) { z.sink.meta[c.idx].secretOut = true }

// credentialPrinters are commands that print a stored credential.
var credentialPrinters = [][]string{{"gh", "auth", "token"}, {"security", "find-generic-password"},
	{"security", "find-internet-password"}, {"aws", "configure", "get"}, {"aws", "configure", "export-credentials"},
	{"gcloud", "auth", "print-access-token"}, {"gcloud", "auth", "print-identity-token"}, {"az", "account", "get-access-token"},
	{"op", "read"}, {"vault", "read"}, {"pass", "show"}, {"kubectl", "config", "view", "--raw"}, {"gpg", "--export-secret-keys"},
	{"gpg", "--export-secret-subkeys"}, {"git", "credential", "fill"}, {"heroku", "auth:token"}, {"npm", "token"}}

// printsEnvOrCredentials marks the commands that print secrets without
// reading a file: echo $TOKEN, gh auth token, gpg --export-secret-keys.
func (z *analyzer) printsEnvOrCredentials(c *cmd) {
	canon := z.sink.a.Commands[c.idx].Canon
	for _, p := range credentialPrinters {
		if len(canon) >= len(p) && slices.Equal(canon[:len(p)], p) || len(canon) > 1 && canon[0] == p[0] && p[0] == "gpg" && slices.Contains(canon, p[1]) {
			z.sink.meta[c.idx].secretOut = true
			return
		}
	}
	if c.base != "echo" && c.base != "printf" {
		return
	}
	for _, w := range c.argv[1:] {
		if w.node != nil && z.readsEnv(w.node, c.st) {
			z.sink.meta[c.idx].secretOut = true
			return
		}
	}
}

// readsEnv reports whether a word expands a variable from the environment
// other than the harmless ones.
func (z *analyzer) readsEnv(w *syntax.Word, st state) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil {
			name := p.Param.Value
			if _, set := st.vars[name]; !set && !harmlessEnv[name] && isName(name) && !strings.HasPrefix(name, "LC_") {
				found = true
			}
		}
		return !found
	})
	return found
}
