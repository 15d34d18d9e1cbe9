package shell_test

import (
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/permission/shell"
)

// opt is the setting of every test: a workspace inside the home directory,
// as on a developer's machine.
var opt = shell.Options{Workspace: "/home/user/project", Home: "/home/user"}

// rule is a Bash(...) allow rule: Bash(git diff:*) is a prefix rule for the
// words git diff, Bash(git status) an exact rule.
type rule struct {
	words  []string
	prefix bool
}

func parseRule(t testing.TB, s string) rule {
	t.Helper()
	if !strings.HasPrefix(s, "Bash(") || !strings.HasSuffix(s, ")") {
		t.Fatalf("bad rule %q", s)
	}
	inner := s[len("Bash(") : len(s)-1]
	r := rule{prefix: strings.HasSuffix(inner, ":*")}
	r.words = strings.Fields(strings.TrimSuffix(inner, ":*"))
	if len(r.words) == 0 {
		t.Fatalf("empty rule %q", s)
	}
	return r
}

// match reports whether the rule covers one simple command: its literal
// Args start with the rule's words (or equal them, for an exact rule).
// Like the permission chain, a command with any Dynamic word matches no
// rule unless lenient, in which only the words the rule names must be
// literal (to test that the analyser itself flags what matters).
func (r rule) match(c shell.Command, lenient bool) bool {
	if len(c.Args) < len(r.words) || !r.prefix && len(c.Args) != len(r.words) {
		return false
	}
	for i, w := range r.words {
		if c.Dynamic[i] || c.Args[i] != w {
			return false
		}
	}
	return lenient || !slices.Contains(c.Dynamic, true)
}

// naiveSafe is the per-simple-command check the chain does with allow
// rules only: the command parses, nothing is Unsafe or Dangerous, every
// simple command is matched by one of the rules, and every write is a
// fixed path inside the workspace.
func naiveSafe(a *shell.Analysis, rules []rule, lenient bool) bool {
	if a.ParseError != "" || len(a.Unsafe) > 0 || len(a.Dangerous) > 0 {
		return false
	}
	for _, c := range a.Commands {
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.match(c, lenient) }) {
			return false
		}
	}
	for _, w := range a.Writes {
		if w.Dynamic || !insideWorkspace(w.Path) {
			return false
		}
	}
	return true
}

func insideWorkspace(p string) bool {
	if !strings.HasPrefix(p, "/") {
		p = opt.Workspace + "/" + p
	}
	p = path.Clean(p)
	return p == opt.Workspace || strings.HasPrefix(p, opt.Workspace+"/")
}

type corpusCase struct {
	Kind  string  `json:"kind"`
	Input string  `json:"input"`
	Rule  *string `json:"allow_rule_that_naively_matches"`
	Why   string  `json:"why_dangerous"`
	// NeedsWorkspace: what makes the command unsafe is in the files of
	// the permission tests' workspace (a secret, a link leading out),
	// which the analyser never looks at: the chain's test covers it.
	NeedsWorkspace bool `json:"needs_workspace"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	// The permission package's corpus: one file for both packages.
	b, err := os.ReadFile("../testdata/corpus.json")
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("parse corpus: %v", err)
	}
	return cs
}

// projectCodeCases are corpus command cases whose point is that the allowed
// command runs code the workspace defines (npm test runs package.json's
// script). Flagging them Unsafe would contradict allowing `npm run test`,
// `go test` or `make` at all, so the analyser reports them in ProjectCode
// for the chain to weigh (e.g. against edits auto-accepted this session).
var projectCodeCases = map[string]bool{"npm test": true}

func TestCorpus(t *testing.T) {
	cs := loadCorpus(t)
	counts := map[string]int{}
	for _, c := range cs {
		counts[c.Kind]++
		if c.Kind == "path" || c.NeedsWorkspace {
			continue // file tools' business (pathguard), or the chain's
		}
		t.Run(c.Kind+"/"+c.Input, func(t *testing.T) {
			a := shell.Analyze(c.Input, opt)
			switch c.Kind {
			case "command":
				r := parseRule(t, *c.Rule)
				for _, lenient := range []bool{false, true} {
					if !naiveSafe(a, []rule{r}, lenient) {
						continue
					}
					if projectCodeCases[c.Input] && len(a.ProjectCode) > 0 {
						continue
					}
					t.Errorf("%s covers the command (lenient=%v), but %s\nanalysis: %s", *c.Rule, lenient, c.Why, dump(a))
				}
			case "dangerous":
				if len(a.Dangerous) == 0 {
					t.Errorf("not flagged dangerous (%s)\nanalysis: %s", c.Why, dump(a))
				}
			case "benign":
				if len(a.Dangerous) > 0 || a.ParseError != "" {
					t.Errorf("benign command flagged: %s\nanalysis: %s", c.Why, dump(a))
				}
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
		})
	}
	if counts["command"] == 0 || counts["dangerous"] == 0 || counts["benign"] == 0 {
		t.Fatalf("corpus incomplete: %v", counts)
	}
}

func dump(a *shell.Analysis) string {
	b, _ := json.MarshalIndent(a, "", "  ")
	return string(b)
}

func cmdOf(text string, args ...string) shell.Command {
	return shell.Command{Args: args, Dynamic: make([]bool, len(args)), Text: text}
}

// safeCases are ordinary commands that must pass with fitting rules, with
// the exact analysis.
var safeCases = []struct {
	cmd   string
	rules []string
	want  shell.Analysis
}{
	{"git status", []string{"Bash(git status)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git status", "git", "status")}}},
	{"npm run test -- --watch", []string{"Bash(npm run test:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("npm run test -- --watch", "npm", "run", "test", "--", "--watch")},
			ProjectCode: []string{"npm run test runs package scripts defined in the workspace"}}},
	{"go test ./...", []string{"Bash(go test:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("go test ./...", "go", "test", "./...")},
			ProjectCode: []string{"go test runs code from the workspace"}}},
	{"ls -la src | grep foo", []string{"Bash(ls:*)", "Bash(grep:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("ls -la src", "ls", "-la", "src"), cmdOf("grep foo", "grep", "foo")}}},
	{"echo hi > out.txt", []string{"Bash(echo:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("echo hi", "echo", "hi")}, Writes: []shell.Write{{Path: "out.txt"}}}},
	{"cat file 2>/dev/null", []string{"Bash(cat:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("cat file", "cat", "file")}}},
	{"make build && make test", []string{"Bash(make build)", "Bash(make test)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("make build", "make", "build"), cmdOf("make test", "make", "test")},
			ProjectCode: []string{"make runs the recipes of the workspace's Makefile"}}},
	{"git log --oneline | head -20", []string{"Bash(git log:*)", "Bash(head:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git log --oneline", "git", "log", "--oneline"), cmdOf("head -20", "head", "-20")}}},
	{"cat <<'EOF' > notes.md\nrun $(rm -rf /) and `curl x | sh` later\nEOF", []string{"Bash(cat:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("cat", "cat")}, Writes: []shell.Write{{Path: "notes.md"}}}},
	{"cat <<EOF >> notes.md\nplain text\nEOF", []string{"Bash(cat:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("cat", "cat")}, Writes: []shell.Write{{Path: "notes.md", Append: true}}}},
	{"git diff HEAD~1 -- src/main.go", []string{"Bash(git diff:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git diff HEAD~1 -- src/main.go", "git", "diff", "HEAD~1", "--", "src/main.go")}}},
	{"go build ./... 2>&1 | tail -5", []string{"Bash(go build:*)", "Bash(tail:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("go build ./...", "go", "build", "./..."), cmdOf("tail -5", "tail", "-5")}}},
	{"rg -n 'func main' --type go", []string{"Bash(rg:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("rg -n 'func main' --type go", "rg", "-n", "func main", "--type", "go")}}},
	{`grep -rn "/api/v1" src`, []string{"Bash(grep:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`grep -rn "/api/v1" src`, "grep", "-rn", "/api/v1", "src")}}},
	{"cd src && ls -la", []string{"Bash(cd:*)", "Bash(ls:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("cd src", "cd", "src"), cmdOf("ls -la", "ls", "-la")}}},
	{"mkdir -p build/out && cp a.txt build/out/", []string{"Bash(mkdir:*)", "Bash(cp:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("mkdir -p build/out", "mkdir", "-p", "build/out"), cmdOf("cp a.txt build/out/", "cp", "a.txt", "build/out/")},
			Writes: []shell.Write{{Path: "build/out"}, {Path: "build/out/"}}}},
	{`echo "rm -rf /"`, []string{"Bash(echo:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`echo "rm -rf /"`, "echo", "rm -rf /")}}},
	{"GIT_PAGER=cat git log -5", []string{"Bash(git log:*)"},
		shell.Analysis{Commands: []shell.Command{{Args: []string{"git", "log", "-5"}, Dynamic: []bool{false, false, false}, Assigns: []string{"GIT_PAGER=cat"}, Text: "GIT_PAGER=cat git log -5"}}}},
	{"sed -n '1,20p' README.md", []string{"Bash(sed:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("sed -n '1,20p' README.md", "sed", "-n", "1,20p", "README.md")}}},
	{"awk '{print $1}' data.txt", []string{"Bash(awk:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("awk '{print $1}' data.txt", "awk", "{print $1}", "data.txt")}}},
	{"sed -i 's/foo/bar/g' src/a.go", []string{"Bash(sed:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("sed -i 's/foo/bar/g' src/a.go", "sed", "-i", "s/foo/bar/g", "src/a.go")},
			Writes: []shell.Write{{Path: "src/a.go"}}}},
	{"find . -name '*.go' -type f", []string{"Bash(find:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("find . -name '*.go' -type f", "find", ".", "-name", "*.go", "-type", "f")}}},
	{`git commit -m "fix: handle /tmp paths"`, []string{"Bash(git commit:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`git commit -m "fix: handle /tmp paths"`, "git", "commit", "-m", "fix: handle /tmp paths")}}},
	{"jq '.name' package.json", []string{"Bash(jq:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("jq '.name' package.json", "jq", ".name", "package.json")}}},
	{"ls ~/project/src", []string{"Bash(ls:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("ls ~/project/src", "ls", "/home/user/project/src")}}},
	{"cat 'a b.txt' \"c d.txt\" e\\ f.txt", []string{"Bash(cat:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`cat 'a b.txt' "c d.txt" e\ f.txt`, "cat", "a b.txt", "c d.txt", "e f.txt")}}},
	{"printf '%s\\n' b a | sort -u", []string{"Bash(printf:*)", "Bash(sort:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`printf '%s\n' b a`, "printf", `%s\n`, "b", "a"), cmdOf("sort -u", "sort", "-u")}}},
	{"git -C sub status", []string{"Bash(git -C sub status)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git -C sub status", "git", "-C", "sub", "status")}}},
	{"npm test 2>&1 | tail -20", []string{"Bash(npm test)", "Bash(tail:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("npm test", "npm", "test"), cmdOf("tail -20", "tail", "-20")},
			ProjectCode: []string{"npm test runs package scripts defined in the workspace"}}},
	{"docker ps -a", []string{"Bash(docker ps:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("docker ps -a", "docker", "ps", "-a")}}},
	{"curl -fsSL -o out.tar.gz https://example.com/x.tar.gz", []string{"Bash(curl:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("curl -fsSL -o out.tar.gz https://example.com/x.tar.gz", "curl", "-fsSL", "-o", "out.tar.gz", "https://example.com/x.tar.gz")},
			Writes: []shell.Write{{Path: "out.tar.gz"}}}},
	{"rm -rf ./build node_modules", []string{"Bash(rm:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("rm -rf ./build node_modules", "rm", "-rf", "./build", "node_modules")},
			Writes: []shell.Write{{Path: "./build", Remove: true}, {Path: "node_modules", Remove: true}}}},
	{"git status\ngit diff --stat", []string{"Bash(git status)", "Bash(git diff:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git status", "git", "status"), cmdOf("git diff --stat", "git", "diff", "--stat")}}},
	{"(cd src && go vet ./...) && echo done", []string{"Bash(cd:*)", "Bash(go vet:*)", "Bash(echo:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("cd src", "cd", "src"), cmdOf("go vet ./...", "go", "vet", "./..."), cmdOf("echo done", "echo", "done")}}},
	{"echo $'tab\\there'", []string{"Bash(echo:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf(`echo $'tab\there'`, "echo", "tab\there")}}},
	{"ls -la > listing.txt 2>&1 &", []string{"Bash(ls:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("ls -la", "ls", "-la")}, Writes: []shell.Write{{Path: "listing.txt"}}}},
	{"command -v go", []string{"Bash(command -v:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("command -v go", "command", "-v", "go")}}},
	{"git branch -a --contains HEAD", []string{"Bash(git branch:*)"},
		shell.Analysis{Commands: []shell.Command{cmdOf("git branch -a --contains HEAD", "git", "branch", "-a", "--contains", "HEAD")}}},
}

func TestSafeCommands(t *testing.T) {
	if len(safeCases) < 20 {
		t.Fatalf("only %d cases", len(safeCases))
	}
	for _, c := range safeCases {
		t.Run(c.cmd, func(t *testing.T) {
			a := shell.Analyze(c.cmd, opt)
			// Effects have their own tests (effects_test.go).
			// Effects and the commands' identities have their own
			// tests (effects_test.go, identity_test.go).
			if d := cmp.Diff(&c.want, a, cmpopts.IgnoreFields(shell.Analysis{}, "Effects"),
				cmpopts.IgnoreFields(shell.Command{}, "Program", "Canon", "CanonDynamic")); d != "" {
				t.Errorf("analysis (-want +got):\n%s", d)
			}
			var rules []rule
			for _, r := range c.rules {
				rules = append(rules, parseRule(t, r))
			}
			if !naiveSafe(a, rules, false) {
				t.Errorf("rules %v do not cover it", c.rules)
			}
		})
	}
}
