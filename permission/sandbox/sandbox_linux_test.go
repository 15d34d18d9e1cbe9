//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// These tests run real commands in real sandboxes, and skip where the
// machine lacks a backend.

// realSandbox returns a sandbox of the given kind, or skips the test where
// the machine has none; under CI=true it fails instead (.ci/run installs
// bubblewrap, and CI's kernel has Landlock: a test that skips there tests
// nothing).
func realSandbox(t *testing.T, kind string, p Policy) *Sandbox {
	t.Helper()
	pr := systemProbes()
	switch kind {
	case KindLandlock:
		// Hide bwrap so that New falls through to Landlock.
		pr.lookPath = func(string) (string, error) { return "", exec.ErrNotFound }
		if landlockABI() < 1 {
			unavailable(t, "the kernel has no Landlock")
		}
	case KindBubblewrap:
		if _, err := exec.LookPath("bwrap"); err != nil {
			unavailable(t, "bubblewrap is not installed (apt-get install bubblewrap)")
		}
	}
	s, err := newSandbox(ModeAuto, p, pr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Kind() != kind {
		unavailable(t, fmt.Sprintf("no %s sandbox here: %s", kind, s.Notice()))
	}
	return s
}

// unavailable skips the test, or fails it under CI=true.
func unavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: the sandbox tests must run)")
	}
	t.Skip(why)
}

var kinds = []string{KindBubblewrap, KindLandlock}

// runIn runs script with bash in s, the way the Bash tool starts commands
// (a new session, so a new process group), and returns its combined output
// and exit code.
func runIn(t *testing.T, s *Sandbox, dir, script string, env ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := s.Start(cmd); err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	_ = cmd.Wait()
	if note := s.Finish(ctx, cmd); note != "" {
		buf.WriteString("\n[finish] " + note)
	}
	return buf.String(), cmd.ProcessState.ExitCode()
}

// TestSandboxKeepsTheGivenEnvironment: each backend starts the command
// with cmd.Env as given (plus its TMPDIR), not with this process's
// environment, so what the Bash tool withholds (credentials) stays out.
func TestSandboxKeepsTheGivenEnvironment(t *testing.T) {
	t.Setenv("NOVA_TEST_PROCESS_ONLY", "leaked")
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			ws := workspace(t)
			s := realSandbox(t, kind, Policy{Workspace: ws, TempDir: workspace(t)})
			cmd := exec.Command("bash", "-c", `echo "given=$NOVA_TEST_GIVEN process=$NOVA_TEST_PROCESS_ONLY"`)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "NOVA_TEST_GIVEN=yes"}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			if err := s.Start(cmd); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if got, want := strings.TrimSpace(buf.String()), "given=yes process="; got != want {
				t.Errorf("output %q, want %q", got, want)
			}
		})
	}
}

func TestSandboxFilesystem(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			ws := workspace(t)
			tmp := workspace(t)
			extra := workspace(t)
			s := realSandbox(t, kind, Policy{Workspace: ws, TempDir: tmp, Writable: []string{extra}})
			// Outside the workspace, as an attacker's target would be: one
			// in /var/tmp, which stays visible inside bubblewrap, and one
			// in the host's /tmp, which bubblewrap hides.
			outside := outsideDir(t, "/var/tmp")
			hostTmp := outsideDir(t, "")
			home := filepath.Join(outside, "home")
			writeFile(t, filepath.Join(home, ".bashrc"), "# rc\n")

			tests := []struct {
				name     string
				script   string
				wantCode int    // 0 or nonzero (-1)
				wantOut  string // substring
				created  string // a file that must exist afterwards
				absent   string // a file that must not exist afterwards
			}{
				{name: "write in the workspace", script: "echo hi > made && cat made", wantOut: "hi", created: filepath.Join(ws, "made")},
				{name: "mkdir and rename in the workspace", script: "mkdir -p a/b && echo x > a/f && mv a/f a/b/g", created: filepath.Join(ws, "a", "b", "g")},
				{name: "write in TMPDIR", script: `test "$TMPDIR" = ` + tmp + ` && echo t > "$TMPDIR/t"`, created: filepath.Join(tmp, "t")},
				{name: "write in an extra dir", script: "echo x > " + extra + "/e", created: filepath.Join(extra, "e")},
				{name: "mktemp", script: "f=$(mktemp) && echo x > $f && echo $f", wantOut: tmp},
				{name: "write outside", script: "echo evil > " + outside + "/evil", wantCode: -1, absent: filepath.Join(outside, "evil")},
				{name: "write in the host's /tmp", script: "echo evil > " + hostTmp + "/evil", wantCode: -1, absent: filepath.Join(hostTmp, "evil")},
				{name: "append to a file outside", script: "echo evil >> " + home + "/.bashrc", wantCode: -1},
				{name: "delete outside", script: "rm -f " + home + "/.bashrc", wantCode: -1, created: filepath.Join(home, ".bashrc")},
				{name: "escape with ..", script: "echo evil > ../" + filepath.Base(outside) + "/dots", wantCode: -1, absent: filepath.Join(outside, "dots")},
				{name: "read outside", script: "cat " + home + "/.bashrc", wantOut: "# rc"},
				{name: "dev null", script: "echo x > /dev/null && echo ok", wantOut: "ok"},
				{name: "exit code", script: "echo out; exit 3", wantCode: 3, wantOut: "out"},
				// Even where the tests run as root: a capability would let
				// a command remount a read-only bind writable, or reboot.
				{name: "no capabilities", script: `grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status | grep -v '0000000000000000$' || echo none`, wantOut: "none"},
				{name: "no remount", script: "mount -o remount,rw,bind / 2>/dev/null", wantCode: -1},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					out, code := runIn(t, s, ws, tt.script)
					switch {
					case tt.wantCode == -1 && code == 0:
						t.Errorf("exit code 0, want a failure; output %q", out)
					case tt.wantCode != -1 && code != tt.wantCode:
						t.Errorf("exit code %d, want %d; output %q", code, tt.wantCode, out)
					}
					if !strings.Contains(out, tt.wantOut) {
						t.Errorf("output %q does not contain %q", out, tt.wantOut)
					}
					if tt.created != "" {
						if _, err := os.Stat(tt.created); err != nil {
							t.Errorf("%s: %v", tt.created, err)
						}
					}
					if tt.absent != "" {
						if _, err := os.Stat(tt.absent); !os.IsNotExist(err) {
							t.Errorf("%s exists", tt.absent)
						}
					}
				})
			}
			if got, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(got) != "# rc\n" {
				t.Errorf(".bashrc changed to %q", got)
			}
		})
	}
}

// TestBubblewrapProtectsSettings: a command cannot write the project's
// NovaCode settings, which decide what runs without asking. (Git metadata:
// TestGitMetadataUnderBubblewrap.)
func TestBubblewrapProtectsSettings(t *testing.T) {
	ws := workspace(t)
	s := realSandbox(t, KindBubblewrap, Policy{Workspace: ws})
	for _, script := range []string{
		"mkdir -p .novacode && echo '{}' > .novacode/settings.json",
		"mv .novacode .novacode-old && mkdir .novacode && echo '{}' > .novacode/settings.json",
	} {
		if out, code := runIn(t, s, ws, script); code == 0 {
			t.Errorf("%q succeeded: %s", script, out)
		}
		if _, err := os.Stat(filepath.Join(ws, ".novacode", "settings.json")); !os.IsNotExist(err) {
			t.Errorf("%q: the settings file exists", script)
		}
	}
}

func TestSandboxNetwork(t *testing.T) {
	// Only 127.0.0.1: the listeners are the test's own.
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpScript := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", tcp.Addr().(*net.TCPAddr).Port)
	udpScript := fmt.Sprintf("echo datagram > /dev/udp/127.0.0.1/%d", udp.LocalAddr().(*net.UDPAddr).Port)

	for _, kind := range kinds {
		for _, allow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/allow=%v", kind, allow), func(t *testing.T) {
				if kind == KindLandlock && !seccompSupported && landlockABI() < 4 {
					t.Skip("Landlock restricts TCP from ABI 4 on")
				}
				ws := workspace(t)
				s := realSandbox(t, kind, Policy{Workspace: ws, AllowNetwork: allow})
				out, code := runIn(t, s, ws, tcpScript)
				if allow && (code != 0 || !strings.Contains(out, "connected")) {
					t.Errorf("TCP: network allowed, but: code %d, output %q", code, out)
				}
				if !allow && (code == 0 || strings.Contains(out, "connected")) {
					t.Errorf("TCP: network off, but: code %d, output %q", code, out)
				}

				// UDP (DNS exfiltration): whether the datagram arrives.
				runIn(t, s, ws, udpScript)
				buf := make([]byte, 64)
				udp.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
				n, _, err := udp.ReadFrom(buf)
				got := err == nil && string(buf[:n]) == "datagram\n"
				if got != allow {
					t.Errorf("UDP: network allowed %v, datagram received %v (%v)", allow, got, err)
				}
			})
		}
	}
}

// TestSandboxUnixSockets checks the seccomp filter: with the network off a
// command cannot connect to a unix socket, here one in the workspace (so
// that it is visible inside); with the network on it can.
func TestSandboxUnixSockets(t *testing.T) {
	if !seccompSupported {
		t.Skip("no socket filter on this architecture")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range kinds {
		for _, allow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/allow=%v", kind, allow), func(t *testing.T) {
				ws := workspace(t)
				s := realSandbox(t, kind, Policy{Workspace: ws, AllowNetwork: allow})
				// The test binary is the client; it is copied into the
				// workspace because bubblewrap hides the host's /tmp.
				copyFile(t, exe, filepath.Join(ws, "client"))
				sock := filepath.Join(ws, "s.sock")
				ln, err := net.Listen("unix", sock)
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				out, code := runIn(t, s, ws, "./client", dialEnv+"="+sock)
				if allow && code != 0 {
					t.Errorf("network allowed, but the dial failed: code %d, output %q", code, out)
				}
				if !allow && (code == 0 || !strings.Contains(out, "operation not permitted")) {
					t.Errorf("network off, but the dial did not fail with EPERM: code %d, output %q", code, out)
				}
				// Nothing is left open for the command: bwrap closed the
				// pipe it read the filter from.
				// (3 is the directory ls reads.)
				out, _ = runIn(t, s, ws, "exec ls -m /proc/self/fd")
				if strings.TrimSpace(out) != "0, 1, 2, 3" {
					t.Errorf("open descriptors: %q", out)
				}
			})
		}
	}
}

// TestSandboxKillsTree kills the process group the way the Bash tool does
// on timeout and checks that no process of the command is left, found by
// a marker in its command line. Under bubblewrap even a process that left
// the group (setsid) dies, with the PID namespace.
func TestSandboxKillsTree(t *testing.T) {
	for _, kind := range kinds {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			t.Run(kind+"/"+sig.String(), func(t *testing.T) {
				if kind == KindLandlock && sig == syscall.SIGTERM {
					// The processes ignore SIGTERM and nothing stands
					// between them and the signal; the Bash tool follows
					// up with SIGKILL, tested below.
					t.Skip("SIGTERM is ignored by the command itself")
				}
				ws := workspace(t)
				s := realSandbox(t, kind, Policy{Workspace: ws})
				marker := fmt.Sprintf("%d.%06d", 900+rand.IntN(99), rand.IntN(1_000_000))
				script := "trap '' TERM; sleep " + marker + " & (trap '' TERM; sleep " + marker + ") & "
				if kind == KindBubblewrap {
					script += "setsid sleep " + marker + " & "
				}
				script += "echo started; sleep " + marker
				cmd := exec.Command("bash", "-c", script)
				cmd.Dir = ws
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Start(cmd); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { killMarked(marker) })
				line := make([]byte, len("started"))
				if _, err := io.ReadFull(stdout, line); err != nil {
					t.Fatalf("command did not start: %v", err)
				}
				waitFor(t, func() bool { return len(marked(marker)) >= 3 }, "the sleeps to start")
				if cmd.Process.Pid != getpgid(t, cmd.Process.Pid) {
					t.Errorf("the wrapper (pid %d) does not lead its process group", cmd.Process.Pid)
				}
				_ = syscall.Kill(-cmd.Process.Pid, sig)
				_ = cmd.Wait()
				waitFor(t, func() bool { return len(marked(marker)) == 0 }, "every marked process to die")
			})
		}
	}
}

// outsideDir makes a directory outside any workspace, under parent ("" for
// the default temp dir).
func outsideDir(t *testing.T, parent string) string {
	t.Helper()
	if parent != "" {
		if err := syscall.Access(parent, 2); err != nil {
			parent = ""
		}
	}
	dir, err := os.MkdirTemp(parent, "nova-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func getpgid(t *testing.T, pid int) int {
	pg, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked returns the live (not zombie) processes whose command line
// contains marker.
func marked(marker string) []int {
	var pids []int
	stats, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(marker)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		var pid int
		fmt.Sscanf(filepath.Base(filepath.Dir(p)), "%d", &pid)
		pids = append(pids, pid)
	}
	return pids
}

// killMarked is the safety net of a failing test.
func killMarked(marker string) {
	for _, pid := range marked(marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// A program that embeds the sandbox and never calls InitProcess still
// gets confined commands, the socket filter included.
func TestBubblewrapWithoutInitProcess(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		unavailable(t, "bubblewrap is not installed (apt-get install bubblewrap)")
	}
	ws := workspace(t)
	s, err := newSandbox(ModeAuto, Policy{Workspace: ws}, systemProbes())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Kind() != KindBubblewrap {
		unavailable(t, "bubblewrap does not work here: "+s.Notice())
	}
	outside := t.TempDir() // under the host's /tmp, hidden inside
	if out, code := runIn(t, s, ws, "echo x > made && echo y > "+outside+"/evil"); code == 0 {
		t.Errorf("write outside succeeded: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "made")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "evil")); !os.IsNotExist(err) {
		t.Error("file written outside")
	}
	if !seccompSupported {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	copyFile(t, exe, filepath.Join(ws, "client"))
	sock := filepath.Join(ws, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if out, code := runIn(t, s, ws, "./client", dialEnv+"="+sock); code == 0 || !strings.Contains(out, "operation not permitted") {
		t.Errorf("unix socket reachable: code %d, output %q", code, out)
	}
}

// A descriptor nova inherited from its parent (an IDE, a shell) without
// close-on-exec never reaches a sandboxed command, although bubblewrap is
// started straight from nova: InitProcess marks them at start.
func TestInheritedDescriptorsDoNotReachCommands(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			realSandbox(t, kind, Policy{Workspace: workspace(t)}) // skips where there is none
			secret, err := os.Create(filepath.Join(t.TempDir(), "outside"))
			if err != nil {
				t.Fatal(err)
			}
			defer secret.Close()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), inheritEnv+"="+kind+"|"+workspace(t))
			cmd.ExtraFiles = []*os.File{secret} // descriptor 3 of the child, without close-on-exec
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			// The command's own: 0-2, and 3 for the directory ls reads.
			if got := strings.TrimSpace(string(out)); got != "0, 1, 2, 3" {
				t.Errorf("descriptors in the sandboxed command: %q (want 0-3 only; the inherited file leaked)", got)
			}
		})
	}
}

func TestAssembleRejectsBadJumps(t *testing.T) {
	tests := []struct {
		name string
		prog []bpfInsn
	}{
		{"unknown label", []bpfInsn{{jt: "nowhere"}}},
		{"backward", []bpfInsn{{label: "top"}, {jf: "top"}}},
		{"to itself", []bpfInsn{{label: "self", jt: "self"}}},
	}
	for _, tt := range tests {
		if _, err := assemble(tt.prog); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

// runBPF interprets the few classic BPF instructions socketFilter uses.
func runBPF(t *testing.T, prog []unix.SockFilter, nr, arch uint32, arg0 uint64) uint32 {
	t.Helper()
	data := map[uint32]uint32{offNr: nr, offArch: arch, offArg0: uint32(arg0), offArg0 + 4: uint32(arg0 >> 32)}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLoadWord:
			acc = data[in.K]
		case bpfJumpEq, bpfJumpGE:
			ok := acc == in.K
			if in.Code == bpfJumpGE {
				ok = acc >= in.K
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRet:
			return in.K
		default:
			t.Fatalf("unexpected instruction %+v", in)
		}
	}
	t.Fatal("program ran off its end")
	return 0
}

func TestSocketFilter(t *testing.T) {
	if !seccompSupported {
		t.Skip("no socket filter on this architecture")
	}
	tests := []struct {
		name   string
		nr     uint32
		arch   uint32
		arg0   uint64
		bwrap  uint32
		landlk uint32
	}{
		{"read", unix.SYS_READ, seccompArch, 0, retAllow, retAllow},
		{"unix socket", unix.SYS_SOCKET, seccompArch, unix.AF_UNIX, retEPERM, retEPERM},
		{"unix socket, high bits set", unix.SYS_SOCKET, seccompArch, 0xffffffff00000000 | unix.AF_UNIX, retEPERM, retEPERM},
		{"vsock", unix.SYS_SOCKET, seccompArch, unix.AF_VSOCK, retEPERM, retEPERM},
		{"inet", unix.SYS_SOCKET, seccompArch, unix.AF_INET, retAllow, retEPERM},
		{"inet6", unix.SYS_SOCKET, seccompArch, unix.AF_INET6, retAllow, retEPERM},
		{"netlink", unix.SYS_SOCKET, seccompArch, unix.AF_NETLINK, retAllow, retAllow},
		{"socketpair", unix.SYS_SOCKETPAIR, seccompArch, unix.AF_UNIX, retAllow, retAllow},
		{"io_uring", unix.SYS_IO_URING_SETUP, seccompArch, 0, retEPERM, retEPERM},
		{"foreign architecture", unix.SYS_READ, 0x40000003, 0, retEPERM, retEPERM},
	}
	if seccompX32 < 0xffffffff {
		tests = append(tests, struct {
			name   string
			nr     uint32
			arch   uint32
			arg0   uint64
			bwrap  uint32
			landlk uint32
		}{"x32", seccompX32 | unix.SYS_READ, seccompArch, 0, retEPERM, retEPERM})
	}
	for _, tt := range tests {
		if got := runBPF(t, socketFilter(bwrapSocketRule), tt.nr, tt.arch, tt.arg0); got != tt.bwrap {
			t.Errorf("%s: bubblewrap filter returns %#x, want %#x", tt.name, got, tt.bwrap)
		}
		if got := runBPF(t, socketFilter(landlockSocketRule), tt.nr, tt.arch, tt.arg0); got != tt.landlk {
			t.Errorf("%s: Landlock filter returns %#x, want %#x", tt.name, got, tt.landlk)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Landlock confines one thread, which starts the command and then ends;
// NovaCode itself must stay unconfined. After many concurrent Landlock
// commands no thread of this process carries a seccomp filter or
// no_new_privs, files outside the workspace can still be written from many
// goroutines, sockets can still be opened, and a command started without
// the sandbox can write outside.
func TestLandlockLeavesTheProcessUnconfined(t *testing.T) {
	ws := workspace(t)
	s := realSandbox(t, KindLandlock, Policy{Workspace: ws})
	outside := t.TempDir()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, code := runIn(t, s, ws, fmt.Sprintf("echo %d > in%d && ! echo x > %s/evil%d", i, i, outside, i)); code != 0 {
				t.Errorf("confined command %d: code %d, output %q", i, code, out)
			}
		}()
	}
	wg.Wait()

	confinedThreads := func() []string {
		var bad []string
		tasks, _ := filepath.Glob("/proc/self/task/*/status")
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if err != nil {
				continue // the thread ended
			}
			for _, line := range strings.Split(string(b), "\n") {
				k, v, _ := strings.Cut(line, ":")
				if (k == "Seccomp" || k == "NoNewPrivs") && strings.TrimSpace(v) != "0" {
					bad = append(bad, task+": "+line)
				}
			}
		}
		return bad
	}
	// A locked thread ends when its goroutine returns; wait for that.
	waitFor(t, func() bool { return len(confinedThreads()) == 0 }, "the confined threads to end")

	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // spread over threads the runtime has
			defer runtime.UnlockOSThread()
			if err := os.WriteFile(filepath.Join(outside, fmt.Sprintf("nova%d", i)), []byte("x"), 0o600); err != nil {
				t.Errorf("NovaCode cannot write outside the workspace: %v", err)
			}
			ln, err := net.Listen("unix", filepath.Join(outside, fmt.Sprintf("s%d.sock", i)))
			if err != nil {
				t.Errorf("NovaCode cannot open a unix socket: %v", err)
				return
			}
			ln.Close()
		}()
	}
	wg.Wait()
	if out, err := exec.Command("bash", "-c", "echo x > "+outside+"/plain").CombinedOutput(); err != nil {
		t.Errorf("an unsandboxed command cannot write outside: %v %s", err, out)
	}
}

// TestHardLinksUnderBubblewrap: files in the workspace that are hard links
// to files outside cannot be written through, by any writer; the control
// without a sandbox shows that each of them would.
func TestHardLinksUnderBubblewrap(t *testing.T) {
	writers := []struct{ name, script string }{
		{"redirect", "echo pwned > rc"},
		{"append", "echo pwned >> rc"},
		{"cp", "echo pwned > /tmp/x && cp /tmp/x rc"},
		{"dd", "echo pwned | dd of=rc conv=notrunc status=none"},
		{"truncate", "truncate -s 0 rc"},
		{"a script", "printf 'with open(\"rc\", \"w\") as f: f.write(\"pwned\")' > w.py && (python3 w.py || perl -e 'open(F, \">\", \"rc\"); print F \"pwned\"')"},
		{"sed -i writes a new file: harmless, but the name stays", "sed -i s/original/pwned/ rc"},
		{"in a store directory bound whole", "echo pwned > node_modules/.pnpm/pkg/index.js"},
		{"in a store directory, a new file", "echo new > node_modules/.pnpm/pkg/new.js && echo pwned > node_modules/.pnpm/pkg/index.js"},
		{"in .git/objects", "chmod u+w .git/objects/pack/p.pack; echo pwned > .git/objects/pack/p.pack"},
	}
	for _, sandboxed := range []bool{false, true} {
		for _, w := range writers {
			t.Run(fmt.Sprintf("sandboxed=%v/%s", sandboxed, w.name), func(t *testing.T) {
				ws, outside := workspace(t), outsideDir(t, "/var/tmp")
				victims := map[string]string{
					"bashrc": "rc",
					"index":  "node_modules/.pnpm/pkg/index.js",
					"pack":   ".git/objects/pack/p.pack",
				}
				for victim, name := range victims {
					writeFile(t, filepath.Join(outside, victim), "original\n")
					if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Link(filepath.Join(outside, victim), filepath.Join(ws, name)); err != nil {
						t.Fatal(err)
					}
				}
				writeFile(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
				if err := os.MkdirAll(filepath.Join(ws, ".git", "refs"), 0o755); err != nil {
					t.Fatal(err)
				}
				s, err := New(ModeOff, Policy{})
				if err != nil {
					t.Fatal(err)
				}
				if sandboxed {
					s = realSandbox(t, KindBubblewrap, Policy{Workspace: ws})
					if g := s.Guarantees(context.Background()); !g.HardLinks {
						t.Errorf("no promise about hard links: %v", g.Gaps)
					}
				}
				out, _ := runIn(t, s, ws, w.script)
				changed := false
				for victim := range victims {
					if got, _ := os.ReadFile(filepath.Join(outside, victim)); string(got) != "original\n" {
						changed = true
						if sandboxed {
							t.Errorf("%s outside the workspace was written through its link: %q\n%s", victim, got, out)
						}
					}
				}
				if !sandboxed && !changed && !strings.HasPrefix(w.name, "sed -i") {
					t.Errorf("control: without a sandbox the writer changed nothing outside; the check cannot fail\n%s", out)
				}
			})
		}
	}
}

// TestFinishEndsWhatACommandLeaves: processes a command leaves behind,
// in the background, in a new process group or a new session, are gone
// once Finish returns (Landlock kills its domain; bubblewrap's PID
// namespace died with it); those of another command still running are
// not touched.
func TestFinishEndsWhatACommandLeaves(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			ws := workspace(t)
			s := realSandbox(t, kind, Policy{Workspace: ws})
			if kind == KindLandlock && landlockABI() < 6 {
				t.Log("Landlock without the signal scope: only the session is ended, setsid escapes")
			}
			other := fmt.Sprintf("%d.%06d", 900+rand.IntN(99), rand.IntN(1_000_000))
			marker := fmt.Sprintf("%d.%06d", 900+rand.IntN(99), rand.IntN(1_000_000))
			t.Cleanup(func() { killMarked(other); killMarked(marker) })

			// Another command, still running.
			long := exec.Command("bash", "-c", "sleep "+other+" & wait")
			long.Dir = ws
			long.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := s.Start(long); err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return len(marked(other)) >= 1 }, "the other command to start")

			script := "sleep " + marker + " >/dev/null 2>&1 & " +
				"(trap '' HUP TERM; exec sleep " + marker + ") >/dev/null 2>&1 & " +
				"set -m; sleep " + marker + " >/dev/null 2>&1 & set +m; "
			if kind == KindBubblewrap || landlockABI() >= 6 {
				script += "setsid sleep " + marker + " >/dev/null 2>&1 & "
			}
			script += "sleep 0.2; echo started"
			out, code := runIn(t, s, ws, script) // runIn calls Finish
			if code != 0 || !strings.Contains(out, "started") {
				t.Fatalf("code %d: %s", code, out)
			}
			if left := marked(marker); len(left) > 0 {
				t.Errorf("processes the command left are alive after Finish: %v", left)
			}
			if len(marked(other)) == 0 {
				t.Error("Finish of one command killed another command's processes")
			}
			_ = syscall.Kill(-long.Process.Pid, syscall.SIGKILL)
			_ = long.Wait()
			s.Finish(context.Background(), long)
			waitFor(t, func() bool { return len(marked(other)) == 0 }, "the other command's processes to end")
		})
	}
}

// TestOpenInit: Finish's hold on a bubblewrap namespace's first process
// is taken only on bwrap's own child (a PID that names another process
// is refused), and ending it kills the process and returns once it has
// exited.
func TestOpenInit(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if n := openInit(cmd.Process.Pid, os.Getppid()); n != nil {
		n.end()
		t.Fatal("held a process whose parent is not the one given")
	}
	n := openInit(cmd.Process.Pid, os.Getpid())
	if n == nil {
		t.Skip("no pidfd here")
	}
	if note := n.end(); note != "" {
		t.Errorf("note %q", note)
	}
	if state, _, _, ok := procStat(cmd.Process.Pid); !ok || state != 'Z' {
		t.Errorf("the process has not exited after end: state %q", state)
	}
	if note := n.end(); note != "" { // a second end is a no-op
		t.Errorf("second end: note %q", note)
	}
}

// A directory of Policy.ReadOnly inside the workspace (NovaCode's data
// directory there) is read-only under bubblewrap, the session's temp dir
// inside it staying writable.
func TestReadOnlyInsideTheWorkspace(t *testing.T) {
	ws := workspace(t)
	data := filepath.Join(ws, "nova-home")
	tmp := filepath.Join(data, "projects", "s1", "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	s := realSandbox(t, KindBubblewrap, Policy{Workspace: ws, TempDir: tmp, ReadOnly: []string{data}})
	out, code := runIn(t, s, ws, "echo x > nova-home/settings.json; echo $? ; echo y > \"$TMPDIR/t\" && echo tmp-ok; echo z > other && echo ws-ok")
	if code != 0 || !strings.Contains(out, "tmp-ok") || !strings.Contains(out, "ws-ok") {
		t.Fatalf("code %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(data, "settings.json")); err == nil {
		t.Fatalf("the data directory was written:\n%s", out)
	}
}
