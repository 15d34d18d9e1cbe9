package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A varClass is a family of environment variables that change what a
// program runs, loads, trusts or writes, and why. A name belongs to it when
// it is one of names, starts with one of prefixes or ends with one of
// suffixes. Names are upper case, as programs on Unix read them; a class
// whose programs also read lower-case spellings (http_proxy, npm's
// npm_config_*) says so with anyCase.
type varClass struct {
	why                       string
	names, prefixes, suffixes []string
	anyCase                   bool
}

func (c *varClass) match(up string) bool {
	if slices.Contains(c.names, up) {
		return true
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, s := range c.suffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// riskyVars are the families of variables a command line may not set
// without asking: a rule for `git log` is meant for git's own behaviour, not
// for PAGER='sh -c …' git log, and `zip -r a.zip src` is harmless until
// ZIPOPT adds -TT. The rule behind every family is the same: the variable
// names a program to run, code or a library to load, options or a
// configuration file (which can name programs), where programs are looked
// up, what a tool downloads or trusts, or a file a program writes. The
// prefixes and suffixes are conventions (*_OPTIONS, *_COMMAND, *_PATH,
// NODE_*) so that variables nobody listed yet are caught too; the price is
// a question for a harmless one, which harmlessSettings can answer.
var riskyVars = []varClass{
	// Where the shell and programs look up commands and files, and where
	// `cd -` goes (OLDPWD).
	{why: "it changes which programs and files commands find",
		names:    []string{"PATH", "CDPATH", "GLOBIGNORE", "EXECIGNORE", "FPATH", "OLDPWD", "MANPATH", "INFOPATH"},
		suffixes: []string{"_PATH"}},
	{why: "it changes how the shell splits words", names: []string{"IFS"}},
	// Start-up files and prompts of shells (a child bash reads BASH_ENV,
	// sh -i reads ENV, PS4 is expanded under set -x, SHELLOPTS turns
	// options on in every child bash), exported functions (BASH_FUNC_*),
	// and the shells other programs start.
	{why: "the shell reads or runs it",
		names: []string{"ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "SHELLOPTS",
			"BASHOPTS", "INPUTRC", "TERMINFO", "TERMINFO_DIRS", "TERMCAP", "FCEDIT", "TEXTDOMAIN", "TEXTDOMAINDIR",
			"MAILPATH"},
		prefixes: []string{"BASH_"},
		suffixes: []string{"SHELL"}},
	// Pagers, editors, browsers and viewers: programs run the command they
	// name (git log runs $GIT_PAGER, man runs $MANPAGER, less runs
	// $LESSOPEN and $LESSEDIT and reads key bindings from $LESSKEY).
	{why: "programs run the command it names",
		names:    []string{"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "TERMINAL", "TERMCMD", "DIFFPROG"},
		prefixes: []string{"LESS", "SYSTEMD_"},
		suffixes: []string{"PAGER", "EDITOR", "_BROWSER", "_VIEWER", "_TERMINAL", "_ASKPASS"}},
	// Variables that name a program for build tools and others to run:
	// compilers and their wrappers (RUSTC_WRAPPER, CCACHE_PREFIX), the
	// programs make and configure call, helpers run over the network
	// (RSYNC_RSH, GIT_SSH), hooks.
	{why: "programs run the program or command it names",
		names: []string{"CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "F77", "NM", "RANLIB", "STRIP", "STRIPPROG",
			"OBJCOPY", "OBJDUMP", "READELF", "YACC", "BISON", "LEX", "FLEX", "M4", "PROTOC", "INSTALL", "LIBTOOL",
			"LIBTOOLIZE", "AUTOCONF", "AUTOHEADER", "AUTOM4TE", "AUTOMAKE", "ACLOCAL", "MAKE", "MAKEFILES", "JAVACMD",
			"RSH", "TMPDIR_EXEC", "FLASK_APP", "CONFIG_SITE"},
		prefixes: []string{"RUSTC", "RUSTDOC", "PKG_CONFIG", "GCC_", "COLLECT_", "CCACHE_", "SCCACHE_", "DISTCC_",
			"ICECC_", "CMAKE_", "BAZEL", "USE_BAZEL"},
		suffixes: []string{"_COMMAND", "_CMD", "_PROGRAM", "_PROG", "_EXEC", "_EXE", "_EXECUTABLE", "_BIN",
			"_BINARY", "_WRAPPER", "_LAUNCHER", "_COMPILER", "_LINKER", "_RUNNER", "_HOOK", "_HOOKS", "_SSH", "_RSH"}},
	// Options read from the environment, as if given on the command line:
	// they can name programs (ZIPOPT=-TT…, TAR_OPTIONS=--to-command=…,
	// GZIP, UNZIP=-d elsewhere, MANROFFOPT, MAKEFLAGS, RUSTFLAGS=-C linker=…,
	// CFLAGS=-fplugin=…, PARALLEL, FZF_DEFAULT_OPTS=--preview…).
	{why: "the program reads options from it, and options can run programs, load code or write elsewhere",
		names: []string{"ZIPOPT", "UNZIP", "UNZIPOPT", "ZIPINFO", "ZIPINFOOPT", "GZIP", "PIGZ", "BZIP", "BZIP2",
			"XZ_DEFAULTS", "PARALLEL", "MORE", "MANOPT", "MANROFFOPT", "MANROFFSEQ"},
		suffixes: []string{"FLAGS", "OPTIONS", "OPTS", "OPT", "_ARGS"}},
	// Interpreters and runtimes: start-up code (PYTHONSTARTUP, LUA_INIT,
	// R_PROFILE, NODE_OPTIONS=--require), module and library search paths
	// (PYTHONPATH, PERL5LIB, RUBYLIB, NODE_PATH, CLASSPATH, R_LIBS),
	// agents and profilers (JAVA_TOOL_OPTIONS, CORECLR_PROFILER,
	// DOTNET_STARTUP_HOOKS), Electron apps run as node, TeX's shell escape.
	{why: "the interpreter or runtime loads or runs code named by it",
		names: []string{"CLASSPATH", "PHPRC", "TCLLIBPATH", "TCL_LIBRARY", "TK_LIBRARY", "GHC_ENVIRONMENT", "GHCRTS",
			"CPATH", "LIBS", "VIM", "VIMRUNTIME", "EXINIT", "VIMINIT", "GVIMINIT", "MYVIMRC", "MYGVIMRC", "TEXFORMATS",
			"TEXPOOL"},
		prefixes: []string{"PYTHON", "PERL", "RUBY", "GEM_", "BUNDLE_", "NODE_", "JAVA_", "_JAVA", "JDK_", "MAVEN_",
			"M2_", "GRADLE_", "SBT_", "ANT_", "KOTLIN_", "DOTNET_", "COMPLUS_", "CORECLR_", "COR_", "MSBUILD", "LUA_",
			"R_LIBS", "R_PROFILE", "R_ENVIRON", "JULIA_", "ERL_", "ELIXIR_", "MIX_", "HEX_", "PHP", "DENO_", "BUN_",
			"ELECTRON_", "GUILE_", "OCAML", "CAML_", "GHC", "CABAL_", "STACK_", "EMACS", "NVIM", "TEXMF"},
		suffixes: []string{"_INIT", "_MODULE", "_MODULES", "_PLUGIN", "_PLUGINS", "_LIB", "_LIBS", "_LIBRARY",
			"_LIBRARIES", "_LIBDIR", "_PRELOAD", "_ROOT", "INPUTS"}},
	// kpathsea (TeX) reads these in lower case: shell_escape=t lets a
	// document run commands, openout_any=a write anywhere. Its search
	// paths (TEXINPUTS, LUAINPUTS, TEXMF*) are with the interpreters.
	{why: "TeX reads it: it lets documents run commands or write files anywhere",
		names: []string{"SHELL_ESCAPE", "SHELL_ESCAPE_COMMANDS", "OPENOUT_ANY", "OPENIN_ANY"}, anyCase: true},
	// The dynamic loader and the C library: preloaded libraries, character
	// set converters and message catalogues loaded from a path, malloc
	// and tunables, the resolver's host aliases.
	{why: "the dynamic loader or the C library loads code or data from it",
		names: []string{"GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "RES_OPTIONS",
			"LOCALDOMAIN", "TZDIR"},
		prefixes: []string{"LD_", "DYLD_", "MALLOC_", "GLIBC_"}},
	// GUI and system libraries load modules from these or run programs
	// through them (DBUS_SESSION_BUS_ADDRESS=unixexec:path=…).
	{why: "libraries load modules or run programs named by it",
		prefixes: []string{"GTK", "QT_", "GIO_", "GST_", "GDK_", "VK_", "__EGL_", "LIBGL_", "DBUS_"}},
	// Configuration directories and files: what programs read there can
	// run commands (a .vimrc, a .gitconfig alias, a .wgetrc, a kubeconfig
	// exec plugin, an OpenSSL engine).
	{why: "programs read their configuration (which can run commands) from it",
		names: []string{"HOME", "GNUPGHOME", "CURL_HOME", "WGETRC", "SYSTEM_WGETRC", "SCREENRC", "GEMRC", "IRBRC",
			"PSQLRC", "MAILRC", "NETRC"},
		prefixes: []string{"XDG_", "KRB5"},
		suffixes: []string{"_HOME", "CONFIG", "_CONF", "_CFG", "_CONFIG_DIR", "_CONFIGDIR", "_CONFDIR", "_RC",
			"RCFILE", "_INI", "_FILE", "_FILES"}},
	// Files programs write: history files of shells and REPLs.
	{why: "programs write their history to the file it names", suffixes: []string{"HISTFILE", "_HISTORY"}},
	// Which toolchain or version of a tool runs: version managers, Go's
	// toolchain switch, Xcode's developer directory, virtual environments.
	{why: "it chooses which toolchain or version of a tool runs",
		names: []string{"GOTOOLCHAIN", "GOENV", "GOROOT", "GOPATH", "GOBIN", "GOCACHE", "GOMODCACHE", "GOWORK",
			"GOEXPERIMENT", "GOAUTH", "GOTOOLDIR", "GOVCS", "DEVELOPER_DIR", "SDKROOT", "TOOLCHAINS"},
		prefixes: []string{"VIRTUAL_ENV", "PYENV_", "RBENV_", "NODENV_", "ASDF_", "MISE_", "RTX_", "NVM_", "FNM_", "VOLTA_",
			"SDKMAN_", "JENV_", "RUSTUP_", "DIRENV_", "NIX_", "HOMEBREW_", "COREPACK_", "CONDA"},
		suffixes: []string{"_TOOLCHAIN"}},
	// Package managers read their registry, scripts and hooks from these
	// (npm_config_script_shell, PIP_INDEX_URL, CARGO_TARGET_*_RUNNER).
	{why: "the package manager reads its registry, scripts or hooks from it",
		prefixes: []string{"YARN_", "PNPM_", "PIP_", "UV_", "POETRY_", "PDM_", "PIPENV_", "HATCH_", "TOX_", "NOX_",
			"CARGO_", "COMPOSER", "NUGET_", "PUB_", "TWINE_"},
		suffixes: []string{"_REGISTRY", "_INDEX_URL", "_MIRROR"}},
	// npm reads npm_config_* in any case.
	{why: "npm reads its configuration (registry, script shell, hooks) from it", prefixes: []string{"NPM_"}, anyCase: true},
	// What programs download through and which certificates they trust
	// (the Go module proxy and checksum database, CA bundles, OpenSSL's
	// configuration, which can load engines); SSLKEYLOGFILE writes TLS
	// secrets to a file.
	{why: "it changes where programs download from or which certificates they trust",
		names: []string{"GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY", "GOSUMDB",
			"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSLKEYLOGFILE"},
		prefixes: []string{"OPENSSL_"},
		suffixes: []string{"_CA_BUNDLE", "_CA_CERTS", "_CAINFO", "_CAPATH"}},
	// Proxies are read in lower case (http_proxy) by curl, wget, Python
	// and Go.
	{why: "programs send their connections through the proxy it names", suffixes: []string{"_PROXY"}, anyCase: true},
	// Version control, remote access and privilege helpers: git alone
	// reads GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_* and GIT_DIR.
	{why: "it changes what the version-control, remote-access or signing tool runs or reads",
		prefixes: []string{"GIT_", "GH_", "GLAB_", "HG", "SVN_", "CVS", "BZR_", "RSYNC_", "SSH_", "GPG_", "SUDO_",
			"PRE_COMMIT"}},
	// Containers and clouds: which daemon or cluster a command talks to,
	// and configurations whose credential helpers and exec plugins run
	// programs (DOCKER_CONFIG, KUBECONFIG, AWS_CONFIG_FILE
	// credential_process, GOOGLE_APPLICATION_CREDENTIALS with an
	// executable source).
	{why: "it chooses the daemon, cluster or account a command uses, whose configuration can run programs",
		prefixes: []string{"DOCKER_", "CONTAINER", "PODMAN_", "BUILDAH_", "COMPOSE_", "KUBE", "HELM_", "AWS_", "AZURE_",
			"GOOGLE_", "CLOUDSDK_", "GCLOUD_", "TF_", "ANSIBLE_", "VAGRANT_", "PULUMI_"}},
}

// Not risky, deliberately: TMPDIR (and TMP, TEMP). Programs create their
// temporary files there under names of their own, so pointing them
// elsewhere neither runs anything nor writes a chosen file, and the OS
// sandbox confines the writes anyway; tmpdir=$(mktemp -d) is also one of
// the commonest lines models write.

// riskyVar says why setting the environment variable name changes what a
// command runs or loads, or "". Bash and programs on Unix read variables
// case-sensitively, and the variables programs read are upper case or
// mixed (COMPlus_*, TF_CLI_ARGS_plan), so a name all in lower case is only
// judged by the families read in lower case (http_proxy): git_root=$(git
// rev-parse --show-toplevel) sets no variable git reads. Any other name is
// judged in upper case.
func riskyVar(name string) string {
	up := strings.ToUpper(name)
	lower := name == strings.ToLower(name) && name != up
	for i := range riskyVars {
		c := &riskyVars[i]
		if (!lower || c.anyCase) && c.match(up) {
			return c.why
		}
	}
	return ""
}

// isLocaleVar: the locale variables. A locale name is looked up among the
// installed locales, but glibc reads one containing a slash as a path,
// and gettext follows LANGUAGE into message catalogues whose translated
// format strings programs trust.
func isLocaleVar(name string) bool {
	return name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_")
}

// harmlessSettings are values of risky variables that only make programs
// simpler: GIT_PAGER=cat git log is how models avoid a pager.
var harmlessSettings = set("PAGER=cat", "PAGER=", "GIT_PAGER=cat", "GIT_PAGER=", "MANPAGER=cat",
	"SYSTEMD_PAGER=", "SYSTEMD_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true", "EDITOR=true",
	"GIT_SEQUENCE_EDITOR=true", "GIT_OPTIONAL_LOCKS=0", "LESS=-R", "LESS=-FRX", "PYTHONUNBUFFERED=1",
	"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8", "PYTHONHASHSEED=0", "NODE_ENV=test", "NODE_ENV=production",
	"NODE_ENV=development", "NODE_NO_WARNINGS=1", "MIX_ENV=test", "MIX_ENV=dev", "MIX_ENV=prod", "GOFLAGS=-mod=mod",
	"GOFLAGS=-mod=vendor", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "RUST_BACKTRACE=1", "RUST_BACKTRACE=full",
	"CARGO_TERM_COLOR=always", "CARGO_TERM_COLOR=never", "CARGO_INCREMENTAL=0", "DOCKER_BUILDKIT=0",
	"DOCKER_BUILDKIT=1", "QT_QPA_PLATFORM=offscreen")

// checkAssignment judges one NAME=value given to a command or the shell.
// Without a value (read NAME, export NAME, for NAME in …) the value is
// unknown.
func (z *analyzer) checkAssignment(name string, value wordInfo, hasValue bool, text string) {
	if name == "" {
		return
	}
	fixed := hasValue && value.full && !value.dyn
	if fixed && harmlessSettings[name+"="+value.val] {
		return
	}
	if isLocaleVar(name) {
		if !fixed || strings.Contains(value.val, "/") {
			z.unsafe("sets %s: a locale name with a slash, or one known only at run time, makes the C library load locale data and message catalogues from any path (%s)", name, text)
		}
		return
	}
	if r := riskyVar(name); r != "" {
		z.unsafe("sets %s: %s (%s)", name, r, text)
	}
}

// assignValue is the value an assignment gives its variable, and whether
// it gives one the line shows: X= gives the empty string; export X,
// X+=v and X=(…) give one only known at run time.
func (z *analyzer) assignValue(as *syntax.Assign, st state) (wordInfo, bool) {
	switch {
	case as.Naked || as.Append || as.Array != nil || as.Index != nil:
		return wordInfo{}, false
	case as.Value == nil:
		return wordInfo{full: true}, true
	}
	return z.resolve(as.Value, st), true
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
		if !as.Naked || variant == "export" || strings.Contains(flags, "x") {
			v, ok := z.assignValue(as, in)
			z.checkAssignment(as.Name.Value, v, ok, z.text(as))
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
