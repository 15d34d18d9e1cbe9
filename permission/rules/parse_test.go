package rules

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseValid(t *testing.T) {
	cmdRule := func(spec string, prefix bool, words ...string) Rule {
		return Rule{Tool: "Bash", Specifier: spec, Kind: KindCommand, Words: words, Prefix: prefix}
	}
	pathRule := func(tool, spec string, a Anchor, pat string) Rule {
		return Rule{Tool: tool, Specifier: spec, Kind: KindPath, Anchor: a, Pattern: pat}
	}
	bare := func(tool string) Rule { return Rule{Tool: tool, Kind: KindTool} }
	tests := []struct {
		in   string
		want Rule
	}{
		// Bare tools and MCP servers.
		{"Bash", bare("Bash")},
		{"  Read  ", bare("Read")},
		{"WebFetch", bare("WebFetch")},
		{"WebSearch", bare("WebSearch")},
		{"mcp__github__create_issue", bare("mcp__github__create_issue")},
		{"mcp__github", bare("mcp__github")},
		{"mcp__github__*", bare("mcp__github")},
		{"mcp__my-server.v2__tool", bare("mcp__my-server.v2__tool")},
		{"Bash()", bare("Bash")},
		{"Bash(*)", bare("Bash")},
		{"Bash( * )", bare("Bash")},
		{"Bash(:*)", bare("Bash")},
		{"Read()", bare("Read")},
		{"Read(*)", bare("Read")},
		{"Task(*)", bare("Task")},

		// Commands.
		{"Bash(git status)", cmdRule("git status", false, "git", "status")},
		{"Bash(  git   status  )", cmdRule("git status", false, "git", "status")},
		{"Bash(git\tstatus)", cmdRule("git status", false, "git", "status")},
		{"Bash(npm run test:*)", cmdRule("npm run test:*", true, "npm", "run", "test")},
		{"Bash(git:*)", cmdRule("git:*", true, "git")},
		{"Bash(git :*)", cmdRule("git:*", true, "git")},
		{"Bash(npm run *)", cmdRule("npm run:*", true, "npm", "run")},
		{"Bash(ls *)", cmdRule("ls:*", true, "ls")},
		{`Bash(grep "a b":*)`, cmdRule("grep 'a b':*", true, "grep", "a b")},
		{`Bash(grep 'a b')`, cmdRule("grep 'a b'", false, "grep", "a b")},
		{`Bash(echo a\ b)`, cmdRule("echo 'a b'", false, "echo", "a b")},
		{`Bash(echo "it's")`, cmdRule(`echo 'it'\''s'`, false, "echo", "it's")},
		{`Bash(echo "a\"b\\c\d")`, cmdRule(`echo 'a"b\c\d'`, false, "echo", `a"b\c\d`)},
		{`Bash(echo '*')`, cmdRule("echo '*'", false, "echo", "*")},
		{`Bash(echo "*")`, cmdRule("echo '*'", false, "echo", "*")},
		{`Bash(echo 'a:*')`, cmdRule("echo 'a:*'", false, "echo", "a:*")},
		{`Bash(echo a':*')`, cmdRule("echo 'a:*'", false, "echo", "a:*")},
		{`Bash(echo '':*)`, cmdRule("echo '':*", true, "echo", "")},
		{`Bash(echo '')`, cmdRule("echo ''", false, "echo", "")},
		{`Bash(echo '$HOME')`, cmdRule("echo '$HOME'", false, "echo", "$HOME")},
		{`Bash(echo \$HOME)`, cmdRule("echo '$HOME'", false, "echo", "$HOME")},
		{`Bash(echo '(x)')`, cmdRule("echo '(x)'", false, "echo", "(x)")},
		{`Bash(python -c 'print(1)')`, cmdRule("python -c 'print(1)'", false, "python", "-c", "print(1)")},
		{`Bash(echo a#b)`, cmdRule("echo 'a#b'", false, "echo", "a#b")},
		{`Bash(npm run test:unit:*)`, cmdRule("npm run test:unit:*", true, "npm", "run", "test:unit")},
		{`Bash(curl https://github.com:*)`, cmdRule("curl https://github.com:*", true, "curl", "https://github.com")},
		{`Bash(FOO=1 make)`, cmdRule("FOO=1 make", false, "FOO=1", "make")},
		{"Bash(echo 'a\nb')", cmdRule("echo 'a\nb'", false, "echo", "a\nb")},

		// Paths.
		{"Read(./src/**)", pathRule("Read", "/src/**", AnchorProject, "src/**")},
		{"Read(/src/**)", pathRule("Read", "/src/**", AnchorProject, "src/**")},
		{"Edit(docs/**)", pathRule("Edit", "/docs/**", AnchorProject, "docs/**")},
		{"Read(~/.ssh/**)", pathRule("Read", "~/.ssh/**", AnchorHome, ".ssh/**")},
		{"Read(~)", pathRule("Read", "~", AnchorHome, "")},
		{"Read(~/)", pathRule("Read", "~", AnchorHome, "")},
		{"Edit(//etc/hosts)", pathRule("Edit", "//etc/hosts", AnchorRoot, "etc/hosts")},
		{"Read(//)", pathRule("Read", "//", AnchorRoot, "")},
		{"Read(/secrets/**)", pathRule("Read", "/secrets/**", AnchorProject, "secrets/**")},
		{"Read(/)", pathRule("Read", "/", AnchorProject, "")},
		{"Read(.)", pathRule("Read", "/", AnchorProject, "")},
		{"Read(./)", pathRule("Read", "/", AnchorProject, "")},
		{"Edit(*.go)", pathRule("Edit", "*.go", AnchorAnywhere, "*.go")},
		{"Edit(./*.go)", pathRule("Edit", "/*.go", AnchorProject, "*.go")},
		{"Read(src/)", pathRule("Read", "src", AnchorAnywhere, "src")},
		{"Read(*/)", pathRule("Read", "*/", AnchorAnywhere, "*")},
		{"Read(:*/)", pathRule("Read", ":*/", AnchorAnywhere, ":*")},
		{"Read(/src/)", pathRule("Read", "/src", AnchorProject, "src")},
		{"Read(../shared/**)", pathRule("Read", "/../shared/**", AnchorProject, "../shared/**")},
		{"Read(..)", pathRule("Read", "/..", AnchorProject, "..")},
		{"Edit({src,lib}/**/*.go)", pathRule("Edit", "/{src,lib}/**/*.go", AnchorProject, "{src,lib}/**/*.go")},
		{"Write(/out/My Documents/x)", pathRule("Write", "/out/My Documents/x", AnchorProject, "out/My Documents/x")},
		{"Glob(/a/[ ]b)", pathRule("Glob", "/a/[ ]b", AnchorProject, "a/[ ]b")},
		{"NotebookEdit(*.ipynb)", pathRule("NotebookEdit", "*.ipynb", AnchorAnywhere, "*.ipynb")},

		// Domains.
		{"WebFetch(domain:example.org)", Rule{Tool: "WebFetch", Specifier: "domain:example.org", Kind: KindDomain, Pattern: "example.org"}},
		{"WebFetch(domain: Example.ORG.)", Rule{Tool: "WebFetch", Specifier: "domain:example.org", Kind: KindDomain, Pattern: "example.org"}},
		{"WebFetch(domain:127.0.0.1)", Rule{Tool: "WebFetch", Specifier: "domain:127.0.0.1", Kind: KindDomain, Pattern: "127.0.0.1"}},
		{"WebFetch(domain:[0:0::1])", Rule{Tool: "WebFetch", Specifier: "domain:[::1]", Kind: KindDomain, Pattern: "::1"}},

		// Other tools: exact strings.
		{"Task(Explore)", Rule{Tool: "Task", Specifier: "Explore", Kind: KindString}},
		{"Task( code reviewer )", Rule{Tool: "Task", Specifier: "code reviewer", Kind: KindString}},
		{"mcp__srv__tool(a(b))", Rule{Tool: "mcp__srv__tool", Specifier: "a(b)", Kind: KindString}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
			again, err := Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(String() = %q): %v", got.String(), err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("round trip through %q (-first +second):\n%s", got.String(), diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "empty rule: write a tool name such as Bash or Read(./src/**)"},
		{"   ", "empty rule: write a tool name such as Bash or Read(./src/**)"},
		{"(ls)", "empty tool name: write Tool(specifier), as in Bash(git status)"},
		{"Bash(git status", "Bash(… needs a closing parenthesis: write Bash(git status)"},
		{"Bash)", "`)` without `(`: write Tool(specifier), as in Bash(git status)"},
		{"Bash(ls)x", `unexpected text "x" after the closing parenthesis`},
		{"Bash (ls)", "space between the tool name and `(`: write Bash(…)"},
		{"Bash Read", `space in tool name "Bash Read": separate rules with commas, and put arguments in parentheses, as in Bash(git status)`},
		{"*", "`*` is not a tool name: list the tools, or use a permission mode to allow everything"},
		{"Ba$h", `invalid character '$' in tool name "Ba$h": tool names are letters, digits, ` + "`_`, `-` and `.`"},
		{"bash(ls)", `unknown tool "bash": tool names are case-sensitive; did you mean Bash?`},
		{"READ", `unknown tool "READ": tool names are case-sensitive; did you mean Read?`},
		{"mcp__", `empty MCP server name in "mcp__": write mcp__server or mcp__server__tool`},
		{"mcp____tool", `empty MCP server name in "mcp____tool": write mcp__server or mcp__server__tool`},
		{"mcp__srv__", `empty MCP tool name in "mcp__srv__": write mcp__srv for the whole server or mcp__srv__tool`},
		{"mcp__*", `"mcp__*": ` + "`*` is only allowed as the whole tool part, as in mcp__server__*"},
		{"mcp__srv__to*", `"mcp__srv__to*": ` + "`*` is only allowed as the whole tool part, as in mcp__server__*"},
		{"mcp____*", `"mcp____*": write mcp__server__* (or mcp__server) for every tool of one MCP server`},
		{"mcp__srv__*(x)", "mcp__srv__* names every tool of an MCP server and takes no specifier"},
		{"mcp__srv(x)", "mcp__srv names a whole MCP server and takes no specifier; name one tool, as in mcp__srv__tool(x)"},
		{"Read(domain:example.org)", "unknown specifier `domain:` for Read: domain rules are for WebFetch, as in WebFetch(domain:example.org); Read takes a path pattern, as in Read(./src/**)"},
		{"Bash(domain:example.org)", "unknown specifier `domain:` for Bash: domain rules are for WebFetch, as in WebFetch(domain:example.org); Bash takes a command, as in Bash(git status) or Bash(npm run test:*)"},
		{"WebSearch(cats)", "WebSearch takes no specifier: write WebSearch"},

		// Commands.
		{"Bash(echo 'a)", "unterminated single quote: close it, or write \\' for a literal quote"},
		{`Bash(echo "a)`, `unterminated double quote: close it, or write \" for a literal quote`},
		{`Bash(echo a\)`, "a backslash ends the rule: it must escape a character (\\\\ for a literal backslash)"},
		{"Bash(git status && rm -rf /)", "`&` is shell syntax, and a Bash rule matches one simple command: write one rule per command, or quote it ('&') to match it literally"},
		{"Bash(ls; rm x)", "`;` is shell syntax, and a Bash rule matches one simple command: write one rule per command, or quote it (';') to match it literally"},
		{"Bash(cat x | sh)", "`|` is shell syntax, and a Bash rule matches one simple command: write one rule per command, or quote it ('|') to match it literally"},
		{"Bash(echo > f)", "`>` is shell syntax, and a Bash rule matches one simple command: write one rule per command, or quote it ('>') to match it literally"},
		{"Bash(echo (x))", "`(` is shell syntax, and a Bash rule matches one simple command: write one rule per command, or quote it ('(') to match it literally"},
		{"Bash(echo $HOME)", "`$` would expand in a shell, and rules match the words after expansion: quote it with single quotes ('$') to match it literally"},
		{`Bash(echo "$HOME")`, "`$` would expand in a shell, and rules match the words after expansion: quote it with single quotes ('$') to match it literally"},
		{"Bash(echo `id`)", "``` would expand in a shell, and rules match the words after expansion: quote it with single quotes ('`') to match it literally"},
		{"Bash(ls #x)", "`#` starts a comment in a shell: quote it ('#') to match it literally"},
		{"Bash(ls\nrm x)", "a newline separates commands in a shell, and a Bash rule matches one command: write one rule per command"},
		{"Bash(git * main)", "`*` only works at the end of a command rule, as in Bash(npm run:*) or Bash(npm run *); quote it ('*') to match a literal star"},
		{"Bash(ls *.go)", "`*` only works at the end of a command rule, as in Bash(npm run:*) or Bash(npm run *); quote it ('*') to match a literal star"},
		{"Bash(npm run *:*)", "`*` only works at the end of a command rule, as in Bash(npm run:*) or Bash(npm run *); quote it ('*') to match a literal star"},
		{"Bash(git*)", "`*` only works at the end of a command rule, as in Bash(npm run:*) or Bash(npm run *); quote it ('*') to match a literal star"},

		// Paths.
		{"Read(~user/x)", `"~user/x": only ~/ (your home directory) is supported, not ~user; write //home/user/… for another user's files`},
		{"Read(src//x)", `"src//x" has an empty path segment (` + "`//` is only allowed at the start, for an absolute path)"},
		{"Read(///etc)", `"///etc" has an empty path segment (` + "`//` is only allowed at the start, for an absolute path)"},
		{"Read(src/./x)", `"src/./x" has a ` + "`.` segment: drop it"},
		{"Read(src/../x)", `"src/../x" has ` + "`..` in the middle or after an absolute or home anchor: write the path without it"},
		{"Read(~/../x)", `"~/../x" has ` + "`..` in the middle or after an absolute or home anchor: write the path without it"},
		{"Read(//../x)", `"//../x" has ` + "`..` in the middle or after an absolute or home anchor: write the path without it"},
		{"Read(/a /b)", `"/a /b" has a path segment that starts or ends with a blank: use [ ] to match a space there`},
		{"Read(src/[ab)", `"src/[ab" is not a valid glob pattern (unbalanced [ or {, or a trailing backslash); escape special characters with \`},
		{"Read(src/{a,b)", `"src/{a,b" is not a valid glob pattern (unbalanced [ or {, or a trailing backslash); escape special characters with \`},

		// Domains.
		{"WebFetch(https://example.org)", "WebFetch rules name a host: write WebFetch(domain:example.org), which also covers its subdomains"},
		{"WebFetch(example.org)", "WebFetch rules name a host: write WebFetch(domain:example.org), which also covers its subdomains"},
		{"WebFetch(host:example.org)", "unknown specifier `host:` for WebFetch: write WebFetch(domain:example.org)"},
		{"WebFetch(domain:)", "empty domain: write WebFetch(domain:example.org)"},
		{"WebFetch(domain:.)", "empty domain: write domain:example.org"},
		{"WebFetch(domain:https://example.org)", "domain:https://example.org is a URL: give the host alone, as in domain:example.org"},
		{"WebFetch(domain:*.example.org)", "domain:*.example.org: domain rules already cover subdomains, write domain:example.org"},
		{"WebFetch(domain:ex*.org)", "domain:ex*.org: wildcards are not supported; domain:example.org covers example.org and its subdomains"},
		{"WebFetch(domain:example.org:443)", "domain:example.org:443: give the host without a port"},
		{"WebFetch(domain:example.org/x)", "domain:example.org/x: give the host alone, without a path"},
		{"WebFetch(domain:a..b)", "domain:a..b has an empty label (`..` or a leading dot)"},
		{"WebFetch(domain:a b)", `invalid character ' ' in domain:a b`},
		{"WebFetch(domain:::1)", "domain:::1: write an IPv6 address in brackets, as in domain:[::1]"},
		{"WebFetch(domain:[1.2.3.4])", "domain:[1.2.3.4] is not a valid IPv6 address in brackets"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := Parse(tc.in)
			if err == nil {
				t.Fatalf("Parse = %#v, want error %q", r, tc.msg)
			}
			var pe ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a ParseError", err)
			}
			if pe.Rule != tc.in {
				t.Errorf("ParseError.Rule = %q, want %q", pe.Rule, tc.in)
			}
			if got := pe.Err.Error(); got != tc.msg {
				t.Errorf("message:\n got %s\nwant %s", got, tc.msg)
			}
		})
	}
}

func TestParseErrorFormat(t *testing.T) {
	tests := []struct {
		e    ParseError
		want string
	}{
		{ParseError{Source{".nova/settings.json", 5, 12}, "Bash(ls", errors.New("boom")}, `.nova/settings.json:5:12: rule "Bash(ls": boom`},
		{ParseError{Source{"--allowedTools", 1, 7}, "Bash(ls", errors.New("boom")}, `--allowedTools:1:7: rule "Bash(ls": boom`},
		{ParseError{Source{}, "Bash(ls", errors.New("boom")}, `rule "Bash(ls": boom`},
		{ParseError{Source{"f.json", 2, 3}, "", errors.New("permissions.allow[0] is a number, want a string")}, `f.json:2:3: permissions.allow[0] is a number, want a string`},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	_, err := Parse("Bash(ls")
	if want := `rule "Bash(ls": Bash(… needs a closing parenthesis: write Bash(ls)`; err == nil || err.Error() != want {
		t.Errorf("Parse error = %v, want %s", err, want)
	}
}

func TestKindString(t *testing.T) {
	got := []string{KindTool.String(), KindCommand.String(), KindPath.String(), KindDomain.String(), KindString.String(), Kind(9).String()}
	want := []string{"tool", "command", "path", "domain", "string", "Kind(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
