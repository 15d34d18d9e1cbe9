//go:build unix

package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

// bgEnv returns a session that can run commands in the background; its
// jobs are closed when the test ends.
func bgEnv(t *testing.T) *tool.Env {
	t.Helper()
	env := newEnv(t)
	env.Jobs = tool.NewJobs(filepath.Join(t.TempDir(), "jobs"))
	env.Mailbox = tool.NewMailbox()
	t.Cleanup(env.Jobs.Close)
	return env
}

// startBackground runs command with run_in_background and returns its id.
func startBackground(t *testing.T, env *tool.Env, in BashInput) string {
	t.Helper()
	in.RunInBackground = true
	res := run(t, NewBash(), env, in)
	check(t, res, env.Dir, false, "Command running in background with ID: bash_")
	id := regexp.MustCompile(`bash_\d+`).FindString(res.Content)
	if id == "" {
		t.Fatalf("no id in %q", res.Content)
	}
	return id
}

// nextMail waits for the mailbox's next delivery, failing after 10 s.
func nextMail(t *testing.T, mb *tool.Mailbox) tool.Mail {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !mb.Wait(ctx) {
		t.Fatalf("no mail (outstanding %d)", mb.Outstanding())
	}
	mail := mb.Drain()
	if len(mail) != 1 {
		t.Fatalf("mail = %+v, want one", mail)
	}
	return mail[0]
}

// waitFile polls until cond holds of the job's output file.
func waitFile(t *testing.T, env *tool.Env, id string, cond func(string) bool) {
	t.Helper()
	info, ok := env.Jobs.Get(id)
	if !ok {
		t.Fatalf("no job %s", id)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(info.OutputPath); cond(string(b)) {
			return
		}
	}
	b, _ := os.ReadFile(info.OutputPath)
	t.Fatalf("%s's output never got there: %q", id, b)
}

// groupGoneWithin polls until no process of group pgid exists, zombies
// included (init reaps orphans), and reports whether that happened
// within d.
func groupGoneWithin(pgid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
	}
	return false
}

func TestBashBackground(t *testing.T) {
	env := bgEnv(t)
	start := time.Now()
	id := startBackground(t, env, BashInput{Command: "sleep 1; echo done", Description: "Wait and say done"})
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("Bash took %v to return", took)
	}
	if id != "bash_1" {
		t.Errorf("id = %s", id)
	}
	if n := env.Mailbox.Outstanding(); n != 1 {
		t.Errorf("Outstanding = %d while it runs, want 1", n)
	}
	mail := nextMail(t, env.Mailbox)
	if took := time.Since(start); took < time.Second {
		t.Errorf("notified after %v, before the command could end", took)
	}
	if mail.Kind != tool.MailCommand || mail.From != "bash_1" {
		t.Errorf("mail = %+v", mail)
	}
	for _, want := range []string{"Background command bash_1 exited with code 0 after 1", "Description: Wait and say done",
		"Command: sleep 1; echo done", "Output:\ndone"} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("notice lacks %q:\n%s", want, mail.Text)
		}
	}
	if n := env.Mailbox.Outstanding(); n != 0 {
		t.Errorf("Outstanding = %d once reported, want 0", n)
	}
}

// TestBashBackgroundEnds: how the notice tells each way a command ends.
func TestBashBackgroundEnds(t *testing.T) {
	tests := []struct {
		name  string
		in    BashInput
		wants []string
	}{
		{"exit code", BashInput{Command: "echo out; echo err >&2; exit 3"}, []string{"exited with code 3 after", "Output:\nout\nerr"}},
		{"no output", BashInput{Command: "true"}, []string{"exited with code 0", "It wrote no output."}},
		{"signal", BashInput{Command: "kill -9 $$"}, []string{"was ended by a signal (killed)"}},
		{"timeout", BashInput{Command: "echo started; sleep 100", Timeout: 200}, []string{"timed out: it ran into its time limit of 200ms and was stopped", "Output:\nstarted"}},
		{"timeout ignoring TERM", BashInput{Command: "trap '' TERM; sleep 100 & sleep 100", Timeout: 100}, []string{"timed out"}},
		{"leftovers are ended", BashInput{Command: "sleep 100 & echo left"}, []string{"exited with code 0", "Output:\nleft"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := bgEnv(t)
			id := startBackground(t, env, tt.in)
			mail := nextMail(t, env.Mailbox)
			for _, want := range tt.wants {
				if !strings.Contains(mail.Text, want) {
					t.Errorf("notice lacks %q:\n%s", want, mail.Text)
				}
			}
			info, _ := env.Jobs.Get(id)
			if info.Running || info.Killed {
				t.Errorf("job = %+v", info)
			}
			if !groupGoneWithin(info.PID, 5*time.Second) {
				t.Error("processes of the command are left")
			}
		})
	}
}

func TestBashBackgroundNotAvailable(t *testing.T) {
	for name, env := range map[string]*tool.Env{"no jobs": {Mailbox: tool.NewMailbox()}, "no mailbox": {Jobs: tool.NewJobs(t.TempDir())}} {
		t.Run(name, func(t *testing.T) {
			env.Dir = t.TempDir()
			res := run(t, NewBash(), env, BashInput{Command: "touch ran", RunInBackground: true})
			check(t, res, env.Dir, true, "Background commands are not available here")
			if _, err := os.Stat(filepath.Join(env.Dir, "ran")); err == nil {
				t.Error("the command ran")
			}
		})
	}
	env := bgEnv(t)
	env.Jobs.Close()
	res := run(t, NewBash(), env, BashInput{Command: "true", RunInBackground: true})
	check(t, res, env.Dir, true, "shut down")
	if n := env.Mailbox.Outstanding(); n != 0 {
		t.Errorf("Outstanding = %d after a failed start", n)
	}
}

func TestBashBackgroundTimeoutClamped(t *testing.T) {
	env := bgEnv(t)
	res := run(t, NewBash(), env, BashInput{Command: "true", RunInBackground: true, Timeout: 9_000_000_000_000_000})
	check(t, res, env.Dir, false, "longer than 24h0m0s")
	res = run(t, NewBash(), env, BashInput{Command: "true", RunInBackground: true})
	check(t, res, env.Dir, false, "longer than 30m0s")
}

func TestBashOutput(t *testing.T) {
	env := bgEnv(t)
	gate := filepath.Join(env.Dir, "go")
	id := startBackground(t, env, BashInput{Command: "printf 'ok 1\\nFAIL 2\\n'; while [ ! -e go ]; do sleep 0.01; done; printf 'ok 3\\nFAIL 4\\n'; exit 2"})
	waitFile(t, env, id, func(s string) bool { return s == "ok 1\nFAIL 2\n" })
	steps := []struct {
		name    string
		in      BashOutputInput
		before  func()
		wantErr bool
		want    string // with the duration replaced by D
	}{
		{name: "first read", in: BashOutputInput{BashID: id}, want: "bash_1 is running (for D).\nNew output:\nok 1\nFAIL 2\n"},
		{name: "nothing new", in: BashOutputInput{BashID: id}, want: "bash_1 is running (for D).\n(no new output)"},
		{name: "invalid filter", in: BashOutputInput{BashID: id, Filter: "("}, wantErr: true, want: "Invalid filter regular expression: error parsing regexp: missing closing ): `(`. Nothing was read; fix the filter and call BashOutput again."},
		{name: "filtered, after the end", in: BashOutputInput{BashID: id, Filter: "FAIL"}, before: func() {
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			nextMail(t, env.Mailbox)
		}, want: "bash_1 exited with code 2 after D.\nNew output:\nFAIL 4\n(1 line not matching the filter left out; they will not be returned again.)"},
		{name: "all read", in: BashOutputInput{BashID: id}, want: "bash_1 exited with code 2 after D.\n(no new output)"},
		{name: "unknown id", in: BashOutputInput{BashID: "bash_7"}, wantErr: true, want: "No background shell has the ID bash_7. The background shells are:\n- bash_1 (ended): printf 'ok 1\\nFAIL 2\\n'; while [ ! -e go ]; do sleep 0.01; done; printf 'ok 3\\nFAIL 4\\n'; exit 2"},
	}
	durations := regexp.MustCompile(`\d+(\.\d+)?(ms|s)`)
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		res := run(t, NewBashOutput(), env, st.in)
		got := durations.ReplaceAllString(res.Content, "D")
		if res.IsError != st.wantErr {
			t.Errorf("%s: IsError = %v", st.name, res.IsError)
		}
		if d := cmp.Diff(st.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, d)
		}
	}

	res := run(t, NewBashOutput(), &tool.Env{Dir: env.Dir}, BashOutputInput{BashID: id})
	check(t, res, env.Dir, true, "Background commands are not available here")
	res = run(t, NewBashOutput(), bgEnv(t), BashOutputInput{BashID: id})
	check(t, res, env.Dir, true, "No background shell has the ID bash_1: none has been started.")
}

// TestBashOutputBounded: 5 MB of new output comes back within the tool's
// cap, its start and end kept, the file named.
func TestBashOutputBounded(t *testing.T) {
	for _, filter := range []string{"", "x"} {
		t.Run("filter "+filter, func(t *testing.T) {
			env := bgEnv(t)
			// Lines of 100 bytes: the race detector makes a regexp
			// slow per call.
			id := startBackground(t, env, BashInput{Command: "seq 1 100000 | sed 's/$/ " + strings.Repeat("x", 93) + "/' | head -c 5000000"})
			nextMail(t, env.Mailbox)
			info, _ := env.Jobs.Get(id)
			if info.OutputBytes != 5_000_000 {
				t.Fatalf("output is %d bytes", info.OutputBytes)
			}
			res := run(t, NewBashOutput(), env, BashOutputInput{BashID: id, Filter: filter})
			if len(res.Content) > maxToolOutput {
				t.Errorf("result is %d characters, more than %d", len(res.Content), maxToolOutput)
			}
			check(t, res, env.Dir, false, "New output:\n1 xxx", "characters left out; the whole output is in "+info.OutputPath, "\n50000 xxx")
		})
	}
}

func TestKillShell(t *testing.T) {
	env := bgEnv(t)
	id := startBackground(t, env, BashInput{Command: "echo $$; sleep 100 & sleep 100; echo never"})
	waitFile(t, env, id, func(s string) bool { return strings.HasSuffix(s, "\n") })
	info, _ := env.Jobs.Get(id)
	b, _ := os.ReadFile(info.OutputPath)
	pgid := info.PID
	if got := firstLinePID(t, string(b)); got != pgid {
		t.Errorf("the shell's pid is %d, JobInfo.PID %d", got, pgid)
	}
	killTestGroup(t, &pgid)

	res := run(t, NewKillShell(), env, KillShellInput{ShellID: id})
	check(t, res, env.Dir, false, "Killed bash_1 and every process it started, after ", "Command: echo $$; sleep 100 & sleep 100; echo never")
	if !groupGoneWithin(pgid, 5*time.Second) {
		t.Errorf("process group %d survived KillShell", pgid)
	}
	if n := env.Mailbox.Outstanding(); n != 0 {
		t.Errorf("Outstanding = %d after KillShell, want 0", n)
	}
	if mail := env.Mailbox.Drain(); len(mail) != 0 {
		t.Errorf("mail after KillShell: %+v", mail)
	}
	res = run(t, NewBashOutput(), env, BashOutputInput{BashID: id})
	check(t, res, env.Dir, false, "bash_1 was killed after ", fmt.Sprintf("New output:\n%d\n", pgid))

	tests := []struct {
		name    string
		id      string
		wantErr bool
		want    string
	}{
		{"again", id, false, "Nothing to stop: bash_1 had already ended (it was killed after "},
		{"unknown", "bash_3", true, "No background shell has the ID bash_3. The background shells are:\n- bash_1 (ended): echo $$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, run(t, NewKillShell(), env, KillShellInput{ShellID: tt.id}), env.Dir, tt.wantErr, tt.want)
		})
	}
}

// TestUnknownJobListsTheLatest: an unknown id's answer names the latest
// shells only.
func TestUnknownJobListsTheLatest(t *testing.T) {
	env := bgEnv(t)
	for i := range unknownListed + 2 {
		startBackground(t, env, BashInput{Command: fmt.Sprintf("exit %d", i)})
	}
	res := run(t, NewKillShell(), env, KillShellInput{ShellID: "bash_99"})
	check(t, res, env.Dir, true, "The latest 20 of 22 background shells are:\n- bash_3 (")
	if strings.Contains(res.Content, "bash_2 ") || strings.Count(res.Content, "\n- ") != unknownListed {
		t.Errorf("listed:\n%s", res.Content)
	}
}

// TestBashBackgroundClose: closing the session's jobs ends every command
// and tells nobody.
func TestBashBackgroundClose(t *testing.T) {
	env := bgEnv(t)
	var pgids []int
	for range 2 {
		id := startBackground(t, env, BashInput{Command: "trap '' TERM; sleep 100 & sleep 100"})
		info, _ := env.Jobs.Get(id)
		pgids = append(pgids, info.PID)
	}
	env.Jobs.Close()
	for _, pgid := range pgids {
		if !groupGoneWithin(pgid, 5*time.Second) {
			t.Errorf("process group %d survived Close", pgid)
		}
	}
	if n := env.Mailbox.Outstanding(); n != 0 {
		t.Errorf("Outstanding = %d after Close, want 0", n)
	}
	if mail := env.Mailbox.Drain(); len(mail) != 0 {
		t.Errorf("mail after Close: %+v", mail)
	}
}

// TestBashBackgroundOwner: a job belongs to the agent that started it;
// KillOwner ends a subagent's and tells nobody.
func TestBashBackgroundOwner(t *testing.T) {
	env := bgEnv(t)
	sub := *env
	sub.AgentID, sub.Mailbox = "agent-1", tool.NewMailbox()
	mine := startBackground(t, env, BashInput{Command: "sleep 100"})
	theirs := startBackground(t, &sub, BashInput{Command: "sleep 100"})
	env.Jobs.KillOwner("agent-1")
	got := map[string]string{}
	for _, in := range env.Jobs.List() {
		got[in.ID] = fmt.Sprintf("%s running=%v", in.Owner, in.Running)
	}
	if d := cmp.Diff(map[string]string{mine: " running=true", theirs: "agent-1 running=false"}, got); d != "" {
		t.Errorf("jobs (-want +got):\n%s", d)
	}
	if env.Mailbox.Outstanding() != 1 || sub.Mailbox.Outstanding() != 0 {
		t.Errorf("outstanding: main %d, subagent %d", env.Mailbox.Outstanding(), sub.Mailbox.Outstanding())
	}
}

func TestOutputTail(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name      string
		content   string
		maxLines  int
		maxBytes  int
		want      string
		wantLines int
		wantLeft  int64
	}{
		{"empty", "", 40, 4000, "", 0, 0},
		{"all of it", "a\nb\n", 40, 4000, "a\nb\n", 2, 0},
		{"no final newline", "a\nb", 40, 4000, "a\nb", 2, 0},
		{"last lines", lines(1, 100), 40, 4000, lines(61, 100), 40, int64(len(lines(1, 60)))},
		{"within the bytes, whole lines", lines(1, 100), 40, 30, lines(98, 100), 3, int64(len(lines(1, 97)))},
		{"one long line loses its start", strings.Repeat("x", 50) + "\n", 40, 11, strings.Repeat("x", 10) + "\n", 1, 40},
		{"runes not cut", strings.Repeat("é", 10), 40, 5, "éé", 1, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out")
			if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, n, left, err := outputTail(p, tt.maxLines, tt.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" || n != tt.wantLines || left != tt.wantLeft {
				t.Errorf("outputTail = %d lines, %d left; text (-want +got):\n%s", n, left, d)
			}
		})
	}
}

// TestJobNoticeBounded: the notice carries the end of a long output within
// its bounds and says where the rest is.
func TestJobNoticeBounded(t *testing.T) {
	env := bgEnv(t)
	id := startBackground(t, env, BashInput{Command: "seq 1 100000"})
	mail := nextMail(t, env.Mailbox)
	info, _ := env.Jobs.Get(id)
	_, tail, ok := strings.Cut(mail.Text, "):\n")
	if !ok {
		t.Fatalf("notice:\n%s", mail.Text)
	}
	for _, want := range []string{"The last 40 lines of its output follow; ", "BashOutput with bash_id \"bash_1\"", info.OutputPath} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("notice lacks %q:\n%s", want, mail.Text)
		}
	}
	if !strings.HasPrefix(tail, "99961\n") || !strings.HasSuffix(tail, "100000") || len(tail) > noticeBytes {
		t.Errorf("tail = %q", tail)
	}
}
