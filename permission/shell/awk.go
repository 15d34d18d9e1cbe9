package shell

// awk: programs that may run commands or write files.

import (
	"regexp"
	"strings"
	"sync"
)

func init() {
	register(&program{check: awkCheck, rest: asRead, opts: []option{
		flags("-b --characters-as-bytes -c --traditional -C --copyright -g --gen-pot -M --bignum -N --use-lc-numeric " +
			"-n --non-decimal-data -O --optimize -P --posix -r --re-interval -s --no-optimize -S --sandbox -t --lint-old " +
			"-V --version -h --help"),
		texts("-W= -F= --field-separator= -v= --assign= -e= --source= -i= --include= -D=? --debug=? -L=? --lint=?"),
		o("-f= --file= -E= --exec=", asRun, "runs a program from a file the analyser does not read"),
		o("-l= --load=", asRun, "loads an extension the analyser does not read"),
		o("-o=? --pretty-print=? -p=? --profile=? -d=? --dump-variables=?", asWrite),
	}}, "awk")
}

// awkCheck: system(), pipes and redirections in an awk program run
// commands or write files. Conservatively any program containing system,
// |, > or getline is Unsafe (unless --sandbox), as is one from a file (-f)
// or an extension (-i, other than gawk's inplace, which edits the files).
func awkCheck(z *analyzer, c *cmd, r *tableRun) {
	sandbox := r.parsed.has("S", "sandbox")
	var progs []wordInfo
	for _, o := range r.get("e", "source") {
		if o.valIdx >= 0 {
			progs = append(progs, optValue(c, o))
		}
	}
	// --pretty-print, --profile and --dump-variables without a file write
	// awkprof.out, awkprof.out and awkvars.out.
	for _, o := range r.get("o", "pretty-print", "p", "profile", "d", "dump-variables") {
		if !o.hasVal {
			name := "awkprof.out"
			if o.name == "d" || o.name == "dump-variables" {
				name = "awkvars.out"
			}
			z.writeFile(c, wordInfo{text: name, lit: name, val: name, full: true}, false, "awk -"+o.name)
		}
	}
	for _, o := range r.get("i", "include") {
		if v := optValue(c, o); v.full && (v.val == "inplace" || v.val == "inplace.awk") {
			r.acts |= inPlace
			continue
		}
		z.unsafe("awk -%s loads a library the analyser does not read: %s", o.name, c.text)
	}
	ops := r.operands
	if len(progs) == 0 && !r.parsed.has("f", "file", "E", "exec") && len(ops) > 0 {
		c.argv[ops[0]].nonPath = true
		progs = append(progs, c.argv[ops[0]])
		ops = ops[1:]
	}
	for _, i := range ops {
		if name, _, ok := strings.Cut(c.argv[i].val, "="); ok && isName(name) {
			c.argv[i].nonPath = true // var=value operand
		}
	}
	for _, w := range progs {
		if !w.full {
			z.unsafe("awk program only known at run time: %s", w.text)
			continue
		}
		if strings.Contains(w.val, "ENVIRON") {
			z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, "ENVIRON")
		}
		if sandbox {
			continue
		}
		if strings.Contains(w.val, "system") || strings.ContainsAny(w.val, "|>") || strings.Contains(w.val, "getline") || strings.Contains(w.val, "@") {
			z.unsafe("awk program may run commands or write files (system, |, >, getline or @load): %s", w.text)
			z.awkCommands(c, w.val)
		}
	}
}

// awkRuns finds the commands an awk program runs: system("…"), print |
// "…", "…" | getline, and gawk's network files (/inet/tcp/…).
var awkRuns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`system\s*\(\s*(?:("(?:[^"\\]|\\.)*")\s*\))?|\|&?\s*("(?:[^"\\]|\\.)*")?|("(?:[^"\\]|\\.)*")?\s*\|&?\s*getline`)
})

// awkWrites finds the files an awk program writes by name: print >
// "file", printf >> "file".
var awkWrites = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bprintf?\b[^;}|]*?(>>?)\s*("(?:[^"\\]|\\.)*"|[^\s"=])`)
})

// awkCommands judges the commands an awk program runs: a literal command
// is analysed as the shell script it is (awk 'BEGIN{system("rm -rf ~")}'
// is rm -rf ~); one built at run time is hidden code; /inet/ connects to
// the network.
func (z *analyzer) awkCommands(c *cmd, prog string) {
	network := strings.Contains(prog, "/inet/")
	built := false
	// || is a logical or, not a pipe.
	for _, m := range awkRuns().FindAllStringSubmatch(strings.ReplaceAll(prog, "||", "  "), -1) {
		lit := m[1] + m[2] + m[3]
		if lit == "" {
			built = true
			continue
		}
		z.script(awkString(lit), c.st, "awk")
	}
	for _, m := range awkWrites().FindAllStringSubmatch(prog, -1) {
		if !strings.HasPrefix(m[2], `"`) {
			z.cannotBound(c, "awk writes files it names at run time")
			continue
		}
		f := awkString(m[2])
		z.writeFile(c, wordInfo{text: f, lit: f, val: f, full: true}, m[1] == ">>", "awk print >")
	}
	switch {
	case network && built:
		z.dangerous(escalates, "awk connects to the network (/inet/) and runs commands, as a reverse shell does: %s", c.text)
	case network:
		z.dangerous(leaks, "awk connects to the network (/inet/), so it can send any file away: %s", c.text)
	case built:
		z.dangerous(escalates, "awk runs commands built at run time, hidden from review: %s", c.text)
	}
}

// awkString decodes an awk string literal (with its quotes).
func awkString(lit string) string {
	lit = strings.TrimSuffix(strings.TrimPrefix(lit, `"`), `"`)
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(lit)
}
