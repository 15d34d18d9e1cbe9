package shell

// Package managers and build tools: what they run is defined by the workspace.

import "strings"

func init() {
	register(&program{handler: hGo, unbounded: "builds or runs code"}, "go")
	register(&program{handler: hNpm, unbounded: "builds or runs code"}, "npm", "pnpm", "yarn")
	register(&program{handler: hNpx, unbounded: "builds or runs code"}, "npx", "pnpx", "bunx")
	register(&program{handler: hMake, unbounded: "builds or runs code"}, "make")
	register(&program{handler: hCargo, unbounded: "builds or runs code"}, "cargo")
	register(&program{handler: hPip, unbounded: "builds or runs code"}, "pip")
	register(&program{handler: hBuildTool, unbounded: "builds or runs code"}, buildTools...)
	register(&program{handler: hSqlite, unbounded: "runs SQL, which can attach and write other databases"}, "sqlite3")
}

// buildTools are build and test runners: what they run is defined by the
// workspace.
var buildTools = []string{"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "karma",
	"playwright", "cypress", "rspec", "rake", "bundle", "mvn", "gradle", "ant", "sbt", "lein", "mix", "dotnet",
	"bazel", "bazelisk", "buck", "buck2", "just", "task", "ninja", "meson", "cmake", "scons", "phpunit",
	"composer", "uv", "poetry", "pipenv", "hatch", "pdm", "nx", "turbo", "lerna", "eslint", "prettier",
	"webpack", "vite", "rollup", "next", "nuxt", "pre-commit", "lefthook", "terraform", "tofu", "pulumi",
	"cdk", "ansible-playbook", "nodemon", "gulp", "grunt", "swift-build", "xcodebuild", "flutter",
	"dart", "zig", "tox4", "behave", "nosetests", "trial", "ctest", "maturin", "setup.py"}

// hBuildTool: build and test runners run code the workspace defines
// (tests, build scripts, plugin configuration).
func hBuildTool(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if !(w.val == "--version" || w.val == "-V" || w.val == "--help" || w.val == "-h" || w.val == "version" || w.val == "help") {
			z.projectCode("%s runs code defined in the workspace (tests, build scripts or configuration)", c.base)
			return
		}
	}
	if len(c.argv) == 1 {
		z.projectCode("%s runs code defined in the workspace (tests, build scripts or configuration)", c.base)
	}
}

// hGo: -exec and -toolexec run programs around every build step; go env -w
// changes the configuration of every later go command; go run/test/generate
// run workspace code.
func hGo(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := strings.TrimPrefix(w.val, "-")
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(w.val, "-") && (name == "exec" || name == "toolexec" || name == "vettool" || name == "overlay") {
			z.unsafe("go -%s runs a program the command names: %s", name, c.text)
		}
	}
	sub, subIdx := "", 0
	for i, w := range c.argv[1:] {
		if !strings.HasPrefix(w.val, "-") {
			sub, subIdx = w.val, i+1
			break
		}
	}
	if subIdx > 0 {
		c.argv[subIdx].nonPath = true // a subcommand, not a path
	}
	switch sub {
	case "env":
		for _, w := range c.argv[2:] {
			if w.val == "-w" || w.val == "-u" {
				z.unsafe("go env %s changes the configuration of every later go command: %s", w.val, c.text)
				z.dangerous(escalates, "go env %s changes the configuration of every later go command (GOFLAGS can name programs to run): %s", w.val, c.text)
			}
		}
	case "run", "test", "generate", "tool", "build", "vet", "install":
		z.goWrites(c, sub, subIdx)
		if sub == "build" || sub == "vet" || sub == "install" {
			return // compiles, but runs no workspace code (cgo aside)
		}
		z.projectCode("go %s runs code from the workspace", sub)
	}
}

// goValueFlags are the build and test flags of the go command that take a
// value (-flag value or -flag=value); goWriteFlags name a file they write,
// goDirFlags a directory.
var (
	goValueFlags = set("o", "p", "C", "asmflags", "buildmode", "buildvcs", "compiler", "gccgoflags", "gcflags",
		"installsuffix", "ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "tags", "toolexec", "exec", "coverpkg",
		"covermode", "coverprofile", "cpuprofile", "memprofile", "memprofilerate", "blockprofile", "blockprofilerate",
		"mutexprofile", "mutexprofilefraction", "trace", "outputdir", "run", "skip", "bench", "benchtime", "count",
		"cpu", "list", "parallel", "shuffle", "timeout", "vet", "fuzz", "fuzztime", "fuzzminimizetime", "vettool", "debug-actiongraph")
	goWriteFlags = set("o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace")
	goDirFlags   = set("outputdir", "pkgdir")
)

// goWrites records the files go build, test and run write: -o, the
// profiles of go test, and the test binary of go test -c.
func (z *analyzer) goWrites(c *cmd, sub string, subIdx int) {
	testBinary, named := false, false
	for i := subIdx + 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.val == "--" || w.val == "-args" || w.val == "--args" {
			break // the rest is for the test binary
		}
		if !strings.HasPrefix(w.val, "-") || !w.full && w.unknownLead {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(w.val, "-"), "-"), "=")
		if name == "c" && sub == "test" {
			testBinary = true
		}
		if !goValueFlags[name] {
			continue
		}
		v := valuePart(w, val)
		if !hasVal && i+1 < len(c.argv) {
			i++
			v = c.argv[i]
		}
		c.argv[i].nonPath = !goWriteFlags[name] && !goDirFlags[name] && name != "modfile" && name != "C"
		if goWriteFlags[name] || goDirFlags[name] {
			c.argv[i].nonPath = true
			named = named || name == "o"
			if !(sub == "run" && name == "o") {
				z.writeFile(c, v, false, "go "+sub+" -"+name)
			}
		}
	}
	if testBinary && !named {
		z.target(wordInfo{text: "*.test", val: "pkg.test", dyn: true}, c.st, false, "go test -c", "writes")
	}
}

var npmReadOnly = set("ls", "list", "ll", "la", "view", "v", "info", "show", "outdated", "search", "s", "se", "find",
	"help", "whoami", "ping", "doctor", "root", "prefix", "bin", "explain", "why", "fund", "docs", "home", "bugs", "repo",
	"audit", "licenses", "query", "-v", "--version", "-h", "--help", "get", "versions", "owner", "access", "team",
	"token", "profile", "sbom", "diff", "config", "c")

// hNpm: package scripts are workspace code; config set and --script-shell
// change what runs.
func hNpm(z *analyzer, c *cmd) {
	sub := ""
	subIdx := -1
	for i, w := range c.argv[1:] {
		if longFlag(w.val, "script-shell") || strings.HasPrefix(w.val, "--npm_config_") {
			z.unsafe("%s %s changes the shell that runs package scripts: %s", c.base, w.val, c.text)
		}
		if (w.val == "-c" || w.val == "--call" || strings.HasPrefix(w.val, "--call=")) && subIdx >= 0 && (sub == "exec" || sub == "x" || sub == "dlx") {
			z.unsafe("%s %s %s runs a shell command: %s", c.base, sub, w.val, c.text)
			if i+2 < len(c.argv) && w.val != "--call=" {
				z.scriptArg(c, c.argv[i+2], c.base+" "+sub+" -c")
			}
		}
		if sub == "" && !strings.HasPrefix(w.val, "-") {
			sub, subIdx = w.val, i+1
		}
	}
	if sub == "config" || sub == "c" || sub == "set" {
		if sub == "set" || subIdx+1 < len(c.argv) && set("set", "edit", "delete", "fix", "rm")[c.argv[subIdx+1].val] {
			z.unsafe("%s config changes the configuration of every later %s command (it can set the shell scripts run with): %s", c.base, c.base, c.text)
			z.dangerous(escalates, "%s config changes the configuration of every later %s command (its registry, the shell its scripts run with): %s", c.base, c.base, c.text)
		}
		return
	}
	if npmReadOnly[sub] && !(c.base == "yarn" && sub == "") {
		return
	}
	if sub == "" && c.base != "yarn" && len(c.argv) > 1 {
		return
	}
	what := sub
	if (sub == "run" || sub == "run-script" || sub == "rum" || sub == "urn") && subIdx+1 < len(c.argv) && !strings.HasPrefix(c.argv[subIdx+1].val, "-") {
		what += " " + c.argv[subIdx+1].val
	}
	z.projectCode("%s %s runs package scripts defined in the workspace", c.base, what)
}

func hNpx(z *analyzer, c *cmd) {
	for i, w := range c.argv[1:] {
		if w.val == "-c" || w.val == "--call" {
			z.unsafe("%s -c runs a shell command: %s", c.base, c.text)
			if i+2 < len(c.argv) {
				z.scriptArg(c, c.argv[i+2], c.base+" -c")
			}
			return
		}
		if !strings.HasPrefix(w.val, "-") {
			break
		}
	}
	z.projectCode("%s runs a package's program, from the workspace or downloaded", c.base)
}

// hMake: Makefile recipes are workspace code; variable overrides on the
// command line can change any recipe (make test CC='sh -c …'), and --eval
// adds rules.
func hMake(z *analyzer, c *cmd) {
	z.projectCode("%s runs the recipes of the workspace's Makefile", c.base)
	p := getopt(c.argv, 1, optSpec{flags: "bBdeiknpqrRsStvwh", withArg: "CfIjlEoOWL", optArg: "", long: map[string]byte{
		"eval": 'r', "file": 'r', "makefile": 'r', "directory": 'r', "include-dir": 'r', "jobs": 'o', "load-average": 'o',
		"old-file": 'r', "assume-old": 'r', "new-file": 'r', "assume-new": 'r', "what-if": 'r', "output-sync": 'o', "debug": 'o'}})
	if p.has("E", "eval") {
		z.unsafe("%s --eval adds rules from the command line: %s", c.base, c.text)
	}
	for _, i := range p.operands {
		if name, _, ok := strings.Cut(c.argv[i].val, "="); ok && name != "" && !strings.Contains(name, "/") {
			z.unsafe("%s %s overrides a variable, which can change what any recipe runs: %s", c.base, c.argv[i].val, c.text)
		}
	}
}

func hCargo(z *analyzer, c *cmd) {
	sub := ""
	for _, w := range c.argv[1:] {
		if longFlag(w.val, "config") || w.val == "-Z" {
			z.unsafe("cargo %s changes cargo's configuration, which can name programs to run: %s", w.val, c.text)
		}
		if sub == "" && !strings.HasPrefix(w.val, "-") && !strings.HasPrefix(w.val, "+") {
			sub = w.val
		}
	}
	switch sub {
	case "build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "clippy", "fix", "install",
		"publish", "package", "rustc", "rustdoc", "miri", "nextest", "llvm-cov", "tarpaulin", "fuzz", "expand":
		z.projectCode("cargo %s runs code from the workspace (build scripts, tests or the program)", sub)
	}
}

func hPip(z *analyzer, c *cmd) {
	sub := ""
	for _, w := range c.argv[1:] {
		if !strings.HasPrefix(w.val, "-") {
			sub = w.val
			break
		}
	}
	switch sub {
	case "install", "wheel", "download":
		z.projectCode("pip %s runs the build scripts of the packages it handles", sub)
	case "config":
		for _, w := range c.argv[2:] {
			if w.val == "set" || w.val == "edit" || w.val == "unset" {
				z.unsafe("pip config %s changes the configuration of every later pip command: %s", w.val, c.text)
				z.dangerous(escalates, "pip config %s changes the configuration of every later pip command (the index packages come from): %s", w.val, c.text)
			}
		}
	}
}

// hSqlite: sqlite3 DB [SQL…] opens (and may write) DB; its dot commands
// .shell and .system run programs, .load loads an extension, .output and
// .once write files. With no SQL it reads its commands from standard
// input, like an interpreter.
func hSqlite(z *analyzer, c *cmd) {
	var ops []int
	readOnly := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case w.val == "-readonly" || w.val == "--readonly":
			readOnly = true
		case w.val == "-cmd" || w.val == "--cmd" || w.val == "-init" || w.val == "--init" || w.val == "-separator" || w.val == "-nullvalue":
			if i+1 < len(c.argv) {
				i++
				c.argv[i].nonPath = true
				if w.val == "-cmd" || w.val == "--cmd" || w.val == "-init" || w.val == "--init" {
					z.sqliteCommands(c, c.argv[i])
				}
			}
		case strings.HasPrefix(w.val, "-") && w.full:
		default:
			ops = append(ops, i)
		}
	}
	if len(ops) == 0 {
		z.stdinProgram(c)
		return
	}
	db := c.argv[ops[0]]
	c.argv[ops[0]].nonPath = true
	if readOnly {
		z.checkReadPath(c, db, "sqlite3")
		z.readWord(c, db, Read{Contents: true})
	} else if db.val != ":memory:" {
		z.writeFile(c, db, false, "sqlite3")
	}
	if len(ops) == 1 {
		z.stdinProgram(c)
		return
	}
	for _, i := range ops[1:] {
		c.argv[i].nonPath = true
		z.sqliteCommands(c, c.argv[i])
	}
}

// sqliteCommands judges SQL and dot commands given on the command line.
func (z *analyzer) sqliteCommands(c *cmd, w wordInfo) {
	if !w.full {
		z.unsafe("sqlite3 commands only known at run time: %s", c.text)
		return
	}
	for _, line := range strings.Split(w.val, "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 0 || !strings.HasPrefix(f[0], ".") {
			continue
		}
		switch f[0] {
		case ".shell", ".system", ".load", ".open", ".read", ".import", ".excel", ".www":
			z.unsafe("sqlite3 %s runs a program, loads code or reaches other files: %s", f[0], c.text)
		case ".output", ".once", ".save", ".backup", ".log", ".dump":
			if len(f) > 1 {
				z.writeFile(c, wordInfo{text: f[len(f)-1], lit: f[len(f)-1], val: f[len(f)-1], full: true}, false, "sqlite3 "+f[0])
			}
		}
	}
}
