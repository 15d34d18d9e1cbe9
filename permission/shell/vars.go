package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// riskyVar says why setting the environment variable name changes what a
// command runs or loads, or "". A rule for `git log` is meant for git's
// own behaviour, not for PAGER='sh -c …' git log.
func riskyVar(name string) string {
	up := strings.ToUpper(name)
	switch up {
	case "PATH", "CDPATH", "GLOBIGNORE":
		return "it changes which programs and files commands find"
	case "IFS":
		return "it changes how the shell splits words"
	case "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "SHELLOPTS", "BASHOPTS",
		"BASH_XTRACEFD", "BASH_LOADABLES_PATH", "HISTFILE", "INPUTRC", "SHELL", "TERMINFO":
		return "the shell reads or runs it"
	case "HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "GNUPGHOME":
		return "programs read their configuration (which can run commands) from it"
	case "EDITOR", "VISUAL", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESS",
		"LESSKEY", "MANOPT", "MORE", "DIFFPROG", "TERMINAL":
		return "programs run the command it names"
	case "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "RUSTC", "RUSTC_WRAPPER", "RUSTDOC", "SUDO_ASKPASS", "SSH_ASKPASS",
		"GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "TMPDIR_EXEC", "MAKE", "MAKEFLAGS",
		"MAKEFILES", "MFLAGS", "GOFLAGS", "GOTOOLCHAIN", "GOENV", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK",
		"GOINSECURE", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONPATH",
		"PYTHONINSPECT", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS",
		"NODE_PATH", "DOCKER_HOST", "KUBECONFIG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "NPM_CONFIG_REGISTRY",
		"LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER", "JULIA_DEPOT_PATH":
		return "it changes which program or code runs"
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_", "YARN_", "PNPM_", "CARGO_",
		"RUSTUP_", "PYTHON", "PERL", "RUBY", "GEM_", "BUNDLE_", "NODE_", "JAVA_", "_JAVA", "JDK_", "MAVEN_",
		"GRADLE_", "DOTNET_", "COMPOSER_", "PIP_", "UV_", "POETRY_", "CONDA", "VIRTUAL_ENV", "SSH_", "GPG_",
		"SUDO_", "DOCKER_", "KUBE", "AWS_", "MALLOC_", "GLIBC_", "LANGUAGE", "LC_", "TZDIR", "XDG_"} {
		if strings.HasPrefix(up, p) {
			return "it changes how programs behave or what they load"
		}
	}
	for _, s := range []string{"_OPTIONS", "_OPTS", "FLAGS", "_PAGER", "PAGER", "EDITOR", "_ASKPASS", "_COMMAND",
		"_CMD", "_WRAPPER", "_PATH", "_HOME", "_CONFIG", "_SHELL", "_PROGRAM", "_EXEC", "_HOOK", "_HOOKS", "_PLUGINS"} {
		if strings.HasSuffix(up, s) {
			return "it changes how programs behave or what they run"
		}
	}
	return ""
}

// harmlessSettings are values of risky variables that only make programs
// simpler: GIT_PAGER=cat git log is how models avoid a pager.
var harmlessSettings = set("PAGER=cat", "PAGER=", "GIT_PAGER=cat", "GIT_PAGER=", "MANPAGER=cat",
	"SYSTEMD_PAGER=", "SYSTEMD_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "EDITOR=true",
	"GIT_SEQUENCE_EDITOR=true", "LESS=-R", "LESS=-FRX", "LC_ALL=C", "LC_ALL=C.UTF-8", "LANG=C",
	"LC_ALL=en_US.UTF-8", "LC_COLLATE=C", "LC_MESSAGES=C", "LANGUAGE=en", "PYTHONUNBUFFERED=1",
	"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "NODE_ENV=test", "NODE_ENV=production",
	"NODE_ENV=development", "GOFLAGS=-mod=mod", "GOFLAGS=-mod=vendor", "GOFLAGS=-mod=readonly",
	"RUST_BACKTRACE=1", "RUST_BACKTRACE=full", "CARGO_TERM_COLOR=always", "CARGO_TERM_COLOR=never")

// checkAssignment judges one NAME=value given to a command or the shell.
func (z *analyzer) checkAssignment(name string, value wordInfo, hasValue bool, text string) {
	if name == "" {
		return
	}
	if hasValue && value.full && !value.dyn && harmlessSettings[name+"="+value.val] {
		return
	}
	if r := riskyVar(name); r != "" {
		z.unsafe("sets %s: %s (%s)", name, r, text)
	}
}

// assignSubs walks what runs while an assignment's value expands.
func (z *analyzer) assignSubs(as *syntax.Assign, st state) {
	if as == nil {
		return
	}
	if as.Index != nil {
		z.arith(as.Index, st)
	}
	z.wordSubs(as.Value, st)
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				z.arith(e.Index, st)
			}
			z.wordSubs(e.Value, st)
		}
	}
}

// assignVar applies a shell assignment to the state. Assignment values are
// neither split nor globbed, so a fixed value is known even with * in it.
func (z *analyzer) assignVar(st, eval state, as *syntax.Assign) state {
	if as == nil || as.Name == nil {
		return st
	}
	name := as.Name.Value
	if as.Index != nil || as.Array != nil || as.Append || as.Naked {
		return st.unknownVar(name)
	}
	if as.Value == nil {
		return st.setVar(name, varVal{known: true})
	}
	v := z.resolve(as.Value, eval)
	if !v.full {
		return st.unknownVar(name)
	}
	return st.setVar(name, varVal{known: true, val: v.val})
}

// declClause handles declare, typeset, local, export, readonly and nameref:
// a command of its own (rules name it), whose assignments set variables.
func (z *analyzer) declClause(c *syntax.DeclClause, in state) flow {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	words := []wordInfo{{text: variant, lit: variant, val: variant, full: true}}
	for _, as := range c.Args {
		z.assignSubs(as, in)
		txt := z.text(as)
		w := wordInfo{text: txt, lit: txt, val: txt, full: true}
		switch {
		case as.Naked && as.Name == nil && as.Value != nil:
			w = z.resolve(as.Value, in)
		case as.Value != nil && as.Index == nil && as.Array == nil && as.Name != nil:
			v := z.resolve(as.Value, in)
			if v.dyn {
				w.dyn, w.lit, w.full = true, txt, false
			} else {
				op := "="
				if as.Append {
					op = "+="
				}
				w.lit = as.Name.Value + op + v.lit
				w.val = w.lit
			}
		case as.Naked && as.Name != nil && as.Index == nil:
			// a bare name
		default:
			w.dyn, w.full = true, false
		}
		words = append(words, w)
	}
	idx := z.addCommand(words, nil, z.text(c))
	st := in
	flags := ""
	for _, as := range c.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			v := z.resolve(as.Value, in)
			switch {
			case !v.full:
				// declare $x may expand to any assignment or option.
				z.unsafe("%s with an argument only known at run time can set any variable: %s", variant, z.text(as))
			case strings.HasPrefix(v.val, "-") || strings.HasPrefix(v.val, "+"):
				flags += v.val[1:]
			case strings.Contains(v.val, "["):
				z.unsafe("%s %s: bash evaluates the array subscript, which can run commands", variant, v.val)
			case strings.Contains(v.val, "="):
				// declare "PATH=/x": an assignment spelled as a word.
				name, _, _ := strings.Cut(v.val, "=")
				z.checkAssignment(name, wordInfo{}, false, z.text(as))
				st = st.unknownVar(name)
			}
			continue
		}
		if as.Name == nil {
			continue
		}
		if as.Index != nil {
			z.unsafe("%s assigns an array element by subscript: %s", variant, z.text(as))
		}
		var v wordInfo
		if as.Value != nil {
			v = z.resolve(as.Value, in)
		}
		if !as.Naked || variant == "export" || strings.Contains(flags, "x") {
			z.checkAssignment(as.Name.Value, v, as.Value != nil, z.text(as))
		}
		if as.Naked {
			st = st.unknownVar(as.Name.Value)
			continue
		}
		st = z.assignVar(st, in, as)
	}
	names := 0
	for _, as := range c.Args {
		if as.Name != nil {
			names++
			if strings.Contains(flags, "p") {
				z.envRead(as.Name.Value, in) // declare -p NAME prints its value
			}
		}
	}
	if names == 0 || strings.Contains(flags, "p") {
		if names == 0 {
			z.unbounded("%s without names prints variables, the environment among them", variant)
		}
		z.sink.meta[idx].secretOut = true
	}
	if strings.Contains(flags, "n") || variant == "nameref" {
		// A nameref makes later assignments write another variable
		// (declare -n r=PATH; r=/tmp/x).
		z.unsafe("%s -n makes a variable an alias of another, hiding what later assignments set", variant)
	}
	if strings.Contains(flags, "i") {
		// Integer variables evaluate every value assigned to them as
		// arithmetic.
		z.unsafe("%s -i evaluates assigned values as arithmetic, which can run commands", variant)
	}
	if strings.Contains(flags, "f") && (variant == "export" || strings.Contains(flags, "x")) {
		z.unsafe("exports a shell function to the programs it runs")
	}
	return same(st)
}

// letClause: `let` is a command (rules name it) evaluating arithmetic.
func (z *analyzer) letClause(c *syntax.LetClause, in state) flow {
	words := []wordInfo{{text: "let", lit: "let", val: "let", full: true}}
	for _, e := range c.Exprs {
		t := z.text(e)
		words = append(words, wordInfo{text: t, lit: t, dyn: true})
	}
	z.addCommand(words, nil, z.text(c))
	st := in
	for _, e := range c.Exprs {
		z.arith(e, in)
		st = z.arithAssigned(e, st)
	}
	return same(st)
}
