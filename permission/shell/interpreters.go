package shell

// Interpreters: inline code, in-place edits, scripts and modules.

import "strings"

func init() {
	register(&program{handler: hInterp, unbounded: "runs a program"}, "python", "perl", "ruby", "node", "php", "lua", "luajit", "Rscript", "R", "osascript", "julia",
		"tclsh", "wish", "expect", "irb", "pry", "ts-node", "tsx", "esno", "groovy", "scala", "elixir", "iex",
		"guile", "racket", "sbcl", "clisp", "ghci", "runghc", "jshell", "kotlin", "dotnet-script",
		"swift", "qjs", "gjs", "cscript", "wscript")
	register(&program{handler: hDeno, unbounded: "runs a program"}, "deno")
	register(&program{handler: hBun, unbounded: "runs a program"}, "bun")
}

// interpSpec describes an interpreter's options: which run inline code,
// which edit files in place, which load a module.
type interpSpec struct {
	opts    optSpec
	inline  []string // options whose argument (or the option) is code
	inplace []string
	module  []string // run a module found on a path that includes the workspace
	// scriptOpt: options whose argument is the script file.
	scriptOpt []string
	// noStdin: with no script the program does not read code from stdin.
	noStdin bool
}

var interpSpecs = map[string]interpSpec{
	"python": {opts: optSpec{flags: "bBdEhiIOPqRsSuvVx", withArg: "cmWX", stopAfter: "cm", posix: true,
		long: map[string]byte{"check-hash-based-pycs": 'r', "help": 'n', "version": 'n', "help-env": 'n', "help-xoptions": 'n', "help-all": 'n'}},
		inline: []string{"c"}, module: []string{"m"}},
	"perl": {opts: optSpec{flags: "acnpsStTuUvwWX", withArg: "eEIMm", optArg: "ilxCdDF0", posix: true},
		inline: []string{"e", "E"}, inplace: []string{"i"}},
	"ruby": {opts: optSpec{flags: "acdhlnpsSvwy", withArg: "eErICF", optArg: "ixW0TK", posix: true,
		long: map[string]byte{"disable": 'r', "enable": 'r', "encoding": 'r', "external-encoding": 'r', "internal-encoding": 'r', "jit": 'n', "yjit": 'n', "verbose": 'n', "version": 'n', "help": 'n', "copyright": 'n'}},
		inline: []string{"e"}, inplace: []string{"i"}},
	"node": {opts: optSpec{flags: "ichv", withArg: "eprC", posix: true,
		long: map[string]byte{"eval": 'r', "print": 'r', "require": 'r', "import": 'r', "loader": 'r', "experimental-loader": 'r',
			"env-file": 'r', "env-file-if-exists": 'r', "input-type": 'r', "conditions": 'r', "inspect": 'o', "inspect-brk": 'o',
			"title": 'r', "test": 'n', "watch": 'n', "check": 'n', "interactive": 'n', "run": 'r'}},
		inline: []string{"e", "p", "eval", "print", "run"}, module: []string{"r", "require", "import", "loader", "experimental-loader", "env-file", "env-file-if-exists"}},
	"php": {opts: optSpec{flags: "ahHilmnqsvwe", withArg: "cdfrBRESztF", posix: true},
		inline: []string{"r", "B", "R", "E"}, scriptOpt: []string{"f", "F"}},
	"lua":       {opts: optSpec{flags: "ivEW", withArg: "el", posix: true}, inline: []string{"e"}, module: []string{"l"}},
	"luajit":    {opts: optSpec{flags: "ivEbd", withArg: "elOjb", posix: true}, inline: []string{"e"}, module: []string{"l"}},
	"Rscript":   {opts: optSpec{flags: "", withArg: "e", posix: true, long: map[string]byte{"default-packages": 'r', "verbose": 'n', "vanilla": 'n', "no-environ": 'n', "help": 'n', "version": 'n'}}, inline: []string{"e"}},
	"R":         {opts: optSpec{flags: "fqs", withArg: "egd", posix: true, long: map[string]byte{"file": 'r', "vanilla": 'n', "no-save": 'n', "slave": 'n', "quiet": 'n', "silent": 'n', "args": 'n'}}, inline: []string{"e"}, scriptOpt: []string{"f", "file"}},
	"osascript": {opts: optSpec{flags: "is", withArg: "elo", posix: true}, inline: []string{"e"}},
	"julia":     {opts: optSpec{flags: "hvqi", withArg: "eEpLJCtO", posix: true, long: map[string]byte{"eval": 'r', "print": 'r', "load": 'r', "project": 'o', "threads": 'r', "startup-file": 'r', "history-file": 'r', "banner": 'r', "color": 'r', "sysimage": 'r', "procs": 'r'}}, inline: []string{"e", "E", "eval", "print"}, module: []string{"L", "load"}},
	"expect":    {opts: optSpec{flags: "dDinNv", withArg: "cfb", posix: true}, inline: []string{"c"}, scriptOpt: []string{"f"}},
	"groovy":    {opts: optSpec{flags: "dhnpv", withArg: "ecil", posix: true}, inline: []string{"e"}},
	"elixir":    {opts: optSpec{withArg: "er", posix: true, long: map[string]byte{"eval": 'r', "rpc-eval": 'r', "require": 'r', "pa": 'r', "pz": 'r', "app": 'r', "no-halt": 'n', "sname": 'r', "name": 'r', "cookie": 'r', "werl": 'n', "hidden": 'n'}}, inline: []string{"e", "eval", "rpc-eval"}, module: []string{"r", "require"}},
	"guile":     {opts: optSpec{flags: "hvqs", withArg: "celLx", posix: true}, inline: []string{"c", "e"}, module: []string{"l", "L"}},
	"racket":    {opts: optSpec{flags: "ivh", withArg: "eftlrpkm", posix: true}, inline: []string{"e"}, module: []string{"f", "t", "l", "r", "p"}},
	"sbcl":      {opts: optSpec{posix: true, long: map[string]byte{"eval": 'r', "load": 'r', "script": 'r', "non-interactive": 'n', "noinform": 'n', "core": 'r', "dynamic-space-size": 'r'}}, inline: []string{"eval"}, module: []string{"load", "script"}},
	"scala":     {opts: optSpec{withArg: "ecp", posix: true}, inline: []string{"e"}},
	"swift":     {opts: optSpec{posix: true}, noStdin: true},
	"kotlin":    {opts: optSpec{withArg: "e", posix: true}, inline: []string{"e"}},
	"jshell":    {opts: optSpec{posix: true}},
	"ghci":      {opts: optSpec{withArg: "e", posix: true}, inline: []string{"e"}},
	"qjs":       {opts: optSpec{flags: "hiImq", withArg: "eI", posix: true, long: map[string]byte{"eval": 'r', "include": 'r', "std": 'n', "module": 'n', "script": 'n'}}, inline: []string{"e", "eval"}},
}

// hInterp: inline code (-e, -c) and in-place edits are Unsafe; a script
// file is ProjectCode; no script means the program comes from standard
// input.
func hInterp(z *analyzer, c *cmd) {
	spec, ok := interpSpecs[c.base]
	if !ok {
		spec = interpSpec{opts: optSpec{posix: true}}
	}
	p := getopt(c.argv, 1, spec.opts)
	if p.dynOpt {
		z.unsafe("%s with an option only known at run time: %s", c.base, c.text)
	}
	inline := false
	// Modules loaded on the command line (perl -MSocket, ruby -rsocket)
	// are part of the code.
	modules := ""
	for _, o := range p.opts {
		if (o.name == "M" || o.name == "m" && c.base == "perl" || o.name == "r" && c.base == "ruby") && o.hasVal {
			modules += "use " + o.val + "; require '" + o.val + "'\n"
		}
	}
	for _, o := range p.opts {
		switch {
		case contains(spec.inline, o.name):
			inline = true
			z.unsafe("%s -%s runs code given on the command line: %s", c.base, o.name, c.text)
			if o.valIdx >= 0 {
				z.inlineArg(c, optValue(c, o), modules)
				c.argv[o.valIdx].nonPath = true
			}
		case contains(spec.inplace, o.name):
			z.unsafe("%s -%s edits files in place: %s", c.base, o.name, c.text)
		case contains(spec.module, o.name):
			z.projectCode("%s -%s %s loads code that the workspace may provide", c.base, o.name, o.val)
			if c.base == "python" && (o.val == "http.server" || o.val == "SimpleHTTPServer") {
				z.servesFiles(c, p.operands)
			}
			if o.name == "m" || o.name == "r" || o.name == "require" || o.name == "import" {
				inline = true // python -m runs a module instead of a script
			}
		case contains(spec.scriptOpt, o.name):
			inline = true
			if o.valIdx >= 0 {
				z.scriptFile(c, c.argv[o.valIdx])
			}
		case o.name == "i" && (c.base == "python" || c.base == "node" || c.base == "lua" || c.base == "php"):
			z.stdinProgram(c)
			inline = true
		}
	}
	if edits := p.get(spec.inplace...); len(edits) > 0 {
		// perl -i and ruby -i rewrite the files after the script (and
		// keep backups with -i.bak).
		files := p.operands
		if !inline && len(files) > 0 {
			files = files[1:]
		}
		suffix := edits[len(edits)-1].val
		for _, i := range files {
			w := c.argv[i]
			c.argv[i].nonPath = true
			z.writeFile(c, w, false, c.base+" -i")
			if suffix != "" && !strings.ContainsAny(suffix, "*/") && w.full {
				b := w
				b.val += suffix
				b.lit, b.text = b.val, b.text+suffix
				z.writeFile(c, b, false, c.base+" -i")
			}
		}
	}
	if inline {
		return
	}
	if len(p.operands) == 0 && p.has("version", "help", "V", "h") || len(p.operands) == 0 && c.base != "python" && p.has("v") {
		return // prints its version or help
	}
	if len(p.operands) == 0 {
		if !spec.noStdin {
			z.stdinProgram(c)
		}
		return
	}
	z.scriptFile(c, c.argv[p.operands[0]])
}

// inlineArg judges the code an interpreter is given on the command line:
// a download or decoded text run as code, code only known at run time, or
// what the code itself does.
func (z *analyzer) inlineArg(c *cmd, w wordInfo, modules string) {
	switch {
	case w.subDownload:
		z.dangerous(escalates, "%s runs code it downloads: %s", c.base, c.text)
	case w.subDecode:
		z.dangerous(escalates, "%s runs decoded code, hidden from review: %s", c.base, c.text)
	case !w.full:
		z.dangerous(escalates, "%s runs code only known at run time, hidden from review: %s", c.base, c.text)
	default:
		z.inlineCode(c.base, modules+w.val, c.text, c.st)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// hDeno: deno eval CODE is inline code; deno run/test/task run workspace
// or remote code.
func hDeno(z *analyzer, c *cmd) {
	if len(c.argv) < 2 {
		z.stdinProgram(c)
		return
	}
	sub := c.argv[1]
	switch sub.val {
	case "eval":
		z.unsafe("deno eval runs code given on the command line: %s", c.text)
		if len(c.argv) > 2 {
			z.inlineArg(c, c.argv[len(c.argv)-1], "")
		}
	case "repl":
		z.stdinProgram(c)
	case "run", "test", "task", "bench", "serve", "compile", "install":
		for _, w := range c.argv[2:] {
			if strings.Contains(w.val, "://") && !strings.HasPrefix(w.val, "-") {
				z.unsafe("deno %s runs code from the network: %s", sub.val, w.val)
			}
		}
		z.projectCode("deno %s runs code from the workspace", sub.val)
	default:
		if !strings.HasPrefix(sub.val, "-") {
			z.projectCode("deno runs %s", sub.val)
		}
	}
}

// hBun: bun -e is inline code; bun run/test/x/install and bun FILE run
// workspace (or package) code.
func hBun(z *analyzer, c *cmd) {
	for k := 1; k < len(c.argv); k++ {
		w := c.argv[k]
		if w.val == "-e" || w.val == "--eval" || w.val == "-p" || w.val == "--print" || strings.HasPrefix(w.val, "--eval=") || strings.HasPrefix(w.val, "--print=") {
			z.unsafe("bun %s runs code given on the command line: %s", w.val, c.text)
			if _, v, ok := strings.Cut(w.val, "="); ok {
				z.inlineArg(c, valuePart(w, v), "")
			} else if k+1 < len(c.argv) {
				z.inlineArg(c, c.argv[k+1], "")
			}
			return
		}
	}
	if len(c.argv) < 2 {
		z.stdinProgram(c)
		return
	}
	switch sub := c.argv[1].val; sub {
	case "run", "test", "x", "install", "i", "add", "build", "create", "pm", "exec", "update", "link":
		z.projectCode("bun %s runs package scripts or code from the workspace", sub)
	case "repl":
		z.stdinProgram(c)
	default:
		if !strings.HasPrefix(sub, "-") {
			z.projectCode("bun runs %s", sub)
		}
	}
}

// servesFiles: python -m http.server publishes a directory (-d, or the
// working directory) to the network; a home directory or a secret one
// leaks.
func (z *analyzer) servesFiles(c *cmd, operands []int) {
	dir := c.st.cwd
	for k, i := range operands {
		w := c.argv[i]
		c.argv[i].nonPath = true
		v, ok := strings.CutPrefix(w.val, "--directory=")
		if !ok && (w.val == "-d" || w.val == "--directory") && k+1 < len(operands) {
			v, ok = c.argv[operands[k+1]].val, true
		}
		if ok {
			if a, ok := z.absPath(v, c.st); ok {
				dir = a
			}
		}
	}
	if dir == "" {
		return
	}
	if z.homeOf(dir) == dir || z.secretPath(dir) != "" || dir == "/" {
		z.dangerous(leaks, "%s serves %s to the network, secrets and all: %s", c.base, dir, c.text)
	}
}
