package permission_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novacode/nova/permission"
)

// Deny rules hold for every way of reaching the same program or file that
// the analyser can see; what it cannot resolve against them is asked, in
// every mode, never allowed.
func TestDenyRulesHoldAgainstDodges(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(filepath.Join(e.ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		deny []string
		cmd  string
		want permission.Behavior
	}{
		// A program by another name.
		{[]string{"Bash(rm:*)"}, "rm -rf build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "/bin/rm -rf build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "/usr/bin/rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "./bin/rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, `\rm build`, permission.Deny},
		{[]string{"Bash(rm:*)"}, `"r"m build`, permission.Deny},
		{[]string{"Bash(rm:*)"}, `$'\x72m' build`, permission.Deny},
		{[]string{"Bash(rm:*)"}, "r=rm; $r -rf build", permission.Deny},
		{[]string{"Bash(rm:*)"}, `r=/bin/rm; "$r" build`, permission.Deny},
		{[]string{"Bash(rm:*)"}, "$(which rm) build", permission.Ask},
		{[]string{"Bash(rm:*)"}, "`which rm` build", permission.Ask},
		{[]string{"Bash(rm:*)"}, "$RM build", permission.Ask},
		{[]string{"Bash(rm:*)"}, "${X:-rm} build", permission.Ask},
		// Wrappers and strings that run it.
		{[]string{"Bash(rm:*)"}, "command rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "sudo rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "env X=1 rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "timeout 5 nice rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "echo build | xargs rm", permission.Deny},
		{[]string{"Bash(rm:*)"}, "find . -name '*.o' -exec rm {} +", permission.Deny},
		{[]string{"Bash(rm:*)"}, "sh -c 'rm build'", permission.Deny},
		{[]string{"Bash(rm:*)"}, "eval rm build", permission.Deny},
		{[]string{"Bash(rm:*)"}, "busybox rm build", permission.Deny},
		// git's global options.
		{[]string{"Bash(git push:*)"}, "git push origin main", permission.Deny},
		{[]string{"Bash(git push:*)"}, "git -C . push", permission.Deny},
		{[]string{"Bash(git push:*)"}, "/usr/bin/git push", permission.Deny},
		{[]string{"Bash(git push:*)"}, "git --no-pager --git-dir=.git --work-tree=. push", permission.Deny},
		{[]string{"Bash(git push:*)"}, "git -c push.default=current push", permission.Deny},
		{[]string{"Bash(git push:*)"}, "git -c alias.p=push p", permission.Ask},
		{[]string{"Bash(git push:*)"}, "git status", permission.Allow},
		// Files: every command that writes or reads them.
		{[]string{"Edit(./docs/**)"}, "cp README.md docs/README.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "mv x docs/a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "echo hi > docs/a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "cd docs && echo hi >> a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "echo hi | tee docs/a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "sed -i s/a/b/ docs/a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "rm docs/a.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "touch docs/new.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "dd if=/dev/zero of=docs/x bs=1 count=1", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "python3 gen.py docs/out.md", permission.Deny},
		{[]string{"Edit(./docs/**)"}, "cp x $DEST", permission.Ask},
		{[]string{"Edit(./docs/**)"}, "echo hi > $OUT", permission.Ask},
		{[]string{"Read(./.env)"}, "cat .env", permission.Deny},
		{[]string{"Read(./.env)"}, "cat ./src/../.env", permission.Deny},
		{[]string{"Read(./.env)"}, "cd src && cat ../.env", permission.Deny},
		{[]string{"Read(./.env)"}, "grep KEY .env", permission.Deny},
		{[]string{"Read(./.env)"}, "wc -c < .env", permission.Deny},
		{[]string{"Read(./.env)"}, "cp .env /tmp/x", permission.Deny},
		{[]string{"Read(./.env)"}, "python3 load.py .env", permission.Deny},
		{[]string{"Read(./.env)"}, "cat $F", permission.Ask},
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeBypass} {
		for _, tc := range tests {
			c := checker(t, e, mode, []string{"Bash"}, nil, tc.deny)
			d := check(c, "Bash", input("command", tc.cmd))
			if d.Behavior != tc.want {
				t.Errorf("%s, deny %v: %q: %s (%s), want %s", mode, tc.deny, tc.cmd, d.Behavior, d.Reason, tc.want)
			}
		}
	}
}

// The hard checks — protected paths, secrets, hard links, places outside
// the workspace — hold for every tool in every mode; bypassPermissions
// skips only what a person would approve for ordinary work.
func TestHardChecksInEveryMode(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{".novacode/settings.json", ".novacode/settings.local.json", ".git/config"} {
		p := filepath.Join(e.ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ask := []struct {
		tool string
		in   string // file_path
	}{
		{"Write", filepath.Join(e.home, ".bashrc")},
		{"Edit", filepath.Join(e.home, ".bashrc")},
		{"Write", filepath.Join(e.home, ".ssh", "authorized_keys")},
		{"Edit", ".git/config"},
		{"Write", ".git/hooks/pre-commit"},
		{"Write", ".novacode/settings.json"},
		{"Edit", ".novacode/settings.local.json"},
		{"Write", "hard"},                                 // a hard link to a file outside
		{"Write", "out-link"},                             // a symlink to a file outside
		{"Write", filepath.Join(e.outside, "new.txt")},    // outside the workspace
		{"Read", ".env"},                                  // a secret
		{"Read", filepath.Join(e.home, ".ssh", "id_rsa")}, // a secret outside
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModeBypass} {
		c := checker(t, e, mode, []string{"Write", "Edit", "Read"}, nil, nil)
		for _, tc := range ask {
			if d := check(c, tc.tool, input("file_path", tc.in)); d.Behavior != permission.Ask {
				t.Errorf("%s: %s %s: %s (%s), want ask", mode, tc.tool, tc.in, d.Behavior, d.Reason)
			} else if !d.NeedsPerson && !d.Hard {
				// Neither the mode nor a hook's allow may lift it.
				t.Errorf("%s: %s %s: an ask that is neither NeedsPerson nor Hard: %s", mode, tc.tool, tc.in, d.Reason)
			}
		}
		// Ordinary work goes on.
		if d := check(c, "Write", input("file_path", "src/new.go")); d.Behavior != permission.Allow {
			t.Errorf("%s: Write src/new.go: %+v", mode, d)
		}
	}
	// The same through commands, in bypass mode.
	c := checker(t, e, permission.ModeBypass, nil, nil, nil)
	for _, cmd := range []string{
		"cp x ~/.bashrc", "echo x >> .git/config", "cp evil .novacode/settings.json", "echo x > hard",
		"cp x ../outside/y", "cat .env", "cat ~/.ssh/id_rsa", "vim .git/config", "mytool .novacode/settings.local.json",
	} {
		if d := check(c, "Bash", input("command", cmd)); d.Behavior != permission.Ask || !d.NeedsPerson {
			t.Errorf("bypass: %q: %s (%s, needs a person %v), want ask of a person", cmd, d.Behavior, d.Reason, d.NeedsPerson)
		}
	}
	if d := check(c, "Bash", input("command", "cp README.md docs.md && make")); d.Behavior != permission.Allow {
		t.Errorf("bypass: ordinary work: %+v", d)
	}
}

// Reads by commands are resolved like the file tools' paths and get the
// same secret and outside-the-workspace checks, whatever the rules allow.
func TestCommandReadsAreCheckedLikeFileReads(t *testing.T) {
	e := newEnv(t)
	if err := os.Symlink(filepath.Join(e.home, ".ssh"), filepath.Join(e.ws, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rules []string
		cmd   string
		want  permission.Behavior
	}{
		{[]string{"Bash(cat:*)"}, "cat .env", permission.Ask},
		{[]string{"Bash(cat:*)"}, "cat link/id_rsa", permission.Ask},
		{[]string{"Bash(cat:*)"}, "cat out-link", permission.Ask},
		{[]string{"Bash(cat:*)"}, "cat out-dir/secret.txt", permission.Ask},
		{[]string{"Bash(head:*)"}, "head -c 100 < .env", permission.Ask},
		{[]string{"Bash(grep:*)"}, "grep -r SECRET .", permission.Ask},
		{[]string{"Bash(rg:*)"}, "rg --hidden SECRET", permission.Ask},
		{[]string{"Bash(python3:*)"}, "python3 show.py .env", permission.Ask},
		{[]string{"Bash(cat:*)"}, "cat src/main.go", permission.Allow},
		{[]string{"Bash(grep:*)"}, "grep -r package src", permission.Allow},
		{[]string{"Bash(rg:*)"}, "rg SECRET", permission.Allow}, // rg skips .env, a hidden file
		// A rule naming the secret itself lifts the question.
		{[]string{"Bash(cat:*)", "Read(./.env)"}, "cat .env", permission.Allow},
	}
	for _, tc := range tests {
		c := checker(t, e, permission.ModeDefault, tc.rules, nil, nil)
		if d := check(c, "Bash", input("command", tc.cmd)); d.Behavior != tc.want {
			t.Errorf("%v: %q: %s (%s), want %s", tc.rules, tc.cmd, d.Behavior, d.Reason, tc.want)
		}
	}
}

// A write through a hard link changes the file's other names too: every
// command that writes one is asked, in every mode; deleting one name is
// not a write through it.
func TestHardLinkedFilesAreNotWrittenThrough(t *testing.T) {
	e := newEnv(t)
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeBypass} {
		c := checker(t, e, mode, []string{"Bash"}, nil, nil)
		for _, cmd := range []string{"cp src/main.go hard", "dd if=/dev/zero of=hard count=1", "echo x >> hard",
			"sed -i s/a/b/ hard", "truncate -s 0 hard", "chmod 600 hard", "tee hard < src/main.go", "mv src/main.go hard"} {
			if d := check(c, "Bash", input("command", cmd)); d.Behavior != permission.Ask {
				t.Errorf("%s: %q: %s (%s), want ask", mode, cmd, d.Behavior, d.Reason)
			}
		}
	}
	c := checker(t, e, permission.ModeBypass, nil, nil, nil)
	if d := check(c, "Bash", input("command", "rm -f hard")); d.Behavior != permission.Allow {
		t.Errorf("bypass: rm of a hard-linked name: %+v", d)
	}
}
