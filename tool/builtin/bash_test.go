//go:build unix

package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

func TestBash(t *testing.T) {
	tests := []struct {
		name    string
		input   BashInput
		wantErr bool
		want    string // the whole output, when set
		wants   []string
	}{
		{name: "output", input: BashInput{Command: "echo hello"}, want: "hello\n"},
		{name: "no output", input: BashInput{Command: "true"}, want: "(no output)"},
		{
			name:  "interleaved stdout and stderr",
			input: BashInput{Command: "echo 1; echo 2 >&2; echo 3; echo 4 >&2"},
			want:  "1\n2\n3\n4\n",
		},
		{
			name:    "exit code",
			input:   BashInput{Command: "echo out; echo err >&2; exit 3"},
			wantErr: true,
			want:    "out\nerr\nExit code: 3",
		},
		{
			name:    "exit code without output",
			input:   BashInput{Command: "false"},
			wantErr: true,
			want:    "Exit code: 1",
		},
		{
			name:    "exit code after output without newline",
			input:   BashInput{Command: "printf partial; exit 2"},
			wantErr: true,
			want:    "partial\nExit code: 2",
		},
		{name: "stdin is empty", input: BashInput{Command: "cat; echo done"}, want: "done\n"},
		{name: "no controlling terminal", input: BashInput{Command: "cat /dev/tty 2>/dev/null || echo no tty", Timeout: 5000}, want: "no tty\n"},
		{name: "no git prompts", input: BashInput{Command: "echo $GIT_TERMINAL_PROMPT"}, want: "0\n"},
		{name: "bash features", input: BashInput{Command: "a=(x y z); echo ${#a[@]} $((6*7))"}, want: "3 42\n"},
		{
			name:    "killed by a signal",
			input:   BashInput{Command: "kill -9 $$"},
			wantErr: true,
			wants:   []string{"killed by a signal"},
		},
		{name: "empty command", input: BashInput{Command: "  "}, wantErr: true, wants: []string{"command is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			res := run(t, NewBash(), env, tt.input)
			check(t, res, env.Dir, tt.wantErr, tt.wants...)
			if tt.want != "" && res.Content != tt.want {
				t.Errorf("output = %q, want %q", res.Content, tt.want)
			}
		})
	}
}

func TestBashWorkingDirectory(t *testing.T) {
	env := newEnv(t)
	res := run(t, NewBash(), env, BashInput{Command: "pwd"})
	if got := strings.TrimSpace(res.Content); got != env.Dir {
		t.Errorf("pwd = %q, want %q", got, env.Dir)
	}
}

// groupAliveWithin polls until no process of group pgid is running, and
// reports whether some still was after d.
func groupAliveWithin(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// firstLinePID parses the process id a test command printed first.
func firstLinePID(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("no pid on the first line of %q", out)
	}
	return pid
}

// killTestGroup is a safety net: a failing test must not leave sleeps behind.
func killTestGroup(t *testing.T, pgid *int) {
	t.Cleanup(func() {
		if *pgid > 0 {
			_ = syscall.Kill(-*pgid, syscall.SIGKILL)
		}
	})
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	env := newEnv(t)
	var pgid int
	killTestGroup(t, &pgid)
	start := time.Now()
	// $$ is the shell's pid, which Setpgid makes the group id. The
	// background sleep and the foreground one are both in the group.
	res := run(t, NewBash(), env, BashInput{Command: "echo $$; sleep 30 & sleep 30", Timeout: 300})
	elapsed := time.Since(start)
	check(t, res, env.Dir, true, "Command timed out after 300 ms")
	pgid = firstLinePID(t, res.Content)
	if elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if groupAliveWithin(pgid, 2*time.Second) {
		t.Errorf("process group %d still has live processes after the timeout", pgid)
	}
}

// TestBashTimeoutIgnoringTERM checks the SIGKILL that follows the grace
// period, for processes that ignore SIGTERM.
func TestBashTimeoutIgnoringTERM(t *testing.T) {
	env := newEnv(t)
	var pgid int
	killTestGroup(t, &pgid)
	start := time.Now()
	res := run(t, NewBash(), env, BashInput{Command: "trap '' TERM; echo $$; sleep 30 & sleep 30", Timeout: 200})
	check(t, res, env.Dir, true, "timed out")
	pgid = firstLinePID(t, res.Content)
	if elapsed := time.Since(start); elapsed < bashKillGrace {
		t.Errorf("took %v, less than the %v grace period", elapsed, bashKillGrace)
	}
	if groupAliveWithin(pgid, 2*time.Second) {
		t.Errorf("process group %d survived SIGKILL", pgid)
	}
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	env := newEnv(t)
	var pgid int
	killTestGroup(t, &pgid)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res := runCtx(ctx, t, NewBash(), env, BashInput{Command: "echo $$; sleep 30 & sleep 30"})
	check(t, res, env.Dir, true, "Command was cancelled")
	pgid = firstLinePID(t, res.Content)
	if groupAliveWithin(pgid, 2*time.Second) {
		t.Errorf("process group %d still has live processes after cancel", pgid)
	}
}

// TestBashBackgroundChild checks that a background process holding the
// output pipe does not keep the tool waiting.
func TestBashBackgroundChild(t *testing.T) {
	env := newEnv(t)
	var pgid int
	killTestGroup(t, &pgid)
	start := time.Now()
	res := run(t, NewBash(), env, BashInput{Command: "echo $$; sleep 100 & echo hi"})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	pgid = firstLinePID(t, res.Content)
	check(t, res, env.Dir, false, "hi\n", "background process kept the output open")
}

func TestBashOutputTruncated(t *testing.T) {
	env := newEnv(t)
	res := run(t, NewBash(), env, BashInput{Command: "seq 1 200000"})
	check(t, res, env.Dir, false, "characters truncated ...]")
	if !strings.HasPrefix(res.Content, "1\n2\n3\n") {
		t.Errorf("head lost: %q", res.Content[:50])
	}
	if !strings.HasSuffix(res.Content, "199999\n200000\n") {
		t.Errorf("tail lost: %q", res.Content[len(res.Content)-50:])
	}
	if len(res.Content) > maxToolOutput+100 {
		t.Errorf("output is %d bytes", len(res.Content))
	}
	// The marker counts exactly what is missing.
	var total int
	for i := 1; i <= 200000; i++ {
		total += len(strconv.Itoa(i)) + 1
	}
	var dropped int
	if _, err := fmt.Sscanf(res.Content[strings.Index(res.Content, "[... ")+5:], "%d", &dropped); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("\n\n[... %d characters truncated ...]\n\n", dropped)
	if got := len(res.Content) - len(marker) + dropped; got != total {
		t.Errorf("kept+dropped = %d, want %d", got, total)
	}
}

func TestBashTimeoutClamped(t *testing.T) {
	env := newEnv(t)
	// An oversized timeout is clamped, not refused.
	for _, ms := range []int{10_000_000, 9_000_000_000_000_000} {
		res := run(t, NewBash(), env, BashInput{Command: "sleep 0.2; echo ok", Timeout: ms})
		check(t, res, env.Dir, false, "ok")
	}
}

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef"},
		{"drops the middle", 6, []string{"abcdefgh", "ijkl"}, "abc\n\n[... 6 characters truncated ...]\n\njkl"},
		{"many small writes", 4, strings.Split("0123456789", ""), "01\n\n[... 6 characters truncated ...]\n\n89"},
		{"rune boundaries", 6, []string{"ééééé"}, "é\n\n[... 6 characters truncated ...]\n\né"},
		{"invalid UTF-8", 10, []string{"a\xffb"}, "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHeadTail(tt.max)
			for _, w := range tt.writes {
				if n, err := h.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := h.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProcState(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stat")
	writeFiles(t, dir, map[string]string{"stat": "123 (odd) name) S 1 456 456 0 -1"})
	state, pg, ok := procState(p)
	if !ok || state != 'S' || pg != 456 {
		t.Errorf("procState = %c, %d, %v; want S, 456, true", state, pg, ok)
	}
}

// testCredentials are set in the environment of the credential tests;
// SAFE_SETTING is not a credential and always passes.
var testCredentials = map[string]string{
	"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-test", "GITHUB_TOKEN": "ghp_test",
	"AWS_SECRET_ACCESS_KEY": "aws-test", "AWS_ACCESS_KEY_ID": "AKIATEST", "NPM_TOKEN": "npm_test",
	"NOVA_TEST_SAFE_SETTING": "visible",
}

// setCredentials puts testCredentials in this process's environment, which
// Bash's commands inherit.
func setCredentials(t *testing.T) {
	for k, v := range testCredentials {
		t.Setenv(k, v)
	}
}

// seenCredentials runs `env` through Bash and returns which of
// testCredentials it printed, sorted.
func seenCredentials(t *testing.T, env *tool.Env) []string {
	t.Helper()
	res := run(t, NewBash(), env, BashInput{Command: "env"})
	if res.IsError {
		t.Fatalf("env: %s", res.Content)
	}
	var seen []string
	for line := range strings.Lines(res.Content) {
		name, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if v, ok := testCredentials[name]; ok && v == value {
			seen = append(seen, name)
		}
	}
	slices.Sort(seen)
	return seen
}

// credentialCases are the passthrough settings of the credential tests and
// what `env` shows under each.
var credentialCases = []struct {
	name string
	pass []string
	want []string
}{
	{"none passed", nil, []string{"NOVA_TEST_SAFE_SETTING"}},
	{"one passed", []string{"GITHUB_TOKEN"}, []string{"GITHUB_TOKEN", "NOVA_TEST_SAFE_SETTING"}},
	{"a prefix passed", []string{"AWS_*"}, []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "NOVA_TEST_SAFE_SETTING"}},
}

func TestBashWithholdsCredentials(t *testing.T) {
	setCredentials(t)
	for _, tt := range credentialCases {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.PassEnv = tt.pass
			if d := cmp.Diff(tt.want, seenCredentials(t, env)); d != "" {
				t.Errorf("variables env shows (-want +got):\n%s", d)
			}
		})
	}
}
