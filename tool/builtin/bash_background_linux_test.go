package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/tool"
)

// TestBashBackgroundThroughSandbox: a background command starts through
// the sandbox and is finished by it once, after it was waited for,
// however it ended; what the sandbox says reaches the model.
func TestBashBackgroundThroughSandbox(t *testing.T) {
	env := bgEnv(t)
	sb := &fakeSandbox{describes: "fake", note: "The sandbox undid something."}
	env.Sandbox = sb
	startBackground(t, env, BashInput{Command: "echo $SANDBOXED; exit 4"})
	mail := nextMail(t, env.Mailbox)
	for _, want := range []string{"exited with code 4", "The sandbox undid something.", "Output:\nyes"} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("notice lacks %q:\n%s", want, mail.Text)
		}
	}
	id := startBackground(t, env, BashInput{Command: "sleep 100"})
	check(t, run(t, NewKillShell(), env, KillShellInput{ShellID: id}), env.Dir, false, "Killed bash_2")
	if len(sb.finished) != 2 || sb.note != "The sandbox undid something." {
		t.Errorf("Finish called %d times; note %q", len(sb.finished), sb.note)
	}
	check(t, run(t, NewBashOutput(), env, BashOutputInput{BashID: id}), env.Dir, false, "bash_2 was killed after", "The sandbox undid something.")
}

func TestBashBackgroundSandboxCannotStart(t *testing.T) {
	env := bgEnv(t)
	env.Sandbox = &fakeSandbox{err: errors.New("workspace is gone"), describes: "fake sandbox"}
	res := run(t, NewBash(), env, BashInput{Command: "touch ran", RunInBackground: true})
	check(t, res, env.Dir, true, "the sandbox (fake sandbox) could not start, so the command was not run: workspace is gone")
	if _, err := os.Stat(filepath.Join(env.Dir, "ran")); !os.IsNotExist(err) {
		t.Error("the command ran without its sandbox")
	}
	if n := env.Mailbox.Outstanding(); n != 0 || len(env.Jobs.List()) != 0 {
		t.Errorf("Outstanding = %d, jobs %+v", n, env.Jobs.List())
	}
}

// TestBashBackgroundSandboxed: in the machine's real sandbox a background
// command runs confined and KillShell leaves nothing of it.
func TestBashBackgroundSandboxed(t *testing.T) {
	env, sb := realSandboxEnv(t)
	env.Jobs, env.Mailbox = tool.NewJobs(filepath.Join(t.TempDir(), "jobs")), tool.NewMailbox()
	t.Cleanup(env.Jobs.Close)
	outside := t.TempDir()
	startBackground(t, env, BashInput{Command: "echo in > f && cat f; echo evil > " + outside + "/evil"})
	mail := nextMail(t, env.Mailbox)
	if !strings.Contains(mail.Text, "exited with code 1") || !strings.Contains(mail.Text, "\nin\n") {
		t.Errorf("notice:\n%s", mail.Text)
	}
	if _, err := os.Stat(filepath.Join(outside, "evil")); !os.IsNotExist(err) {
		t.Errorf("%s sandbox let a background command write outside the workspace", sb.Kind())
	}
	id := startBackground(t, env, BashInput{Command: "sleep 100 & sleep 100"})
	info, _ := env.Jobs.Get(id)
	check(t, run(t, NewKillShell(), env, KillShellInput{ShellID: id}), env.Dir, false, "Killed "+id)
	if !groupGoneWithin(info.PID, 5*time.Second) {
		t.Errorf("process group %d survived KillShell under %s", info.PID, sb.Kind())
	}
}
