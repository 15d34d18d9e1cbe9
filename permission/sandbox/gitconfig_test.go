package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// configCases are config files in every form of git's syntax, with the
// variables git reads from them ("section.sub.key=value", as git config
// --list prints them); want nil: git rejects the file.
var configCases = []struct {
	name string
	data string
	want []string
}{
	{"plain", "[core]\n\tbare = false\n", []string{"core.bare=false"}},
	{"no value is true", "[core]\n\tbare\n", []string{"core.bare"}},
	{"case", "[CoRe]\n\tFsMonitor = x\n", []string{"core.fsmonitor=x"}},
	{"subsection", "[remote \"Origin\"]\n\turl = u\n", []string{"remote.Origin.url=u"}},
	{"escaped subsection", "[remote \"a\\\"b\\\\c\"]\n\turl = u\n", []string{"remote.a\"b\\c.url=u"}},
	{"dotted subsection", "[remote.Origin]\n\turl = u\n", []string{"remote.origin.url=u"}},
	{"header and variable on one line", "[core] fsmonitor = x\n", []string{"core.fsmonitor=x"}},
	{"comments", "# c\n; c\n[core] ; c\n\tfsmonitor = x # c\n", []string{"core.fsmonitor=x"}},
	{"quotes keep comment chars", "[alias]\n\tx = \"!a # b ; c\"\n", []string{"alias.x=!a # b ; c"}},
	{"inner blanks kept", "[alias]\n\tx =   a   b  \n", []string{"alias.x=a   b"}},
	{"escapes", "[a]\n\tb = x\\ty\\\\z\\\"\n", []string{"a.b=x\ty\\z\""}},
	{"continuation", "[core]\n\tfsmonitor = ev\\\nil\n", []string{"core.fsmonitor=evil"}},
	{"BOM", "\xef\xbb\xbf[core]\n\tbare = true\n", []string{"core.bare=true"}},
	{"CRLF", "[core]\r\n\tbare = true\r\n", []string{"core.bare=true"}},
	{"no trailing newline", "[core]\n\tfsmonitor = x", []string{"core.fsmonitor=x"}},
	{"includeIf", "[includeIf \"gitdir:~/x/\"]\n\tpath = ../inc\n", []string{"includeif.gitdir:~/x/.path=../inc"}},
	{"dashes in names", "[my-sec]\n\tmy-key = 1\n", []string{"my-sec.my-key=1"}},
	{"variable outside a section", "fsmonitor = x\n", []string{"fsmonitor=x"}},
	{"unterminated quote", "[core]\n\tfsmonitor = \"x\n", nil},
	{"bad escape", "[core]\n\tfsmonitor = \\x\n", nil},
	{"bad header", "[core\n\tfsmonitor = x\n", nil},
	{"bad character", "[core]\n\t=x\n", nil},
}

func listEntries(entries []gitConfigEntry) []string {
	out := []string{}
	for _, e := range entries {
		if e.noValue {
			out = append(out, e.name())
		} else {
			out = append(out, e.name()+"="+e.value)
		}
	}
	return out
}

func TestParseGitConfig(t *testing.T) {
	for _, tt := range configCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseGitConfig([]byte(tt.data))
			if tt.want == nil {
				if err == nil {
					t.Errorf("parsed %q, git rejects it: %v", tt.data, listEntries(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, listEntries(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestParseGitConfigAgreesWithGit checks the cases against git itself,
// where it is installed: the parser must see every variable git sees.
func TestParseGitConfigAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true: the git tests must run)")
		}
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, tt := range configCases {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "config")
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "config", "--file", p, "--list", "--null")
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			out, err := cmd.Output()
			if tt.want == nil {
				if err == nil {
					t.Errorf("git accepts it: %q", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("git rejects it: %v", err)
			}
			var got []string
			for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
				k, v, ok := strings.Cut(kv, "\n")
				if ok {
					got = append(got, k+"="+v)
				} else {
					got = append(got, k)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("git reads (-want +got):\n%s", d)
			}
		})
	}
}

func TestSanitizeGitConfig(t *testing.T) {
	tests := []struct {
		name        string
		data        string
		want        []string // what is left, as listed
		wantRemoved []string
	}{
		{"git init", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
			[]string{"core.repositoryformatversion=0", "core.filemode=true", "core.bare=false", "core.logallrefupdates=true"}, nil},
		{"git clone and user", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/r\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = n\n",
			[]string{"core.bare=false", "remote.origin.url=https://example.com/r", "remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*", "branch.main.remote=origin", "branch.main.merge=refs/heads/main", "user.name=n"}, nil},
		{"fsmonitor and friends", "[core]\n\tbare = false\n\tfsmonitor = ./x\n\thooksPath = h\n[alias]\n\tst = !x\n[include]\n\tpath = ../i\n[filter \"f\"]\n\tclean = x\n[remote \"o\"]\n\turl = u\n\tuploadpack = x\n",
			[]string{"core.bare=false", "remote.o.url=u"},
			[]string{"core.fsmonitor", "core.hookspath", "alias.st", "include.path", "filter.f.clean", "remote.o.uploadpack"}},
		{"unreadable", "[core\n\tfsmonitor = x\n",
			[]string{"core.repositoryformatversion=0", "core.filemode=true", "core.bare=true", "core.logallrefupdates=true"},
			[]string{"everything (git config line 2: bad character '\\n' in a section name)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clean, removed := sanitizeGitConfig([]byte(tt.data), true)
			entries, err := parseGitConfig(clean)
			if err != nil {
				t.Fatalf("the clean config does not parse: %v\n%s", err, clean)
			}
			if d := cmp.Diff(tt.want, listEntries(entries)); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantRemoved, removed); d != "" {
				t.Errorf("removed (-want +got):\n%s", d)
			}
		})
	}
}

func TestGitConfigRefs(t *testing.T) {
	entries, err := parseGitConfig([]byte(`[core]
	hooksPath = .husky/_
	fsmonitor = true
	pager = less -R
	editor = "'./tools/my editor' --wait"
[core]
	fsmonitor = tools/fsmon.sh
[include]
	path = ../shared.gitconfig
[includeIf "onbranch:main"]
	path = /abs/inc
[alias]
	st = status
	t = !./scripts/t.sh arg
[diff "img"]
	textconv = bin/exif
[filter "lfs"]
	process = git-lfs filter-process
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []configRef{
		{".husky/_", "worktree"},
		{"./tools/my editor", "worktree"},
		{"tools/fsmon.sh", "worktree"},
		{"../shared.gitconfig", "config"},
		{"/abs/inc", "config"},
		{"./scripts/t.sh", "worktree"},
		{"bin/exif", "worktree"},
	}
	if d := cmp.Diff(want, gitConfigRefs(entries), cmp.AllowUnexported(configRef{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestWorkEntry(t *testing.T) {
	got := map[string]bool{}
	want := map[string]bool{}
	for _, n := range []string{"objects", "refs", "logs", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "index", "index.lock",
		"index.stash.123", "packed-refs", "COMMIT_EDITMSG", "MERGE_MSG", "rebase-merge", "BISECT_LOG", "config.lock",
		"shallow", "TAG_EDITMSG", "sharedindex.abc"} {
		want[n] = true
	}
	for _, n := range []string{"config", "config.worktree", "hooks", "info", "commondir", "gitdir", "modules",
		"worktrees", "branches", "remotes", "description", ".lock", "_EDITMSG", "nova-quarantine", "anything-new"} {
		want[n] = false
	}
	for n := range want {
		got[n] = workEntry(n)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("workEntry (-want +got):\n%s", d)
	}
}
