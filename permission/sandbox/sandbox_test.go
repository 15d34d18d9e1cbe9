package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// dialEnv makes the test binary, run inside a sandbox, connect to the unix
// socket it names and exit 0 on success, 3 on failure.
const dialEnv = "NOVA_SANDBOX_TEST_DIAL_UNIX"

func TestMain(m *testing.M) {
	// As nova's main does: nothing inherited reaches a command.
	InitProcess()
	if spec := os.Getenv(inheritEnv); spec != "" {
		os.Exit(listSandboxedFDs(spec))
	}
	if path := os.Getenv(dialEnv); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			os.Stderr.WriteString("dial: " + err.Error() + "\n")
			os.Exit(3)
		}
		c.Close()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"", ModeAuto, false},
		{"auto", ModeAuto, false},
		{" On ", ModeOn, false},
		{"OFF", ModeOff, false},
		{"yes", "", true},
		{"bubblewrap", "", true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// fakeProbes describes a machine without running anything.
func fakeProbes(bwrap bool, probeErr error, abi int) probes {
	return probes{
		lookPath: func(string) (string, error) {
			if !bwrap {
				return "", errors.New("not found")
			}
			return "/usr/bin/bwrap", nil
		},
		probeBwrap:  func(string, []string) error { return probeErr },
		landlockABI: func() int { return abi },
	}
}

func TestNewChoosesBackend(t *testing.T) {
	ws := workspace(t)
	noNS := errors.New("bwrap: No permissions to create new namespace")
	tests := []struct {
		name       string
		mode       Mode
		pr         probes
		wantKind   string
		wantNotice string // substring; "" means the notice must be empty
		wantErr    string // substring
	}{
		{name: "bubblewrap first", mode: ModeAuto, pr: fakeProbes(true, nil, 5), wantKind: KindBubblewrap},
		{name: "bubblewrap when on", mode: ModeOn, pr: fakeProbes(true, nil, 0), wantKind: KindBubblewrap},
		{name: "landlock without bwrap", mode: ModeAuto, pr: fakeProbes(false, nil, 3), wantKind: KindLandlock},
		{name: "landlock when bwrap fails", mode: ModeOn, pr: fakeProbes(true, noNS, 1), wantKind: KindLandlock},
		{name: "none", mode: ModeAuto, pr: fakeProbes(false, nil, 0), wantKind: KindNone, wantNotice: "install bubblewrap"},
		{name: "none says why bwrap failed", mode: ModeAuto, pr: fakeProbes(true, noNS, 0), wantKind: KindNone, wantNotice: "No permissions to create new namespace"},
		{name: "on without backend", mode: ModeOn, pr: fakeProbes(false, nil, 0), wantErr: "apt-get install bubblewrap"},
		{name: "off", mode: ModeOff, pr: fakeProbes(true, nil, 5), wantKind: KindNone},
		{name: "unknown mode", mode: "maybe", pr: fakeProbes(true, nil, 5), wantErr: "unknown mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSandbox(tt.mode, Policy{Workspace: ws}, tt.pr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if s.Kind() != tt.wantKind {
				t.Errorf("Kind = %q, want %q", s.Kind(), tt.wantKind)
			}
			if tt.wantNotice == "" && s.Notice() != "" || !strings.Contains(s.Notice(), tt.wantNotice) {
				t.Errorf("Notice = %q, want %q", s.Notice(), tt.wantNotice)
			}
			if s.Describe() == "" {
				t.Error("empty Describe")
			}
		})
	}
}

func TestNewPolicyErrors(t *testing.T) {
	ws := workspace(t)
	tests := []struct {
		name string
		p    Policy
		want string
	}{
		{"no workspace", Policy{}, "not an absolute path"},
		{"relative workspace", Policy{Workspace: "proj"}, "not an absolute path"},
		{"missing workspace", Policy{Workspace: filepath.Join(ws, "nope")}, "workspace"},
		{"relative writable", Policy{Workspace: ws, Writable: []string{"x"}}, "writable directory"},
		{"relative temp", Policy{Workspace: ws, TempDir: "tmp"}, "temp dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newSandbox(ModeAuto, tt.p, fakeProbes(true, nil, 0))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNoneStartsAsIs(t *testing.T) {
	s, err := New(ModeOff, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	path, args := cmd.Path, cmd.Args
	if err := s.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != path || !slices.Equal(cmd.Args, args) || cmd.ExtraFiles != nil {
		t.Errorf("Start changed the command: %q %q", cmd.Path, cmd.Args)
	}
	if s.Kind() != KindNone || s.Notice() != "" {
		t.Errorf("Kind, Notice = %q, %q", s.Kind(), s.Notice())
	}
}

func TestNilSandbox(t *testing.T) {
	var s *Sandbox
	cmd := exec.Command("true")
	if err := s.Start(cmd); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if s.Kind() != KindNone || s.Notice() != "" || s.Describe() == "" || s.Finish(context.Background(), cmd) != "" || s.Close() != nil {
		t.Errorf("nil Sandbox: Kind %q", s.Kind())
	}
}

func TestStartRefusesWhatItCannotKeep(t *testing.T) {
	s, err := newSandbox(ModeOn, Policy{Workspace: workspace(t)}, fakeProbes(true, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	started := exec.Command("true")
	if err := started.Start(); err != nil {
		t.Fatal(err)
	}
	started.Wait()
	withFiles := exec.Command("true")
	withFiles.ExtraFiles = []*os.File{os.Stdin}
	for name, cmd := range map[string]*exec.Cmd{"started": started, "extra files": withFiles, "no argv": {}} {
		if err := s.Start(cmd); err == nil {
			t.Errorf("%s: Start accepted it", name)
		}
	}
}

func TestLandlockTempDirRemovedOnClose(t *testing.T) {
	s, err := newSandbox(ModeAuto, Policy{Workspace: workspace(t)}, fakeProbes(false, nil, 3))
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.Policy().TempDir
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() {
		t.Fatalf("temp dir %q: %v", tmp, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temp dir still there after Close: %v", err)
	}
}

// TestBubblewrapArgv: the command becomes bwrap's, the shell's argv at
// its end, the socket filter on descriptor 3.
func TestBubblewrapArgv(t *testing.T) {
	ws := workspace(t)
	s, err := newSandbox(ModeOn, Policy{Workspace: ws}, fakeProbes(true, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	argv, files, err := s.wrapBwrap([]string{"bash", "-c", "echo hi"}, ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(files)
	if argv[0] != "/usr/bin/bwrap" || !contains(argv, "--unshare-net") {
		t.Errorf("argv = %q", argv)
	}
	if d := cmp.Diff([]string{"--", "bash", "-c", "echo hi"}, argv[len(argv)-4:]); d != "" {
		t.Errorf("command not at the end (-want +got):\n%s", d)
	}
	if seccompSupported {
		if i := slices.Index(argv, "--seccomp"); i < 0 || argv[i+1] != "3" || len(files) != 1 {
			t.Errorf("no filter on descriptor 3: argv %q, %d files", argv, len(files))
		}
	}
}

func TestStartFailsWhenWorkspaceIsGone(t *testing.T) {
	for _, pr := range []probes{fakeProbes(true, nil, 0), fakeProbes(false, nil, 4)} {
		ws := workspace(t)
		s, err := newSandbox(ModeOn, Policy{Workspace: ws}, pr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := os.RemoveAll(ws); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("true")
		if err := s.Start(cmd); err == nil {
			cmd.Wait()
			t.Errorf("%s: Start succeeded without a workspace", s.Kind())
		}
	}
}

func TestBwrapArgs(t *testing.T) {
	ws := workspace(t)
	extra := workspace(t)
	tmp := workspace(t)
	settings := filepath.Join(ws, protectedDirName)
	missing := filepath.Join(ws, "missing")
	config := filepath.Join(ws, ".git", "config")
	protect := []string{"--ro-bind", config, config}

	tests := []struct {
		name string
		p    Policy
		want []string
	}{
		{
			name: "network off",
			p:    Policy{Workspace: ws, Writable: []string{extra, missing}, TempDir: tmp},
			want: []string{
				"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
				"--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", "--unshare-net", "--die-with-parent",
				"--tmpfs", "/tmp",
				"--bind", ws, ws, "--bind", extra, extra, "--bind", tmp, tmp,
				"--ro-bind", config, config,
				"--ro-bind", settings, settings,
				"--setenv", "TMPDIR", tmp, "--chdir", ws,
			},
		},
		{
			name: "network on, private tmp",
			p:    Policy{Workspace: ws, AllowNetwork: true},
			want: []string{
				"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
				"--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", "--die-with-parent",
				"--tmpfs", "/tmp",
				"--bind", ws, ws,
				"--ro-bind", config, config,
				"--ro-bind", settings, settings,
				"--setenv", "TMPDIR", "/tmp", "--chdir", ws,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bwrapArgs(tt.p, ws, protect)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("bwrapArgs (-want +got):\n%s", d)
			}
		})
	}
}

func TestSetEnv(t *testing.T) {
	got := setEnv([]string{"A=1", "TMPDIR=/x", "TMPDIRX=2", "TMPDIR=/y"}, "TMPDIR", "/z")
	if d := cmp.Diff([]string{"A=1", "TMPDIRX=2", "TMPDIR=/z"}, got); d != "" {
		t.Errorf("setEnv (-want +got):\n%s", d)
	}
}

func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// inheritEnv makes the test binary, started with an extra descriptor (3),
// call InitProcess as nova's main does and then list the descriptors a
// sandboxed command has.
const inheritEnv = "NOVA_SANDBOX_TEST_INHERIT"

// listSandboxedFDs runs in the child of TestInheritedDescriptorsDoNotReachCommands.
// The variable holds the kind of sandbox and the workspace: "kind|ws".
func listSandboxedFDs(spec string) int {
	kind, ws, _ := strings.Cut(spec, "|")
	pr := systemProbes()
	if kind == KindLandlock {
		pr.lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	}
	s, err := newSandbox(ModeAuto, Policy{Workspace: ws}, pr)
	if err != nil || s.Kind() != kind {
		fmt.Fprintln(os.Stderr, "no sandbox of kind", kind, err)
		return 1
	}
	defer s.Close()
	cmd := exec.Command("bash", "-c", "exec ls -m /proc/self/fd")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := s.Start(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := cmd.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
