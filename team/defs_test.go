package team_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/team"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string // also the file name Parse gets
		data string
		want team.Definition
	}{
		{"tools as a string", "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\nYou review code.\n",
			team.Definition{Name: "code-reviewer", Description: "Reviews code.", Tools: []string{"Read", "Grep", "Glob", "Bash"}, Model: "sonnet", Prompt: "You review code."}},
		{"tools as a flow list", "---\nname: a\ndescription: d\ntools: [\"Read\", Grep]\n---\np",
			team.Definition{Name: "a", Description: "d", Tools: []string{"Read", "Grep"}, Prompt: "p"}},
		{"tools as a block list", "---\nname: a\ndescription: d\ntools:\n  - Bash\n  - Read\n---\np",
			team.Definition{Name: "a", Description: "d", Tools: []string{"Bash", "Read"}, Prompt: "p"}},
		{"tools absent", "---\nname: a\ndescription: d\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"tools null", "---\nname: a\ndescription: d\ntools:\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"tools star", "---\nname: a\ndescription: d\ntools: \"*\"\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"tools an empty list: none", "---\nname: a\ndescription: d\ntools: []\n---\np",
			team.Definition{Name: "a", Description: "d", Tools: []string{}, Prompt: "p"}},
		{"tools with a pattern, blanks and a repeat", "---\nname: a\ndescription: d\ntools: Bash(git diff:*, git log:*),  Read,, Read ,\n---\np",
			team.Definition{Name: "a", Description: "d", Tools: []string{"Bash(git diff:*, git log:*)", "Read"}, Prompt: "p"}},
		{"model inherit", "---\nname: a\ndescription: d\nmodel: inherit\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"extra keys ignored", "---\nname: a\ndescription: d\ncolor: purple\npermissionMode: acceptEdits\nhooks:\n  Stop: []\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"name-from-the-file", "---\ndescription: d\n---\np",
			team.Definition{Name: "name-from-the-file", Description: "d", Prompt: "p"}},
		{"CRLF", "---\r\nname: a\r\ndescription: d\r\ntools: Read, Grep\r\n---\r\nline 1\r\nline 2\r\n",
			team.Definition{Name: "a", Description: "d", Tools: []string{"Read", "Grep"}, Prompt: "line 1\nline 2"}},
		{"BOM", "\uFEFF---\nname: a\ndescription: d\n---\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"BOM and CRLF", "\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\np\r\n",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"delimiters with trailing blanks", "--- \nname: a\ndescription: d\n---\t\np",
			team.Definition{Name: "a", Description: "d", Prompt: "p"}},
		{"no body", "---\nname: a\ndescription: d\n---",
			team.Definition{Name: "a", Description: "d"}},
		{"a rule in the body", "---\nname: a\ndescription: d\n---\nbefore\n---\nafter",
			team.Definition{Name: "a", Description: "d", Prompt: "before\n---\nafter"}},
		{"plain value with colons", "---\nname: a\ndescription: Use it for this: examples: <example>user: \"hi\"</example>\nmodel: sonnet\n---\np",
			team.Definition{Name: "a", Description: "Use it for this: examples: <example>user: \"hi\"</example>", Model: "sonnet", Prompt: "p"}},
		{"plain value ending in a colon", "---\nname: a\ndescription: Use it for these cases:\n---\np",
			team.Definition{Name: "a", Description: "Use it for these cases:", Prompt: "p"}},
		{"plain value starting with an indicator", "---\nname: a\ndescription: @mention it: for reviews\n---\np",
			team.Definition{Name: "a", Description: "@mention it: for reviews", Prompt: "p"}},
		{"escaped line breaks", "---\nname: a\ndescription: First line.\\n\\n<example>x</example>\n---\np",
			team.Definition{Name: "a", Description: "First line.\n\n<example>x</example>", Prompt: "p"}},
		{"block scalar", "---\nname: a\ndescription: |\n  one\n  two\n---\np",
			team.Definition{Name: "a", Description: "one\ntwo", Prompt: "p"}},
		{"numbers are text", "---\nname: 007\ndescription: 42\nmodel: 4.5\n---\np",
			team.Definition{Name: "007", Description: "42", Model: "4.5", Prompt: "p"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := team.Parse(tc.name, []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, data string
		want       string // in the error
	}{
		{"empty file", "", "no front matter"},
		{"no front matter", "You are a reviewer.\n", "no front matter"},
		{"front matter not at the top", "\n---\nname: a\ndescription: d\n---\np", "no front matter"},
		{"not closed", "---\nname: a\ndescription: d\n", "front matter not closed"},
		{"bad YAML", "---\nname: a\ndescription: [unclosed\n---\np", "not valid YAML"},
		// An unindented continuation is no YAML; Claude Code cannot read
		// it either.
		{"multi-line plain description", "---\nname: a\ndescription: Use it when needed.\n<example>\nContext: x\n</example>\n---\np", "not valid YAML"},
		{"colon value continued", "---\nname: a\ndescription: Use it: always\n  and everywhere\n---\np", "not valid YAML"},
		{"not a mapping", "---\n- a\n- b\n---\np", "not valid YAML"},
		{"wrong type", "---\nname: [a, b]\ndescription: d\n---\np", "not valid YAML"},
		{"no description", "---\nname: a\n---\np", `agent "a" has no description`},
		{"empty description", "---\nname: a\ndescription: \"  \"\n---\np", `agent "a" has no description`},
		{"empty front matter", "---\n---\np", "has no description"},
		{"tools a mapping", "---\nname: a\ndescription: d\ntools:\n  Read: true\n---\np", "tools: want a comma-separated string or a list"},
		{"tools a nested list", "---\nname: a\ndescription: d\ntools: [[Read]]\n---\np", "each item must be a tool name"},
		{"name with a space", "---\nname: code reviewer\ndescription: d\n---\np", "space or control character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := team.Parse("bad", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error; got %+v", d)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad") {
				t.Errorf("error %q: want it to contain %q and the file's name", err, tc.want)
			}
		})
	}
	if _, err := team.Parse("", []byte("---\ndescription: d\n---\n")); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("no name anywhere: error %v", err)
	}
}

// TestClaudeCodeFiles loads files written as Claude Code users write them.
func TestClaudeCodeFiles(t *testing.T) {
	dir := filepath.Join("testdata", "claude")
	defs, problems := team.Load(dir)
	if err := errors.Join(problems...); err != nil {
		t.Fatal(err)
	}
	src := func(f string) string { return filepath.Join(dir, f) }
	want := append(team.Builtins(),
		team.Definition{
			Name:        "code-reviewer",
			Description: "Reviews code for quality, security and maintainability. Use right after writing or changing code.",
			Tools:       []string{"Read", "Grep", "Glob", "Bash"},
			Model:       "sonnet",
			Prompt:      "You are a senior code reviewer making sure the code is clear and safe.\n\nWhen invoked:\n1. Run git diff to see the recent changes.\n2. Review the changed files; start at once.",
			Source:      src("code-reviewer.md"),
		},
		team.Definition{
			Name: "conversation-analyzer",
			Description: "Use this agent to find behaviours in a conversation worth preventing with hooks. Examples: <example>Context: The user asks for hooks without saying which\n" +
				"user: \"/hookify\"\nassistant: \"I'll look through the conversation first.\"\n<commentary>No arguments: analyse the conversation.</commentary></example>",
			Tools:  []string{"Read", "Grep"},
			Prompt: "You analyse conversations to find behaviours that hooks could prevent.",
			Source: src("conversation-analyzer.md"),
		},
		team.Definition{
			Name:        "doc-writer",
			Description: "Writes and updates documentation",
			Prompt:      "You write documentation in plain words.",
			Source:      src("doc-writer.md"),
		},
		team.Definition{
			Name:        "test-runner",
			Description: "Runs the tests and fixes failures: use proactively after a change.",
			Tools:       []string{"Bash", "Read", "Edit"},
			Prompt:      "You run the project's tests. When a test fails, find the cause and fix it,\nkeeping the test's intent.",
			Source:      src("test-runner.md"),
		},
	)
	if diff := cmp.Diff(want, defs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuiltins(t *testing.T) {
	b := team.Builtins()
	var names []string
	for _, d := range b {
		names = append(names, d.Name)
		if d.Description == "" || d.Prompt != "" || d.Tools != nil || d.Source != team.SourceBuiltin || d.Model != "" {
			t.Errorf("%s: %+v", d.Name, d)
		}
		if d.ReadOnly != (d.Name == "Explore") {
			t.Errorf("%s: ReadOnly %v", d.Name, d.ReadOnly)
		}
	}
	if diff := cmp.Diff([]string{"general-purpose", "Explore"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	b[0].Name = "changed"
	if team.Builtins()[0].Name != "general-purpose" {
		t.Error("Builtins shares its values between calls")
	}
}

func TestDirs(t *testing.T) {
	cases := []struct {
		name, home, workspace string
		want                  []string
	}{
		{"both", "/home/u", "/src/p", []string{"/home/u/.claude/agents", "/home/u/.novacode/agents", "/src/p/.claude/agents", "/src/p/.novacode/agents"}},
		{"no workspace", "/home/u", "", []string{"/home/u/.claude/agents", "/home/u/.novacode/agents"}},
		{"no home", "", "/src/p", []string{"/src/p/.claude/agents", "/src/p/.novacode/agents"}},
		{"workspace is home", "/home/u", "/home/u/", []string{"/home/u/.claude/agents", "/home/u/.novacode/agents"}},
		{"neither", "", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, team.Dirs(tc.home, tc.workspace)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// writeDir writes files (name -> content) to a new directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func def(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\nprompt of " + name + "\n"
}

func TestLoad(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFiles(t, home, map[string]string{
		".claude/agents/reviewer.md":   def("reviewer", "user's Claude Code reviewer"),
		".claude/agents/writer.md":     def("writer", "user's writer"),
		".claude/agents/notes.txt":     "not a definition",
		".claude/agents/sub/x.md":      def("x", "in a subdirectory: not loaded"),
		".novacode/agents/reviewer.md": def("reviewer", "user's NovaCode reviewer"),
		".novacode/agents/broken.md":   "no front matter",
	})
	writeFiles(t, ws, map[string]string{
		".claude/agents/a-tester.md":      def("tester", "project's tester"),
		".claude/agents/b-tester.md":      def("tester", "project's other tester"),
		".claude/agents/explore.md":       def("Explore", "project's explorer"),
		".novacode/agents/reviewer.md":    def("reviewer", "project's reviewer"),
		".novacode/agents/bad-yaml.md":    "---\ndescription: [\n---\n",
		".novacode/agents/dir.md/keep.md": def("keep", "a directory named like a file: skipped"),
	})
	defs, problems := team.Load(team.Dirs(home, ws)...)

	type entry struct{ Name, Description, Source string }
	var got []entry
	for _, d := range defs {
		src, _ := filepath.Rel(home, d.Source)
		if !strings.HasPrefix(d.Source, home) {
			src, _ = filepath.Rel(ws, d.Source)
			src = "ws/" + src
		}
		if d.Source == team.SourceBuiltin {
			src = d.Source
		}
		got = append(got, entry{d.Name, d.Description, src})
	}
	want := []entry{
		{"general-purpose", team.Builtins()[0].Description, team.SourceBuiltin},
		{"Explore", "project's explorer", "ws/.claude/agents/explore.md"},
		{"reviewer", "project's reviewer", "ws/.novacode/agents/reviewer.md"},
		{"writer", "user's writer", ".claude/agents/writer.md"},
		{"tester", "project's other tester", "ws/.claude/agents/b-tester.md"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if defs[1].ReadOnly {
		t.Error("a file's Explore kept the built-in's ReadOnly")
	}

	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	wantProblems := []string{
		filepath.Join(home, ".novacode/agents/broken.md") + ": no front matter",
		`a-tester.md and b-tester.md both define agent "tester"; b-tester.md is used`,
		filepath.Join(ws, ".novacode/agents/bad-yaml.md") + ": front matter is not valid YAML",
	}
	if len(msgs) != len(wantProblems) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(msgs, "\n"), len(wantProblems))
	}
	for i, w := range wantProblems {
		if !strings.Contains(msgs[i], w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, msgs[i], w)
		}
	}
}

func TestLoadDirs(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		defs, problems := team.Load()
		if diff := cmp.Diff(team.Builtins(), defs); diff != "" || problems != nil {
			t.Errorf("problems %v; (-want +got):\n%s", problems, diff)
		}
	})
	t.Run("missing", func(t *testing.T) {
		defs, problems := team.Load(filepath.Join(t.TempDir(), "nope"))
		if len(defs) != 2 || problems != nil {
			t.Errorf("defs %d, problems %v", len(defs), problems)
		}
	})
	t.Run("a file, not a directory", func(t *testing.T) {
		dir := writeDir(t, map[string]string{"agents": "x"})
		defs, problems := team.Load(filepath.Join(dir, "agents"))
		if len(defs) != 2 || len(problems) != 1 {
			t.Errorf("defs %d, problems %v", len(defs), problems)
		}
	})
	t.Run("too large", func(t *testing.T) {
		dir := writeDir(t, map[string]string{"big.md": def("big", "d") + strings.Repeat("x", 1<<20)})
		_, problems := team.Load(dir)
		if len(problems) != 1 || !strings.Contains(problems[0].Error(), "larger than") {
			t.Errorf("problems %v", problems)
		}
	})
	t.Run("later directory wins", func(t *testing.T) {
		a := writeDir(t, map[string]string{"r.md": def("r", "first")})
		b := writeDir(t, map[string]string{"r.md": def("r", "second")})
		for _, tc := range []struct {
			dirs []string
			want string
		}{{[]string{a, b}, "second"}, {[]string{b, a}, "first"}} {
			defs, problems := team.Load(tc.dirs...)
			if problems != nil || len(defs) != 3 || defs[2].Description != tc.want {
				t.Errorf("Load(%v): problems %v, defs %+v; want %q", tc.dirs, problems, defs, tc.want)
			}
		}
	})
}

func TestDescribe(t *testing.T) {
	defs := append(team.Builtins(),
		team.Definition{Name: "code-reviewer", Description: "Reviews code.", Tools: []string{"Read", "Grep", "Bash"}},
		team.Definition{Name: "thinker", Description: "Thinks.\nOn two lines.", Tools: []string{}},
		team.Definition{Name: "all", Description: "Anything."},
	)
	want := "- general-purpose: " + team.Builtins()[0].Description + " (Tools: All tools)\n" +
		"- Explore: " + team.Builtins()[1].Description + " (Tools: All read-only tools)\n" +
		"- code-reviewer: Reviews code. (Tools: Read, Grep, Bash)\n" +
		"- thinker: Thinks.\nOn two lines. (Tools: None)\n" +
		"- all: Anything. (Tools: All tools)"
	if diff := cmp.Diff(want, team.Describe(defs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := team.Describe(nil); got != "" {
		t.Errorf("Describe(nil) = %q", got)
	}
}
