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
	sub := ""
	for _, w := range c.argv[1:] {
		if !strings.HasPrefix(w.val, "-") {
			sub = w.val
			break
		}
	}
	switch sub {
	case "env":
		for _, w := range c.argv[2:] {
			if w.val == "-w" || w.val == "-u" {
				z.unsafe("go env %s changes the configuration of every later go command: %s", w.val, c.text)
			}
		}
	case "run", "test", "generate", "tool", "build", "vet", "install":
		if sub == "build" || sub == "vet" || sub == "install" {
			return // compiles, but runs no workspace code (cgo aside)
		}
		z.projectCode("go %s runs code from the workspace", sub)
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
			}
		}
	}
}
