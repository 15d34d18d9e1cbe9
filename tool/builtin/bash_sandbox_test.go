//go:build linux

package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/novacode/nova/permission/sandbox"
	"github.com/novacode/nova/tool"
)

// fakeSandbox records what Bash asks it to wrap and runs the command under
// env, so the wrapping is visible in the output.
type fakeSandbox struct {
	err       error
	gotArgv   []string
	gotDir    string
	describes string
	note      string // what Finish returns
	finished  []*exec.Cmd
}

// Start starts the command under a wrapper that sets SANDBOXED, handing
// it a pipe as descriptor 3 as the bubblewrap sandbox hands bwrap its
// filter: the output shows the command went through the sandbox's Start.
func (f *fakeSandbox) Start(cmd *exec.Cmd) error {
	f.gotArgv, f.gotDir = cmd.Args, cmd.Dir
	if f.err != nil {
		return f.err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	w.WriteString("yes\n")
	w.Close()
	wrapper := []string{"bash", "-c", `read -r SANDBOXED <&3 && exec 3<&- && export SANDBOXED && exec "$@"`, "wrapper"}
	cmd.Args = append(wrapper, cmd.Args...)
	cmd.Path = "/bin/bash"
	cmd.ExtraFiles = []*os.File{r}
	return cmd.Start()
}

func (f *fakeSandbox) Describe() string { return f.describes }

// Finish records the command; it must have been waited for.
func (f *fakeSandbox) Finish(_ context.Context, cmd *exec.Cmd) string {
	if cmd.ProcessState == nil {
		f.note = "Finish before Wait"
	}
	f.finished = append(f.finished, cmd)
	return f.note
}

// TestBashFinishesThroughSandbox: every command the sandbox started is
// finished once, after it was waited for, however it ended, and what the
// sandbox says then reaches the model.
func TestBashFinishesThroughSandbox(t *testing.T) {
	tests := []struct {
		name    string
		in      BashInput
		cancel  bool
		wantErr bool
		wants   []string
	}{
		{"success", BashInput{Command: "echo ok"}, false, false, []string{"ok\n", "undid something"}},
		{"failure", BashInput{Command: "exit 3"}, false, true, []string{"undid something", "Exit code: 3"}},
		{"timeout", BashInput{Command: "sleep 30", Timeout: 100}, false, true, []string{"undid something", "timed out"}},
		{"cancelled", BashInput{Command: "sleep 30"}, true, true, []string{"undid something", "cancelled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			sb := &fakeSandbox{describes: "fake", note: "The sandbox undid something."}
			env.Sandbox = sb
			ctx := context.Background()
			if tt.cancel {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			}
			res := runCtx(ctx, t, NewBash(), env, tt.in)
			check(t, res, env.Dir, tt.wantErr, tt.wants...)
			if len(sb.finished) != 1 {
				t.Errorf("Finish called %d times", len(sb.finished))
			}
		})
	}
}

func TestBashWrapsThroughSandbox(t *testing.T) {
	env := newEnv(t)
	sb := &fakeSandbox{describes: "fake"}
	env.Sandbox = sb
	res := run(t, NewBash(), env, BashInput{Command: "echo $SANDBOXED; exit 4"})
	check(t, res, env.Dir, true, "yes\nExit code: 4")
	if d := cmp.Diff([]string{"bash", "-c", "echo $SANDBOXED; exit 4"}, sb.gotArgv); d != "" {
		t.Errorf("Wrap argv (-want +got):\n%s", d)
	}
	if sb.gotDir != env.Dir {
		t.Errorf("Wrap dir = %q, want %q", sb.gotDir, env.Dir)
	}
}

func TestBashSandboxCannotStart(t *testing.T) {
	env := newEnv(t)
	env.Sandbox = &fakeSandbox{err: errors.New("workspace is gone"), describes: "fake sandbox"}
	res := run(t, NewBash(), env, BashInput{Command: "touch ran"})
	check(t, res, env.Dir, true, "The sandbox (fake sandbox) could not start", "workspace is gone")
	if _, err := os.Stat(filepath.Join(env.Dir, "ran")); !os.IsNotExist(err) {
		t.Error("the command ran without its sandbox")
	}
}

// realSandboxEnv returns an env whose commands run in the best real
// sandbox of this machine, or skips.
func realSandboxEnv(t *testing.T) (*tool.Env, *sandbox.Sandbox) {
	t.Helper()
	env := newEnv(t)
	sb, err := sandbox.New(sandbox.ModeAuto, sandbox.Policy{Workspace: env.Dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if sb.Kind() == sandbox.KindNone {
		t.Skip(sb.Notice())
	}
	env.Sandbox = sb
	return env, sb
}

func TestBashSandboxed(t *testing.T) {
	env, sb := realSandboxEnv(t)
	outside, err := os.MkdirTemp("/var/tmp", "nova-outside-")
	if err != nil {
		outside = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(outside) })
	}
	tests := []struct {
		name    string
		command string
		wantErr bool
		wants   []string
	}{
		{name: "writes in the workspace", command: "echo hi > f && cat f", wants: []string{"hi\n"}},
		{name: "writes in TMPDIR", command: `echo t > "$TMPDIR/t" && cat "$TMPDIR/t"`, wants: []string{"t\n"}},
		{name: "cannot write outside", command: "echo evil > " + outside + "/evil", wantErr: true, wants: []string{"Exit code: 1"}},
		{name: "git prompts still off", command: "echo $GIT_TERMINAL_PROMPT", wants: []string{"0\n"}},
		{name: "exit code", command: "echo out; exit 3", wantErr: true, wants: []string{"out\nExit code: 3"}},
	}
	if sb.Kind() == sandbox.KindBubblewrap {
		// Git metadata a command created is undone, and the model told.
		tests = append(tests, struct {
			name    string
			command string
			wantErr bool
			wants   []string
		}{name: "git metadata undone", command: "mkdir -p r/.git/objects r/.git/refs && echo 'ref: refs/heads/main' > r/.git/HEAD && printf '[core]\\n\\tfsmonitor = x\\n' > r/.git/config",
			wants: []string{"The sandbox undid", "took core.fsmonitor out of r/.git/config"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewBash(), env, BashInput{Command: tt.command})
			check(t, res, env.Dir, tt.wantErr, tt.wants...)
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "evil")); !os.IsNotExist(err) {
		t.Errorf("%s sandbox let a command write outside the workspace", sb.Kind())
	}
}

// TestBashSandboxedWithholdsCredentials: the sandbox starts the command
// with the environment Bash gives it, credentials withheld.
func TestBashSandboxedWithholdsCredentials(t *testing.T) {
	setCredentials(t)
	for _, tt := range credentialCases {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := realSandboxEnv(t)
			env.PassEnv = tt.pass
			if d := cmp.Diff(tt.want, seenCredentials(t, env)); d != "" {
				t.Errorf("variables env shows (-want +got):\n%s", d)
			}
		})
	}
}

// TestBashSandboxedTimeoutKillsTree checks that the timeout still kills
// every process of a sandboxed command, the wrapper in between. The
// processes ignore SIGTERM, so the SIGKILL that follows is needed too.
func TestBashSandboxedTimeoutKillsTree(t *testing.T) {
	env, sb := realSandboxEnv(t)
	marker := fmt.Sprintf("%d.%06d", 900+rand.IntN(99), rand.IntN(1_000_000))
	t.Cleanup(func() {
		for _, pid := range markedProcs(marker) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	cmd := "trap '' TERM; sleep " + marker + " & (trap '' TERM; sleep " + marker + ") & "
	if sb.Kind() == sandbox.KindBubblewrap {
		// Even a process that leaves the group dies with the sandbox.
		cmd += "setsid sleep " + marker + " & "
	}
	cmd += "sleep " + marker
	start := time.Now()
	res := run(t, NewBash(), env, BashInput{Command: cmd, Timeout: 500})
	check(t, res, env.Dir, true, "Command timed out after 500 ms")
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(markedProcs(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the timeout: %v", markedProcs(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// markedProcs returns the live processes whose command line contains
// marker.
func markedProcs(marker string) []int {
	var pids []int
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(marker)) {
			continue
		}
		state, _, ok := procState(filepath.Join(filepath.Dir(p), "stat"))
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		var pid int
		fmt.Sscanf(strings.TrimPrefix(filepath.Dir(p), "/proc/"), "%d", &pid)
		pids = append(pids, pid)
	}
	return pids
}
