package shell_test

import (
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
