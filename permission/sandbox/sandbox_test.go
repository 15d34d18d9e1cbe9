package sandbox

import (
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
	// The Landlock sandbox re-executes the test binary as its helper, as
	// it re-executes nova in production.
	if handled, code := MaybeRunHelper(); handled {
		os.Exit(code)
	}
	if ws := os.Getenv(inheritEnv); ws != "" {
		os.Exit(listSandboxedFDs(ws))
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
func fakeProbes(bwrap bool, probeErr error, abi int, wired bool) probes {
	return probes{
		lookPath: func(string) (string, error) {
			if !bwrap {
				return "", errors.New("not found")
			}
			return "/usr/bin/bwrap", nil
		},
		probeBwrap:  func(string, []string) error { return probeErr },
		landlockABI: func() int { return abi },
		executable:  func() (string, error) { return "/opt/nova", nil },
		helperWired: func() bool { return wired },
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
		{name: "bubblewrap first", mode: ModeAuto, pr: fakeProbes(true, nil, 5, true), wantKind: KindBubblewrap},
		{name: "bubblewrap when on", mode: ModeOn, pr: fakeProbes(true, nil, 0, false), wantKind: KindBubblewrap},
		{name: "landlock without bwrap", mode: ModeAuto, pr: fakeProbes(false, nil, 3, true), wantKind: KindLandlock},
		{name: "landlock when bwrap fails", mode: ModeOn, pr: fakeProbes(true, noNS, 1, true), wantKind: KindLandlock},
		{name: "none", mode: ModeAuto, pr: fakeProbes(false, nil, 0, true), wantKind: KindNone, wantNotice: "install bubblewrap"},
		{name: "none says why bwrap failed", mode: ModeAuto, pr: fakeProbes(true, noNS, 0, true), wantKind: KindNone, wantNotice: "No permissions to create new namespace"},
		{name: "landlock needs the helper", mode: ModeAuto, pr: fakeProbes(false, nil, 6, false), wantKind: KindNone, wantNotice: "MaybeRunHelper"},
		{name: "on without backend", mode: ModeOn, pr: fakeProbes(false, nil, 0, true), wantErr: "apt-get install bubblewrap"},
		{name: "off", mode: ModeOff, pr: fakeProbes(true, nil, 5, true), wantKind: KindNone},
		{name: "unknown mode", mode: "maybe", pr: fakeProbes(true, nil, 5, true), wantErr: "unknown mode"},
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
			_, err := newSandbox(ModeAuto, tt.p, fakeProbes(true, nil, 0, true))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNoneWrapsNothing(t *testing.T) {
	s, err := New(ModeOff, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"bash", "-c", "echo hi"}
	got, files, err := s.Wrap(argv, "/somewhere")
	if err != nil || files != nil {
		t.Fatal(files, err)
	}
	if d := cmp.Diff(argv, got); d != "" {
		t.Errorf("Wrap changed argv (-want +got):\n%s", d)
	}
	if s.Kind() != KindNone || s.Notice() != "" {
		t.Errorf("Kind, Notice = %q, %q", s.Kind(), s.Notice())
	}
}

func TestNilSandbox(t *testing.T) {
	var s *Sandbox
	argv, files, err := s.Wrap([]string{"true"}, "/")
	if err != nil || len(argv) != 1 || files != nil || s.Kind() != KindNone || s.Notice() != "" || s.Describe() == "" || s.Close() != nil {
		t.Errorf("nil Sandbox: Wrap = %q, %v; Kind %q", argv, err, s.Kind())
	}
}

func TestLandlockTempDirRemovedOnClose(t *testing.T) {
	s, err := newSandbox(ModeAuto, Policy{Workspace: workspace(t)}, fakeProbes(false, nil, 3, true))
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

func TestWrapArgv(t *testing.T) {
	ws := workspace(t)
	tests := []struct {
		name  string
		pr    probes
		check func(t *testing.T, argv []string, files []*os.File)
	}{
		{"bubblewrap, started directly", fakeProbes(true, nil, 0, true), func(t *testing.T, argv []string, files []*os.File) {
			if argv[0] != "/usr/bin/bwrap" || !contains(argv, "--unshare-net") {
				t.Errorf("argv = %q", argv)
			}
			if seccompSupported {
				// The socket filter arrives on descriptor 3: the first file.
				if !contains(argv, "--seccomp") || argv[slices.Index(argv, "--seccomp")+1] != "3" || len(files) != 1 {
					t.Errorf("no filter on descriptor 3: argv %q, %d files", argv, len(files))
				}
			}
		}},
		{"bubblewrap without the helper is the same", fakeProbes(true, nil, 0, false), func(t *testing.T, argv []string, files []*os.File) {
			if argv[0] != "/usr/bin/bwrap" || (seccompSupported && len(files) != 1) {
				t.Errorf("argv = %q, %d files", argv, len(files))
			}
		}},
		{"landlock", fakeProbes(false, nil, 4, true), func(t *testing.T, argv []string, files []*os.File) {
			spec, err := decodeSpec(argv[2])
			if err != nil {
				t.Fatal(err)
			}
			if spec.Backend != KindLandlock || spec.Dir != ws || spec.Writable[0] != ws || spec.TempDir == "" {
				t.Errorf("spec = %+v", spec)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSandbox(ModeOn, Policy{Workspace: ws}, tt.pr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			argv, files, err := s.Wrap([]string{"bash", "-c", "echo hi"}, ws)
			if err != nil {
				t.Fatal(err)
			}
			defer closeAll(files)
			if d := cmp.Diff([]string{"bash", "-c", "echo hi"}, argv[len(argv)-3:]); d != "" {
				t.Errorf("command not at the end (-want +got):\n%s", d)
			}
			tt.check(t, argv, files)
		})
	}
}

func TestWrapFailsWhenWorkspaceIsGone(t *testing.T) {
	for _, pr := range []probes{fakeProbes(true, nil, 0, true), fakeProbes(false, nil, 4, true)} {
		ws := workspace(t)
		s, err := newSandbox(ModeOn, Policy{Workspace: ws}, pr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := os.RemoveAll(ws); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Wrap([]string{"true"}, ws); err == nil {
			t.Errorf("%s: Wrap succeeded without a workspace", s.Kind())
		}
	}
}

func TestBwrapArgs(t *testing.T) {
	ws := workspace(t)
	extra := workspace(t)
	tmp := workspace(t)
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(ws, ".git", "hooks", "pre-commit.sample"), "")
	writeFile(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(ws, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(ws, ".git", "modules", "lib", "config"), "")
	gitDir := filepath.Join(ws, ".git")
	libDir := filepath.Join(gitDir, "modules", "lib")
	settings := filepath.Join(ws, protectedDirName)
	missing := filepath.Join(ws, "missing")

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
				"--unshare-pid", "--unshare-ipc", "--unshare-net", "--die-with-parent",
				"--tmpfs", "/tmp",
				"--bind", ws, ws, "--bind", extra, extra, "--bind", tmp, tmp,
				"--bind", gitDir, gitDir,
				"--ro-bind", filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "hooks"),
				"--ro-bind", filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config"),
				"--bind", libDir, libDir,
				"--ro-bind", filepath.Join(libDir, "config"), filepath.Join(libDir, "config"),
				"--ro-bind", settings, settings,
				"--setenv", "TMPDIR", tmp, "--chdir", ws,
			},
		},
		{
			name: "network on, private tmp",
			p:    Policy{Workspace: ws, AllowNetwork: true},
			want: []string{
				"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
				"--unshare-pid", "--unshare-ipc", "--die-with-parent",
				"--tmpfs", "/tmp",
				"--bind", ws, ws,
				"--bind", gitDir, gitDir,
				"--ro-bind", filepath.Join(gitDir, "hooks"), filepath.Join(gitDir, "hooks"),
				"--ro-bind", filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config"),
				"--bind", libDir, libDir,
				"--ro-bind", filepath.Join(libDir, "config"), filepath.Join(libDir, "config"),
				"--ro-bind", settings, settings,
				"--setenv", "TMPDIR", "/tmp", "--chdir", ws,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bwrapArgs(tt.p, ws)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("bwrapArgs (-want +got):\n%s", d)
			}
		})
	}
}

func TestGitDirs(t *testing.T) {
	// A main repository with a linked worktree, and a workspace whose .git
	// is a file pointing at the worktree's git dir.
	repo := workspace(t)
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	wtGit := filepath.Join(repo, ".git", "worktrees", "wt")
	writeFile(t, filepath.Join(wtGit, "HEAD"), "ref: refs/heads/wt\n")
	writeFile(t, filepath.Join(wtGit, "commondir"), "../..\n")

	wt := workspace(t)
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: "+wtGit+"\n")
	relWS := filepath.Join(repo, "sub")
	writeFile(t, filepath.Join(relWS, ".git"), "gitdir: ../.git/worktrees/wt\n")
	bad := workspace(t)
	writeFile(t, filepath.Join(bad, ".git"), "not a git file\n")

	tests := []struct {
		name string
		root string
		want []string
	}{
		{"plain", repo, []string{filepath.Join(repo, ".git")}},
		{"worktree", wt, []string{wtGit, filepath.Join(repo, ".git")}},
		{"relative gitdir", relWS, []string{wtGit, filepath.Join(repo, ".git")}},
		{"bad git file", bad, nil},
		{"no git", workspace(t), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, gitDirs(tt.root)); d != "" {
				t.Errorf("gitDirs (-want +got):\n%s", d)
			}
		})
	}
}

func TestRunHelperErrors(t *testing.T) {
	bad, _ := helperSpec{Backend: "chroot"}.encode()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"x", "--"}, "usage"},
		{"no separator", []string{"x", "true", "y"}, "usage"},
		{"not base64", []string{"%%%", "--", "true"}, "decode sandbox policy"},
		{"not JSON", []string{"bm90IGpzb24", "--", "true"}, "decode sandbox policy"},
		{"unknown backend", []string{bad, "--", "true"}, "unknown sandbox backend"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := runHelper(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("runHelper error = %v, want one containing %q", err, tt.want)
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
// call MaybeRunHelper as nova's main does and then list the descriptors a
// sandboxed command has.
const inheritEnv = "NOVA_SANDBOX_TEST_INHERIT"

// listSandboxedFDs runs in the child of TestInheritedDescriptorsDoNotReachCommands.
func listSandboxedFDs(ws string) int {
	s, err := New(ModeAuto, Policy{Workspace: ws})
	if err != nil || s.Kind() != KindBubblewrap {
		fmt.Fprintln(os.Stderr, "no bubblewrap sandbox:", err)
		return 1
	}
	argv, files, err := s.Wrap([]string{"bash", "-c", "exec ls -m /proc/self/fd"}, ws)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.ExtraFiles = files
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	closeAll(files)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
