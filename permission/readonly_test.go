package permission_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novacode/nova/permission"
)

// Commands that only read inside the workspace run without asking in
// default, acceptEdits and plan modes.
func TestReadOnlyCommandsNeedNoApproval(t *testing.T) {
	e := newEnv(t)
	for _, f := range []string{"README.md", "src/util.go", "docs/guide.md", "conf/app.yaml", "conf/.env"} {
		p := filepath.Join(e.ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds := []string{
		"ls",
		"ls -la src",
		"cat README.md",
		"head -n 20 src/main.go",
		"wc -l src/*.go",
		"cat src/main.go | grep -n main | head -5",
		"ls src && cat src/main.go; pwd",
		"cd src && ls -la && cat main.go",
		"git status",
		"git log --oneline -10",
		"git diff HEAD~1 -- src/main.go",
		"git show HEAD:src/main.go",
		"git branch -a",
		"find . -name '*.go' -type f",
		"find src -maxdepth 1 -newer README.md",
		"rg -n TODO",
		"rg -n func src",
		"grep -rn package src docs",
		"sed -n '1,20p' README.md",
		"sed -n 5p src/main.go",
		"tree -L 2 docs",
		"du -sh src",
		"stat README.md",
		"jq .name package.json",
		"echo hello && date +%s",
		"sort README.md | uniq -c",
		"diff src/main.go src/util.go",
		"wc -l < README.md",
		"echo $HOME",
		"wc -l src/* docs/*",
		"cat conf/*",    // * does not match .env
		"echo src/*.go", // a listing inside
		"test -f src/main.go && echo yes",
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan} {
		c := checker(t, e, mode, nil, nil, nil)
		for _, cmd := range cmds {
			if d := check(c, "Bash", input("command", cmd)); d.Behavior != permission.Allow {
				t.Errorf("%s: %q: %s (%s)", mode, cmd, d.Behavior, d.Reason)
			}
		}
	}
}

// Look-alikes of reads still ask: options that run, write or fetch, reads
// of secrets or outside the workspace, a read combined with a write.
func TestReadLookAlikesAsk(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.ws, "src", "server.pem"), []byte("k"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.ws, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "conf", ".env"), []byte("K=v"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := []string{
		// Options that execute, write or fetch.
		"find . -exec cat {} \\;",
		"find . -name '*.tmp' -delete",
		"find . -fprint list.txt",
		"find -L . -name x",
		"rg --pre ./decode.sh foo",
		"rg -L foo",
		"grep -R foo .",
		"sed 's/a/b/' README.md",
		"sed -i 's/a/b/' src/main.go",
		"sed -n '1p;w out.txt' src/main.go",
		"sort -o sorted.txt src/main.go",
		"git fetch",
		"git pull",
		"git push",
		"git commit -m x",
		"git checkout main",
		"git stash",
		"git remote show origin",
		"git -c core.pager=less log",
		"git log --output=x.txt",
		"git diff --ext-diff",
		"git branch -D main",
		"awk '{system(\"rm x\")}' src/main.go",
		"tree -o out.txt",
		"date -s 2020-01-01",
		// Secrets, protected paths, outside the workspace.
		"cat .env",
		"grep KEY .env",
		"grep -r KEY .",
		"rg --hidden KEY",
		"cat src/*.pem",
		"rg KEY src",
		"git show HEAD:.env",
		"cat .git/config",
		"cat out-link",
		"ls out-dir",
		"cat ../outside/secret.txt",
		"ls /etc",
		"cat ~/.ssh/id_rsa",
		"cat /proc/self/environ",
		"echo $GITHUB_TOKEN",
		"awk 'BEGIN { print ENVIRON[\"TOKEN\"] }'",
		"jq -n env",
		"jq -n '$ENV.TOKEN'",
		"git config --list",
		"git remote -v",
		"git blame --contents=.env README.md",
		"cat .e*",
		"cat conf/.*",
		"wc -l *", // the workspace root holds links that lead outside
		"echo ~/.ssh/*",
		"printf '%s\\n' ../outside/*",
		"test -f ~/.ssh/id_rsa && echo yes",
		"env",
		"printenv",
		"set",
		"export -p",
		// A read combined with a write, or something unknown.
		"cat README.md > copy.md",
		"ls && touch x",
		"cat README.md | tee copy.md",
		"ls; make",
		"npm test",
		"curl https://example.com",
		"cat $FILE",
		"ls &",
		"xargs cat < list.txt",
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan} {
		c := checker(t, e, mode, nil, nil, nil)
		for _, cmd := range cmds {
			if d := check(c, "Bash", input("command", cmd)); d.Behavior == permission.Allow {
				t.Errorf("%s: %q was allowed (%s)", mode, cmd, d.Reason)
			}
		}
	}
}

// Deny and ask rules come before the read-only rule.
func TestReadOnlyRuleComesAfterDenyAndAsk(t *testing.T) {
	e := newEnv(t)
	c := checker(t, e, permission.ModeDefault, nil, []string{"Bash(git log:*)"}, []string{"Bash(cat:*)"})
	if d := check(c, "Bash", input("command", "cat src/main.go")); d.Behavior != permission.Deny {
		t.Errorf("deny rule: %+v", d)
	}
	if d := check(c, "Bash", input("command", "git log")); d.Behavior != permission.Ask {
		t.Errorf("ask rule: %+v", d)
	}
	if d := check(c, "Bash", input("command", "ls")); d.Behavior != permission.Allow {
		t.Errorf("plain read: %+v", d)
	}
}
