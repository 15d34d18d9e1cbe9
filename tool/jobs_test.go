//go:build unix

package tool

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shJob is a spec for `sh -c command` in a process group of its own, which
// StopFn kills whole, as Bash's does; ended receives its final JobInfo.
func shJob(command string, ended chan<- JobInfo) JobSpec {
	cmd := exec.Command("sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return JobSpec{
		Command: command,
		Cmd:     cmd,
		StopFn: func(cmd *exec.Cmd, waited <-chan error) error {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return <-waited
		},
		Ended: func(in JobInfo) {
			if ended != nil {
				ended <- in
			}
		},
	}
}

// newJobs returns a Jobs spooling into a test directory, closed at the
// end of the test.
func newJobs(t *testing.T) *Jobs {
	t.Helper()
	j := NewJobs(filepath.Join(t.TempDir(), "jobs"))
	t.Cleanup(j.Close)
	return j
}

func start(t *testing.T, j *Jobs, spec JobSpec) JobInfo {
	t.Helper()
	info, err := j.Start(spec)
	if err != nil {
		t.Fatalf("Start(%q): %v", spec.Command, err)
	}
	return info
}

// waitEnded returns what Ended reported, or fails after 10 s.
func waitEnded(t *testing.T, ended <-chan JobInfo) JobInfo {
	t.Helper()
	select {
	case in := <-ended:
		return in
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not end")
		return JobInfo{}
	}
}

func read(t *testing.T, j *Jobs, id, filter string, limit int) JobOutput {
	t.Helper()
	var re *regexp.Regexp
	if filter != "" {
		re = regexp.MustCompile(filter)
	}
	out, err := j.Read(id, re, limit)
	if err != nil {
		t.Fatalf("Read(%s): %v", id, err)
	}
	return out
}

// groupGoneWithin polls until no process of group pgid exists, zombies
// included (init reaps the orphans), and reports whether that happened
// within d.
func groupGoneWithin(pgid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
	}
	return false
}

func TestJobsRunAndRead(t *testing.T) {
	j := newJobs(t)
	ended := make(chan JobInfo, 1)
	begin := time.Now()
	gate := filepath.Join(t.TempDir(), "go")
	in := start(t, j, shJob("echo one; echo two >&2; while [ ! -e "+gate+" ]; do sleep 0.01; done; echo three; exit 3", ended))
	if since := time.Since(begin); since > time.Second {
		t.Errorf("Start took %v", since)
	}
	if in.ID != "bash_1" || !in.Running || in.OutputPath == "" {
		t.Errorf("Start = %+v", in)
	}
	// Both streams go to the file, in the order written.
	waitOutput(t, j, "bash_1", "one\ntwo\n")
	if got := read(t, j, "bash_1", "", 1000); got.Text != "one\ntwo\n" || !got.Info.Running || got.New != 8 {
		t.Errorf("first read = %+v", got)
	}
	if got := read(t, j, "bash_1", "", 1000); got.Text != "" || got.New != 0 {
		t.Errorf("second read, nothing new = %+v", got)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fin := waitEnded(t, ended)
	if fin.Running || fin.Killed || fin.TimedOut || fin.ExitCode != 3 || fin.Ended.IsZero() || fin.OutputBytes != 14 {
		t.Errorf("ended = %+v", fin)
	}
	if got := read(t, j, "bash_1", "", 1000); got.Text != "three\n" || got.Info.Running {
		t.Errorf("read after the end = %+v", got)
	}
	in2 := start(t, j, shJob("true", ended))
	waitEnded(t, ended)
	var ids []string
	for _, l := range j.List() {
		ids = append(ids, l.ID)
	}
	if d := cmp.Diff([]string{"bash_1", "bash_2"}, ids); d != "" || in2.ID != "bash_2" {
		t.Errorf("List ids (-want +got):\n%s", d)
	}
}

// waitOutput waits until the job's file holds want.
func waitOutput(t *testing.T, j *Jobs, id, want string) {
	t.Helper()
	in, _ := j.Get(id)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(in.OutputPath); string(b) == want {
			return
		}
	}
	t.Fatalf("%s never wrote %q", id, want)
}

func TestJobsReadFilter(t *testing.T) {
	tests := []struct {
		name        string
		output      string // printf format
		filter      string
		want        string
		wantSkipped int
	}{
		{"some lines", `ok 1\nFAIL 2\nok 3\nFAIL 4\n`, "FAIL", "FAIL 2\nFAIL 4\n", 2},
		{"none", `a\nb\n`, "z", "", 2},
		{"last line without newline, ended", `a\nab`, "b", "ab", 1},
		{"anchors work per line", `xa\nab\n`, "^a", "ab\n", 1},
		{"invalid UTF-8 shown as U+FFFD", `a\377\n`, "a", "a\uFFFD\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJobs(t)
			ended := make(chan JobInfo, 1)
			in := start(t, j, shJob(`printf '`+tt.output+`'`, ended))
			waitEnded(t, ended)
			got := read(t, j, in.ID, tt.filter, 1000)
			if d := cmp.Diff(tt.want, got.Text); d != "" {
				t.Errorf("Text (-want +got):\n%s", d)
			}
			if got.Skipped != tt.wantSkipped {
				t.Errorf("Skipped = %d, want %d", got.Skipped, tt.wantSkipped)
			}
			// Lines that did not match are taken too.
			if again := read(t, j, in.ID, "", 1000); again.Text != "" {
				t.Errorf("read after the filtered one = %q", again.Text)
			}
		})
	}
}

// TestJobsReadWhileRunning: what may still be in the middle of being
// written is left for the next read: a line, for a filter; a character.
func TestJobsReadWhileRunning(t *testing.T) {
	j := newJobs(t)
	in := start(t, j, shJob(`printf 'x1\nx2'; sleep 100`, nil))
	waitOutput(t, j, in.ID, "x1\nx2")
	if got := read(t, j, in.ID, "x", 1000); got.Text != "x1\n" || got.New != 3 {
		t.Errorf("filtered read while running = %+v", got)
	}
	if err := j.Kill(in.ID); err != nil {
		t.Fatal(err)
	}
	if got := read(t, j, in.ID, "x", 1000); got.Text != "x2" || !got.Info.Killed {
		t.Errorf("filtered read once killed = %+v", got)
	}

	in = start(t, j, shJob(`printf 'é\303'; sleep 100`, nil))
	waitOutput(t, j, in.ID, "é\303")
	if got := read(t, j, in.ID, "", 1000); got.Text != "é" {
		t.Errorf("read while running = %q, want the complete character only", got.Text)
	}
	if err := j.Kill(in.ID); err != nil {
		t.Fatal(err)
	}
	if got := read(t, j, in.ID, "", 1000); got.Text != "\uFFFD" {
		t.Errorf("read once killed = %q", got.Text)
	}
}

// TestJobsReadBounded: 5 MB of new output comes back as at most the limit,
// head and tail, the marker naming the file; the read takes all of it.
func TestJobsReadBounded(t *testing.T) {
	const total = 5_000_000
	for _, filter := range []string{"", "."} {
		t.Run("filter "+filter, func(t *testing.T) {
			j := newJobs(t)
			ended := make(chan JobInfo, 1)
			// Lines of 100 bytes: the race detector makes a regexp
			// slow per call.
			in := start(t, j, shJob("seq 1 100000 | sed 's/$/ "+strings.Repeat("x", 93)+"/' | head -c 5000000", ended))
			waitEnded(t, ended)
			const limit = 30000
			got := read(t, j, in.ID, filter, limit)
			if len(got.Text) > limit {
				t.Errorf("Text is %d bytes, more than %d", len(got.Text), limit)
			}
			if got.New != total || got.Cut < total-limit {
				t.Errorf("New = %d, Cut = %d", got.New, got.Cut)
			}
			if want := "characters left out; the whole output is in " + in.OutputPath; !strings.Contains(got.Text, want) {
				t.Errorf("Text lacks %q", want)
			}
			b, err := os.ReadFile(in.OutputPath)
			if err != nil {
				t.Fatal(err)
			}
			if head := string(b[:1000]); !strings.HasPrefix(got.Text, head) {
				t.Errorf("Text does not start with the output's start %q", head)
			}
			if tail := string(b[len(b)-99:]); !strings.HasSuffix(got.Text, tail) {
				t.Errorf("Text does not end with the output's end %q", tail)
			}
			if again := read(t, j, in.ID, "", limit); again.New != 0 {
				t.Errorf("second read took %d more bytes", again.New)
			}
		})
	}
}

// TestJobsKill: Kill ends the whole group, returns once the job is over
// (Ended has run), and leaves a job that had ended as it was.
func TestJobsKill(t *testing.T) {
	j := newJobs(t)
	ended := make(chan JobInfo, 1)
	in := start(t, j, shJob("sleep 100 & sleep 100", ended))
	pgid := j.find(in.ID).spec.Cmd.Process.Pid
	if err := j.Kill(in.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case fin := <-ended:
		if !fin.Killed || fin.Running || fin.TimedOut || fin.ExitCode != -1 || fin.Signal != "killed" {
			t.Errorf("ended = %+v", fin)
		}
	default:
		t.Fatal("Kill returned before Ended")
	}
	if !groupGoneWithin(pgid, 5*time.Second) {
		t.Errorf("process group %d survived Kill", pgid)
	}
	if err := j.Kill(in.ID); err != nil {
		t.Errorf("Kill of an ended job: %v", err)
	}
	if err := j.Kill("bash_9"); !errors.Is(err, ErrNoJob) {
		t.Errorf("Kill of an unknown id: %v", err)
	}
	if _, err := j.Read("bash_9", nil, 100); !errors.Is(err, ErrNoJob) {
		t.Errorf("Read of an unknown id: %v", err)
	}

	// A job that ended on its own is not marked killed.
	in = start(t, j, shJob("exit 0", ended))
	waitEnded(t, ended)
	if err := j.Kill(in.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := j.Get(in.ID); got.Killed || got.ExitCode != 0 {
		t.Errorf("after Kill of an ended job: %+v", got)
	}
}

func TestJobsTimeout(t *testing.T) {
	j := newJobs(t)
	ended := make(chan JobInfo, 1)
	spec := shJob("sleep 100", ended)
	spec.Timeout = 100 * time.Millisecond
	start(t, j, spec)
	fin := waitEnded(t, ended)
	if !fin.TimedOut || fin.Killed || fin.Timeout != spec.Timeout {
		t.Errorf("ended = %+v", fin)
	}
}

func TestJobsKillOwner(t *testing.T) {
	j := newJobs(t)
	main := start(t, j, shJob("sleep 100", nil))
	specA := shJob("sleep 100", nil)
	specA.Owner = "agent-a"
	a := start(t, j, specA)
	j.KillOwner("agent-a")
	got := map[string]bool{}
	for _, in := range j.List() {
		got[in.ID] = in.Running
	}
	if d := cmp.Diff(map[string]bool{main.ID: true, a.ID: false}, got); d != "" {
		t.Errorf("running after KillOwner (-want +got):\n%s", d)
	}
}

// TestJobsClose: Close ends every job and returns once they are over;
// Start fails afterwards; a temporary directory goes.
func TestJobsClose(t *testing.T) {
	j := NewJobs("")
	ended := make(chan JobInfo, 2)
	a := start(t, j, shJob("sleep 100", ended))
	b := start(t, j, shJob("trap '' TERM; sleep 100 & sleep 100", ended))
	pgids := []int{j.find(a.ID).spec.Cmd.Process.Pid, j.find(b.ID).spec.Cmd.Process.Pid}
	j.Close()
	if len(ended) != 2 {
		t.Errorf("%d jobs reported their end before Close returned", len(ended))
	}
	for _, in := range j.List() {
		if in.Running || !in.Killed {
			t.Errorf("after Close: %+v", in)
		}
	}
	for _, pgid := range pgids {
		if !groupGoneWithin(pgid, 5*time.Second) {
			t.Errorf("process group %d survived Close", pgid)
		}
	}
	if _, err := os.Stat(filepath.Dir(a.OutputPath)); !os.IsNotExist(err) {
		t.Errorf("temporary directory left: %v", err)
	}
	if _, err := j.Start(shJob("true", nil)); !errors.Is(err, ErrJobsClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	j.Close() // again: nothing to do
}

func TestJobsStartFails(t *testing.T) {
	j := newJobs(t)
	spec := shJob("true", nil)
	spec.Ended = func(JobInfo) { t.Error("Ended called for a job that did not start") }
	spec.StartFn = func(*exec.Cmd) error { return errors.New("no sandbox today") }
	if _, err := j.Start(spec); err == nil || !strings.Contains(err.Error(), "no sandbox today") {
		t.Errorf("Start = %v", err)
	}
	if l := j.List(); len(l) != 0 {
		t.Errorf("List = %+v", l)
	}
	entries, _ := os.ReadDir(j.dir)
	if len(entries) != 0 {
		t.Errorf("output files left: %v", entries)
	}
}

// TestJobsOutputFileNames: a second Jobs on the same directory (another
// session) keeps the first one's files.
func TestJobsOutputFileNames(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for range 2 {
		j := NewJobs(dir)
		ended := make(chan JobInfo, 1)
		in := start(t, j, shJob("echo hi", ended))
		waitEnded(t, ended)
		paths = append(paths, in.OutputPath)
		j.Close()
	}
	if paths[0] != filepath.Join(dir, "bash_1.output") || paths[1] == paths[0] || !strings.HasPrefix(filepath.Base(paths[1]), "bash_1-") {
		t.Errorf("output files %q", paths)
	}
}
