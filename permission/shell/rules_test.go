package shell_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/shell"
)

// word is one argv element as the tests compare it.
type word struct {
	Arg     string
	Dynamic bool
}

func words(c shell.Command) []word {
	out := make([]word, len(c.Args))
	for i := range c.Args {
		out[i] = word{c.Args[i], c.Dynamic[i]}
	}
	return out
}

func TestWords(t *testing.T) {
	tests := []struct {
		src  string
		want []word
	}{
		{`echo 'a b' "c d" e\ f`, []word{{"echo", false}, {"a b", false}, {"c d", false}, {"e f", false}}},
		{`$'\x63url' x`, []word{{"curl", false}, {"x", false}}},
		{`$'\143\165rl'`, []word{{"curl", false}}},
		{`$'\u0063url'`, []word{{"curl", false}}},
		{`echo $'a\0b'`, []word{{"echo", false}, {"a", false}}},
		{`echo $'\cA'`, []word{{"echo", false}, {"\x01", false}}},
		{`echo $'it\'s'`, []word{{"echo", false}, {"it's", false}}},
		{`echo "a\"b\$c\x"`, []word{{"echo", false}, {`a"b$c\x`, false}}},
		{`echo *.go`, []word{{"echo", false}, {"*.go", true}}},
		{`echo a?c`, []word{{"echo", false}, {"a?c", true}}},
		{`echo [ab]`, []word{{"echo", false}, {"[ab]", true}}},
		{`[ -f x ]`, []word{{"[", false}, {"-f", false}, {"x", false}, {"]", false}}},
		{`echo \*.go '*'`, []word{{"echo", false}, {"*.go", false}, {"*", false}}},
		{`echo {a,b}`, []word{{"echo", false}, {"{a,b}", true}}},
		{`echo {1..3}`, []word{{"echo", false}, {"{1..3}", true}}},
		{`echo {} {a}`, []word{{"echo", false}, {"{}", false}, {"{a}", false}}},
		{`echo ~/x ~`, []word{{"echo", false}, {"/home/user/x", false}, {"/home/user", false}}},
		{`echo ~root/x`, []word{{"echo", false}, {"~root/x", true}}},
		{`echo '~/x' a~/x`, []word{{"echo", false}, {"~/x", false}, {"a~/x", false}}},
		{`echo $HOME "$X" ${Y} $(id) $((1+2)) $"msg"`, []word{{"echo", false}, {"$HOME", true}, {`"$X"`, true},
			{"${Y}", true}, {"$(id)", true}, {"$((1+2))", true}, {`$"msg"`, true}}},
		{`echo @(a|b)`, []word{{"echo", false}, {"@(a|b)", true}}},
		{"echo a\\\nb", []word{{"echo", false}, {"ab", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := shell.Analyze(tt.src, opt)
			if a.ParseError != "" || len(a.Commands) == 0 {
				t.Fatalf("analysis: %s", dump(a))
			}
			if d := cmp.Diff(tt.want, words(a.Commands[0])); d != "" {
				t.Errorf("words (-want +got):\n%s", d)
			}
		})
	}
}

func TestCommandsInOrder(t *testing.T) {
	tests := []struct {
		src  string
		want []string // each command's Args joined by spaces
	}{
		{"X=$(a) b $(c) `d`", []string{"a", "b $(c) `d`", "c", "d"}},
		{"a | b | c && d || e; f & g", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"(a; (b)); { c; }", []string{"a", "b", "c"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"while a; do b; done; until c; do d; done", []string{"a", "b", "c", "d"}},
		{"for x in $(a); do b; done; for ((i=0; i<$(c); i++)); do d; done", []string{"a", "b", "c", "d"}},
		{"case $(a) in x) b;; $(c)) d;; esac", []string{"a", "b", "c", "d"}},
		{"f() { a; }; function g { b; }", []string{"a", "b"}},
		{"[[ -n $(a) ]] && b", []string{"a", "b"}},
		{"(( $(a) > 1 )) && b", []string{"a", "b"}},
		{"cat <<EOF\n$(a) `b` ${x:-$(c)}\nEOF", []string{"cat", "a", "b", "c"}},
		{"cat <<'EOF'\n$(a) `b`\nEOF", []string{"cat"}},
		{"cat <<\"EOF\"\n$(a)\nEOF", []string{"cat"}},
		{"cat <<-EOF\n\t$(a)\n\tEOF", []string{"cat", "a"}},
		{"cat <<< $(a)", []string{"cat", "a"}},
		{"diff <(a) >(b)", []string{"diff <(a) >(b)", "a", "b"}},
		{"echo > $(a)", []string{"echo", "a"}},
		{"sh -c 'a; b | c'", []string{"sh -c a; b | c", "a", "b", "c"}},
		{"bash -c \"sh -c 'a'\"", []string{"bash -c sh -c 'a'", "sh -c a", "a"}},
		{"sudo -u bob env A=1 nice -n 2 a x", []string{"sudo -u bob env A=1 nice -n 2 a x", "env A=1 nice -n 2 a x", "nice -n 2 a x", "a x"}},
		{"find . -exec a {} \\; -exec b {} +", []string{"find . -exec a {} ; -exec b {} +", "a {}", "b {}"}},
		{"xargs -0 -n1 a x", []string{"xargs -0 -n1 a x", "a x"}},
		{"time a", []string{"a"}},
		{"! a", []string{"a"}},
		{"declare -x A=1; local b; export C; readonly D=2; let x=1", []string{"declare -x A=1", "local b", "export C", "readonly D=2", "let x=1"}},
		{"a=1 b=$(c)", []string{"c"}},
		{"coproc a", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := shell.Analyze(tt.src, opt)
			if a.ParseError != "" {
				t.Fatalf("parse error: %s", a.ParseError)
			}
			var got []string
			for _, c := range a.Commands {
				got = append(got, strings.Join(c.Args, " "))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	for _, src := range []string{"echo 'unterminated", "if then fi", "echo $(", "(", "a |", "cat <<EOF\nno end", "}"} {
		a := shell.Analyze(src, opt)
		if a.ParseError == "" {
			t.Errorf("%q: no parse error:\n%s", src, dump(a))
		}
		if d := cmp.Diff(&shell.Analysis{ParseError: a.ParseError, Effects: shell.Effects{Unbounded: []string{"the command does not parse"}}}, a); d != "" {
			t.Errorf("%q: a parse error leaves only ParseError (-want +got):\n%s", src, d)
		}
	}
	// A script inside a string that does not parse makes the command
	// Unsafe, not a parse error of the whole line.
	a := shell.Analyze("sh -c 'echo \"'", opt)
	if a.ParseError != "" || len(a.Unsafe) == 0 {
		t.Errorf("sh -c with a broken script:\n%s", dump(a))
	}
}

func TestOptions(t *testing.T) {
	// Without a home, ~ stays dynamic; without a workspace every absolute
	// path is outside and `.` is unknown.
	a := shell.Analyze("ls ~/x /usr", shell.Options{})
	if d := cmp.Diff([]word{{"ls", false}, {"~/x", true}, {"/usr", false}}, words(a.Commands[0])); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
	if len(a.Unsafe) == 0 {
		t.Errorf("/usr with no workspace is not flagged:\n%s", dump(a))
	}
	// Relative options are ignored rather than trusted.
	a = shell.Analyze("rm -rf .", shell.Options{Workspace: "project", Home: "home"})
	if len(a.Dangerous) == 0 {
		t.Errorf("rm -rf . with an unknown workspace is not dangerous:\n%s", dump(a))
	}
	a = shell.Analyze("rm -rf ~", shell.Options{Workspace: "/w", Home: "/Users/me/"})
	if len(a.Dangerous) == 0 {
		t.Errorf("rm -rf ~ with a trailing slash on Home:\n%s", dump(a))
	}
}

// TestLongCommands: no cap on the number of commands (checkers that stop
// after 50 subcommands let the tail through) and no failure on deep
// nesting.
func TestLongCommands(t *testing.T) {
	src := strings.Repeat("true && ", 500) + "rm -rf ~"
	a := shell.Analyze(src, opt)
	if len(a.Commands) != 501 || len(a.Dangerous) == 0 {
		t.Errorf("got %d commands, dangerous %v", len(a.Commands), a.Dangerous)
	}
	deep := strings.Repeat("(", 2000) + "rm -rf ~" + strings.Repeat(")", 2000)
	a = shell.Analyze(deep, opt)
	if len(a.Unsafe) == 0 && len(a.Dangerous) == 0 && a.ParseError == "" {
		t.Errorf("deep nesting is not flagged: %v", a.Unsafe)
	}
	wrapped := strings.Repeat("sudo ", 100) + "rm -rf /"
	a = shell.Analyze(wrapped, opt)
	if len(a.Unsafe) == 0 {
		t.Errorf("deep wrapping is not flagged")
	}
	nested := "sh -c " + strings.Repeat("'sh -c ", 1) + "\"sh -c 'sh -c \\\"sh -c id\\\"'\"'"
	a = shell.Analyze(nested, opt)
	if len(a.Unsafe) == 0 {
		t.Errorf("nested sh -c is not flagged")
	}
}

// riskyNames are environment variables that change what a program runs,
// loads, trusts or writes, one or more per family of vars.go (each family's
// names, and examples of its prefixes and suffixes).
var riskyNames = []string{
	// Lookup of programs and files; `cd -`.
	"PATH", "CDPATH", "GLOBIGNORE", "EXECIGNORE", "FPATH", "OLDPWD", "MANPATH", "INFOPATH", "LD_LIBRARY_PATH",
	"RIPGREP_CONFIG_PATH",
	"IFS",
	// Shell start-up, prompts, exported functions, shells others start.
	"BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "SHELLOPTS", "BASHOPTS",
	"BASH_XTRACEFD", "BASH_LOADABLES_PATH", "BASH_FUNC_x", "INPUTRC", "TERMINFO", "TERMINFO_DIRS", "TERMCAP",
	"FCEDIT", "TEXTDOMAIN", "TEXTDOMAINDIR", "MAILPATH", "SHELL", "CONFIG_SHELL", "MAKESHELL",
	// Pagers, editors, browsers.
	"EDITOR", "VISUAL", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "SYSTEMD_PAGERSECURE", "GIT_PAGER", "GH_PAGER",
	"PSQL_PAGER", "BROWSER", "GH_BROWSER", "TERMINAL", "TERMCMD", "DIFFPROG", "LESS", "LESSOPEN", "LESSCLOSE",
	"LESSKEY", "LESSKEYIN", "LESSEDIT", "LESSSECURE", "LESSHISTFILE", "SUDO_EDITOR", "SVN_EDITOR", "SSH_ASKPASS",
	"SUDO_ASKPASS",
	// Programs named for others to run.
	"CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "NM", "RANLIB", "STRIP", "STRIPPROG", "OBJCOPY", "YACC", "LEX",
	"M4", "PROTOC", "INSTALL", "LIBTOOL", "AUTOCONF", "ACLOCAL", "MAKE", "MAKEFILES", "JAVACMD", "RSH",
	"TMPDIR_EXEC", "FLASK_APP", "CONFIG_SITE", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC",
	"PKG_CONFIG", "PKG_CONFIG_LIBDIR", "GCC_EXEC_PREFIX", "COLLECT_LTO_WRAPPER", "CCACHE_PREFIX", "SCCACHE_DIR",
	"DISTCC_HOSTS", "CMAKE_C_COMPILER_LAUNCHER", "BAZELISK_BASE_URL", "USE_BAZEL_VERSION", "GIT_SSH",
	"GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "SVN_SSH", "CVS_RSH",
	"FZF_DEFAULT_COMMAND", "INFO_PRINT_COMMAND", "PUPPETEER_EXECUTABLE", "CHROME_BIN", "GDB_BINARY",
	"KUBECTL_EXTERNAL_DIFF", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", "MY_HOOK", "LEFTHOOK_HOOKS",
	// Options read from the environment.
	"ZIPOPT", "UNZIP", "UNZIPOPT", "ZIPINFO", "ZIPINFOOPT", "GZIP", "PIGZ", "BZIP", "BZIP2", "XZ_OPT",
	"XZ_DEFAULTS", "TAR_OPTIONS", "GREP_OPTIONS", "PARALLEL", "MORE", "MANOPT", "MANROFFOPT", "MANROFFSEQ",
	"MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "GOFLAGS", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "RUSTFLAGS",
	"RUSTDOCFLAGS", "CGO_LDFLAGS", "FZF_DEFAULT_OPTS", "PYTEST_ADDOPTS", "MAVEN_ARGS", "ASAN_OPTIONS",
	"VALGRIND_OPTS", "RES_OPTIONS", "ELIXIR_ERL_OPTIONS", "PERL5OPT", "RUBYOPT",
	// Interpreters and runtimes.
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PYTHONBREAKPOINT", "PYTHONWARNINGS",
	"PERL5LIB", "PERLLIB", "PERL5DB", "RUBYLIB", "GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE", "NODE_OPTIONS",
	"NODE_PATH", "NODE_EXTRA_CA_CERTS", "NODE_REPL_HISTORY", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS", "JAVA_HOME", "CLASSPATH", "MAVEN_OPTS", "GRADLE_OPTS", "GRADLE_USER_HOME", "SBT_OPTS",
	"ANT_OPTS", "KOTLIN_HOME", "DOTNET_STARTUP_HOOKS", "DOTNET_ROOT", "COMPlus_EnableDiagnostics",
	"CORECLR_PROFILER", "COR_PROFILER_PATH", "MSBUILDEXTENSIONSPATH", "LUA_INIT", "LUA_INIT_5_4", "LUA_PATH",
	"LUA_CPATH", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON_USER", "R_LIBS", "R_LIBS_USER", "JULIA_DEPOT_PATH",
	"JULIA_LOAD_PATH", "ERL_AFLAGS", "ERL_LIBS", "MIX_EXS", "HEX_MIRROR", "PHPRC", "PHP_INI_SCAN_DIR",
	"DENO_DIR", "BUN_INSTALL", "ELECTRON_RUN_AS_NODE", "GUILE_LOAD_PATH", "OCAMLRUNPARAM", "CAML_LD_LIBRARY_PATH",
	"GHC_ENVIRONMENT", "GHCRTS", "CABAL_DIR", "STACK_ROOT", "EMACSLOADPATH", "NVIM_APPNAME", "TCLLIBPATH",
	"TCL_LIBRARY", "TK_LIBRARY", "CPATH", "LIBS", "VIM", "VIMRUNTIME", "EXINIT", "VIMINIT", "GVIMINIT",
	"MYVIMRC", "MYGVIMRC", "TEXINPUTS", "LUAINPUTS", "TEXMFHOME", "TEXMFCNF", "TEXFORMATS", "TEXPOOL",
	"DJANGO_SETTINGS_MODULE", "GTK_MODULES", "PYTEST_PLUGINS", "HELM_PLUGINS", "VALGRIND_LIB", "X_LIBS",
	"ANDROID_NDK_ROOT",
	// TeX's lower-case settings.
	"shell_escape", "SHELL_ESCAPE", "shell_escape_commands", "openout_any", "openin_any",
	// The dynamic loader and the C library.
	"LD_PRELOAD", "LD_AUDIT", "LD_BIND_NOW", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "GCONV_PATH",
	"LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "LOCALDOMAIN", "TZDIR", "MALLOC_CHECK_",
	"MALLOC_TRACE", "GLIBC_TUNABLES", "JEMALLOC_PRELOAD",
	// GUI and system libraries.
	"GTK_PATH", "GTK2_RC_FILES", "QT_PLUGIN_PATH", "GIO_EXTRA_MODULES", "GST_PLUGIN_PATH",
	"GDK_PIXBUF_MODULE_FILE", "VK_ICD_FILENAMES", "__EGL_VENDOR_LIBRARY_FILENAMES", "LIBGL_DRIVERS_PATH",
	"DBUS_SESSION_BUS_ADDRESS",
	// Configuration directories and files.
	"HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "GNUPGHOME", "CURL_HOME",
	"WGETRC", "SYSTEM_WGETRC", "SCREENRC", "GEMRC", "IRBRC", "PSQLRC", "MAILRC", "NETRC", "KRB5_CONFIG",
	"KRB5CCNAME", "KUBECONFIG", "DOCKER_CONFIG", "OPENSSL_CONF", "CONTAINERS_CONF", "PIP_CONFIG_FILE",
	"NPM_CONFIG_USERCONFIG", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_APPLICATION_CREDENTIALS",
	"COVERAGE_RCFILE", "CONDARC", "MY_TOOL_CFG", "MY_TOOL_CONFIG_DIR", "MY_TOOL_RC", "MY_TOOL_INI",
	"LLVM_PROFILE_FILE", "COMPOSE_FILE", "ANDROID_HOME", "M2_HOME",
	// History files.
	"HISTFILE", "PYTHON_HISTORY", "MYSQL_HISTFILE", "SQLITE_HISTORY", "REDISCLI_HISTFILE",
	// Toolchains and versions.
	"GOTOOLCHAIN", "GOENV", "GOROOT", "GOPATH", "GOBIN", "GOCACHE", "GOMODCACHE", "GOWORK", "GOEXPERIMENT",
	"GOAUTH", "GOTOOLDIR", "GOVCS", "DEVELOPER_DIR", "SDKROOT", "TOOLCHAINS", "VIRTUAL_ENV", "PYENV_VERSION",
	"RBENV_VERSION", "NODENV_VERSION", "ASDF_DATA_DIR", "MISE_CONFIG_FILE", "RTX_DATA_DIR", "NVM_DIR",
	"FNM_DIR", "VOLTA_HOME", "SDKMAN_DIR", "JENV_VERSION", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME", "DIRENV_CONFIG",
	"NIX_PATH", "HOMEBREW_PREFIX", "COREPACK_HOME", "CONDA_PREFIX", "CONDA_EXE", "MY_TOOLCHAIN",
	// Package managers.
	"npm_config_script_shell", "npm_config_registry", "NPM_CONFIG_REGISTRY", "NPM_CONFIG_SCRIPT_SHELL",
	"npm_execpath", "YARN_RC_FILENAME", "PNPM_HOME", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_REQUIRE_VIRTUALENV",
	"UV_INDEX_URL", "UV_PYTHON", "POETRY_HOME", "PDM_HOME", "PIPENV_PYTHON", "HATCH_ENV", "TOX_TESTENV_PASSENV",
	"NOX_DEFAULT_VENV_BACKEND", "CARGO_HOME", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
	"COMPOSER", "COMPOSER_HOME", "NUGET_PACKAGES", "PUB_HOSTED_URL", "TWINE_REPOSITORY_URL", "MY_REGISTRY",
	"MY_INDEX_URL", "MY_MIRROR",
	// Downloads and trust.
	"GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "SSL_CERT_FILE",
	"SSL_CERT_DIR", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSLKEYLOGFILE", "OPENSSL_ENGINES", "OPENSSL_MODULES",
	"GIT_SSL_CAINFO", "MY_CA_BUNDLE", "MY_CAPATH",
	"http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "ftp_proxy", "no_proxy", "RSYNC_PROXY",
	// Version control, remote access, privileges.
	"GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
	"GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ASKPASS", "GIT_EDITOR",
	"GIT_SEQUENCE_EDITOR", "GH_EDITOR", "GH_CONFIG_DIR", "GH_HOST", "GLAB_CONFIG_DIR", "HGRCPATH", "HGEDITOR",
	"CVSEDITOR", "BZR_SSH", "RSYNC_PASSWORD", "SSH_AUTH_SOCK", "SSH_ASKPASS_REQUIRE", "GPG_AGENT_INFO",
	"SUDO_PROMPT", "PRE_COMMIT_HOME",
	// Containers and clouds.
	"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "PODMAN_CONNECTIONS_CONF", "BUILDAH_ISOLATION",
	"COMPOSE_PROJECT_NAME", "KUBECONTEXT", "KUBECTL_EXTERNAL_DIFF", "HELM_HOME", "AWS_PROFILE",
	"AWS_SECRET_ACCESS_KEY", "AZURE_CONFIG_DIR", "CLOUDSDK_PYTHON", "CLOUDSDK_CONFIG", "GCLOUD_PROJECT",
	"TF_CLI_CONFIG_FILE", "TF_CLI_ARGS", "TF_CLI_ARGS_plan", "ANSIBLE_CONFIG", "VAGRANT_HOME", "PULUMI_HOME",
}

// TestRiskyVariables: a variable that changes what a program runs is
// Unsafe when a line sets it, in every way a line can: as a command's
// prefix, on its own, and exported.
func TestRiskyVariables(t *testing.T) {
	forms := []struct{ form, src string }{
		{"prefix", "%s=x ls"},
		{"bare", "%s=x"},
		{"export", "export %s=x"},
	}
	for _, name := range riskyNames {
		for _, f := range forms {
			src := fmt.Sprintf(f.src, name)
			t.Run(f.form+"/"+name, func(t *testing.T) {
				if !setsVar(shell.Analyze(src, opt), name) {
					t.Errorf("%s is not flagged as setting %s:\n%s", src, name, dump(shell.Analyze(src, opt)))
				}
			})
		}
	}
}

// TestRiskyVariableForms: the other ways a line sets a variable, for a few
// of the names.
func TestRiskyVariableForms(t *testing.T) {
	forms := []string{
		"%s=x", "%s+=x ls", "%s=x; ls", "X=1 %s=x ls", "export %s", "export -- %s=x", "declare -x %s=x",
		"declare -gx %s=x", "typeset -x %s", "local -x %s=x", "readonly %s=x", "declare %s=x", `export "%s=x"`,
		"env %s=x ls", "env -i %s=x ls", "sudo %s=x ls", "command env %s=x ls", "read -r %s", "read -a %s",
		"mapfile %s < f", "printf -v %s x", "getopts ab %s", "for %s in x; do ls; done",
		"select %s in x; do ls; done", "((%s=1)); ls", "((%s++)); ls", "let %s=1", "echo $((%s=1))",
		": ${%s:=x}; ls", "echo ${%s=x}", "sh -c '%s=x ls'",
	}
	for _, name := range []string{"PATH", "ZIPOPT", "UNZIP", "EXINIT", "VIMINIT", "MANROFFOPT", "RSYNC_RSH",
		"WGETRC", "LD_PRELOAD", "GIT_SSH_COMMAND", "npm_config_script_shell", "http_proxy"} {
		for _, f := range forms {
			src := fmt.Sprintf(f, name)
			t.Run(src, func(t *testing.T) {
				if a := shell.Analyze(src, opt); !setsVar(a, name) {
					t.Errorf("not flagged as setting %s:\n%s", name, dump(a))
				}
			})
		}
	}
}

// TestLocaleVariables: a locale is harmless by name; with a slash glibc
// reads it as a path. Appends are judged as unknown values.
func TestLocaleVariables(t *testing.T) {
	tests := []struct {
		src  string
		sets string // the variable flagged, or ""
	}{
		{"LC_ALL=C sort x", ""},
		{"LC_ALL=de_DE.UTF-8 sort x", ""},
		{"LANG=C.UTF-8 sort x", ""},
		{"LANGUAGE=en sort x", ""},
		{"export LC_COLLATE=C", ""},
		{"LANG=/tmp/x sort x", "LANG"},
		{"LC_ALL=../../tmp/x sort x", "LC_ALL"},
		{"export LC_MESSAGES=./x", "LC_MESSAGES"},
		{"LANGUAGE=en:../x sort x", "LANGUAGE"},
		{"LANG=$X sort x", "LANG"},
		{"read LANG", "LANG"},
		{"export LANG", "LANG"},
		{"LANG+=x sort x", "LANG"},
		// An append is never a harmless setting: the value is not the one
		// the line shows.
		{"PAGER+=cat git log", "PAGER"},
		{"GIT_PAGER+= git log", "GIT_PAGER"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			a := shell.Analyze(tt.src, opt)
			if tt.sets == "" {
				if len(a.Unsafe) > 0 {
					t.Errorf("flagged:\n%s", dump(a))
				}
				return
			}
			if !setsVar(a, tt.sets) {
				t.Errorf("not flagged as setting %s:\n%s", tt.sets, dump(a))
			}
		})
	}
}

// TestHarmlessVariables: settings that only make programs simpler, names
// no program reads (bash is case-sensitive: git_root is not GIT_*), and
// TMPDIR (programs name their temporary files themselves) stay allowed.
func TestHarmlessVariables(t *testing.T) {
	for _, src := range []string{
		"GIT_PAGER=cat git log", "PAGER=cat git log", "GIT_PAGER= git log", "export GIT_PAGER=", "MANPAGER=cat man ls", "LESS=-R less x",
		"GIT_TERMINAL_PROMPT=0 git status", "GIT_EDITOR=true git status", "TERM=dumb ls", "CI=1 ls", "CI=true ls",
		"NO_COLOR=1 ls", "FORCE_COLOR=0 ls", "CLICOLOR=0 ls", "COLUMNS=200 ls", "TZ=UTC date", "NODE_ENV=test ls",
		"MIX_ENV=test ls", "PYTHONUNBUFFERED=1 ls", "PYTHONDONTWRITEBYTECODE=1 ls", "RUST_BACKTRACE=1 ls",
		"RUST_LOG=debug ls", "GOOS=linux GOARCH=arm64 ls", "CGO_ENABLED=0 ls", "GOMAXPROCS=2 ls",
		"GOFLAGS=-mod=mod ls", "GOTOOLCHAIN=local ls", "DOCKER_BUILDKIT=1 ls", "QT_QPA_PLATFORM=offscreen ls",
		"CARGO_TERM_COLOR=never ls", "DEBUG=1 ls", "VERBOSE=1 ls", "HUSKY=0 ls", "export FOO=bar",
		"TMPDIR=./tmp ls", "tmp=$(mktemp -d); ls", "tmpdir=x; ls", "git_root=$(git rev-parse --show-toplevel)",
		"path=x; ls", "file_path=x; ls", "tmp_file=x; ls", "flags=-v; ls", "opts=x; ls", "python=python3; ls",
		"config=x.json; ls", "for path in a b; do ls; done", "((i++)); ls", ": ${x:=1}; ls", "read -r line",
	} {
		t.Run(src, func(t *testing.T) {
			if a := shell.Analyze(src, opt); len(a.Unsafe) > 0 {
				t.Errorf("flagged:\n%s", dump(a))
			}
		})
	}
}

// setsVar reports whether the analysis names setting name as a reason.
func setsVar(a *shell.Analysis, name string) bool {
	return slices.ContainsFunc(a.Unsafe, func(r string) bool { return strings.HasPrefix(r, "sets "+name+":") })
}
