package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSuggestCommand(t *testing.T) {
	tests := []struct {
		cmd  string // words separated by |
		want string
	}{
		{"git|status", "Bash(git status)"},
		{"git|status|--short", "Bash(git status:*)"},
		{"git", "Bash(git)"},
		{"git|-C|dir|status", "Bash(git -C dir status)"},
		{"git|stash|pop", "Bash(git stash pop)"},
		{"git|stash|pop|--index", "Bash(git stash pop:*)"},
		{"npm|run|test|--|--watch", "Bash(npm run test:*)"},
		{"npm|run|test", "Bash(npm run test)"},
		{"npm|run|test:unit|--ci", "Bash(npm run test:unit:*)"},
		{"npm|install|left-pad", "Bash(npm install:*)"},
		{"pnpm|run|build|--prod", "Bash(pnpm run build:*)"},
		{"go|test|./...", "Bash(go test:*)"},
		{"go|mod|tidy", "Bash(go mod tidy)"},
		{"go|mod|download|-x", "Bash(go mod download:*)"},
		{"cargo|build|--release", "Bash(cargo build:*)"},
		{"/usr/bin/git|log|-p", "Bash(/usr/bin/git log:*)"},
		{"./gradlew|build|--info", "Bash(./gradlew build:*)"},
		{"make|test|V=1", "Bash(make test:*)"},
		{"make|-j4|test", "Bash(make -j4 test)"},
		{"docker|compose|up|-d", "Bash(docker compose up:*)"},
		{"kubectl|get|pods", "Bash(kubectl get:*)"},
		{"uv|run|pytest|-x", "Bash(uv run pytest:*)"},
		{"ls|-la", "Bash(ls -la)"},
		{"rm|-rf|build", "Bash(rm -rf build)"},
		{"grep|-rn|a b|docs/", "Bash(grep -rn 'a b' docs/)"},
		{"echo|*|$HOME|it's", `Bash(echo '*' '$HOME' 'it'\''s')`},
		{"echo|", "Bash(echo '')"},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			words := strings.Split(tc.cmd, "|")
			r := SuggestCommand(words)
			if got := r.String(); got != tc.want {
				t.Errorf("SuggestCommand(%q) = %s, want %s", words, got, tc.want)
			}
			again := mustParse(t, r.String())
			if diff := cmp.Diff(r, again); diff != "" {
				t.Errorf("suggestion does not round-trip (-suggested +parsed):\n%s", diff)
			}
			if !r.MatchCommand(words) {
				t.Errorf("%s does not match the command it was suggested for", r)
			}
		})
	}
	if r := SuggestCommand(nil); r.String() != "" || r.MatchCommand(nil) {
		t.Errorf("SuggestCommand(nil) = %#v, want the zero Rule", r)
	}
}

func TestSuggestPath(t *testing.T) {
	b := Base{ProjectRoot: "/root/proj", Home: "/home/u"}
	tests := []struct {
		tool, path string
		want       string
	}{
		{"Edit", "/root/proj/src/main.go", "Edit(/src/main.go)"},
		{"Write", "/root/proj/src/main.go", "Edit(/src/main.go)"},
		{"MultiEdit", "/root/proj/a.go", "Edit(/a.go)"},
		{"Read", "/root/proj/README.md", "Read(/README.md)"},
		{"Grep", "/root/proj/docs", "Read(/docs)"},
		{"LS", "/root/proj", "Read(/)"},
		{"Read", "/etc/hosts", "Read(//etc/hosts)"},
		{"Edit", "/home/u/.bashrc", "Edit(//home/u/.bashrc)"},
		{"Edit", "/root/project2/x", "Edit(//root/project2/x)"},
		{"Edit", "src/rel.go", "Edit(/src/rel.go)"},
		{"Edit", "/root/proj/a[1]/*.go", `Edit(/a\[1\]/\*.go)`},
		{"Edit", "/root/proj/{x}/?/b\\c", `Edit(/\{x\}/\?/b\\c)`},
		{"Edit", "/root/proj/ok.txt / sp ace", "Edit(/ok.txt[ ]/[ ]sp ace)"},
		{"Read", "/root/proj/~x/#y", "Read(/~x/#y)"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			r := SuggestPath(tc.tool, tc.path, b)
			if got := r.String(); got != tc.want {
				t.Errorf("SuggestPath(%s, %q) = %s, want %s", tc.tool, tc.path, got, tc.want)
			}
			again := mustParse(t, r.String())
			if diff := cmp.Diff(r, again); diff != "" {
				t.Errorf("suggestion does not round-trip (-suggested +parsed):\n%s", diff)
			}
			abs := tc.path
			if !strings.HasPrefix(abs, "/") {
				abs = b.ProjectRoot + "/" + abs
			}
			if !r.MatchPath(abs, b) {
				t.Errorf("%s does not match %s", r, abs)
			}
			if !Covers(r.Tool, tc.tool) {
				t.Errorf("%s does not cover tool %s", r, tc.tool)
			}
		})
	}
	// Outside any project, paths are absolute.
	if got := SuggestPath("Edit", "/root/proj/a", Base{}).String(); got != "Edit(//root/proj/a)" {
		t.Errorf("no project root: %s", got)
	}
	// A sibling with a common prefix is outside the project.
	if r := SuggestPath("Edit", "/root/proj/a", b); r.MatchPath("/root/proj/ab", b) {
		t.Errorf("%s matches a sibling file", r)
	}
}
