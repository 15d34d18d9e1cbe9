package tool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Jobs are the session's background commands (Bash with run_in_background,
// BashOutput, KillShell). Jobs starts each command with its output spooled
// to a file of its own (never held in memory), waits for it, ends it on
// request (Kill, KillOwner, Close) or at its time limit, and reads what it
// wrote for the model (Read).
//
// Jobs owns the goroutines that wait for the commands; Close ends every
// command and waits for all of them, so nothing outlives it.
//
// Safe for concurrent use.
type Jobs struct {
	dir string // as given to NewJobs

	mu      sync.Mutex
	outDir  string // the directory in use, once made
	tempDir bool   // outDir is ours, removed at Close
	next    int    // the number of the last job started
	jobs    []*job // in start order
	closed  bool
	spawn   *spawner // made at the first Start, stopped at Close

	// wg counts the jobs being started or running (their waiters) and
	// the goroutine each waiter has in cmd.Wait.
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// ErrJobsClosed is what Start returns after Close.
var ErrJobsClosed = errors.New("background commands have been shut down")

// ErrNoJob is what Kill and Read return for an id that names no job.
var ErrNoJob = errors.New("no such background command")

// NewJobs returns an empty registry whose jobs spool their output into
// dir, which is created when the first job starts. dir "" means a
// temporary directory, removed at Close; a directory given is left as it
// is, output files included.
func NewJobs(dir string) *Jobs { return &Jobs{dir: dir} }

// JobSpec is a command for Jobs.Start: everything about it but its output,
// which goes to the job's file.
type JobSpec struct {
	// Command is the command line, Description what it does in a few
	// words (may be ""), for List and the model.
	Command, Description string
	// Owner is the agent that started it: "" for the main agent, the
	// subagent's id otherwise (KillOwner).
	Owner string
	// Cmd is complete (Path, Args, Dir, Env, SysProcAttr) and not
	// started. Start sets its Stdout and Stderr to the job's output file;
	// on Linux it also sets SysProcAttr.Pdeathsig, since it starts the
	// command from a thread that lives until Close (see spawner).
	Cmd *exec.Cmd
	// Timeout, when positive, ends the job (Stop) once it has run that
	// long; JobInfo.TimedOut says so.
	Timeout time.Duration
	// StartFn starts Cmd (a Sandbox's Start); nil means Cmd.Start.
	StartFn func(cmd *exec.Cmd) error
	// WaitFn waits for Cmd to end on its own and returns what cmd.Wait
	// returned; it may end what the command left running first. nil
	// means Cmd.Wait.
	WaitFn func(cmd *exec.Cmd) error
	// StopFn ends the command and everything it started, and returns what
	// waited delivers (WaitFn's result) once it has. nil means
	// Cmd.Process.Kill, which reaches the first process only.
	StopFn func(cmd *exec.Cmd, waited <-chan error) error
	// FinishFn, if set, is called once the command has been waited for,
	// however it ended (a Sandbox's Finish); what it returns is kept as
	// JobInfo.Note.
	FinishFn func(cmd *exec.Cmd) string
	// Ended, if set, is called once the job is over, with its final
	// JobInfo, on the goroutine that waited for it; Kill, KillOwner and
	// Close return only after it has returned. It is not called when
	// Start fails.
	Ended func(JobInfo)
}

// JobInfo is one job as it stands.
type JobInfo struct {
	ID          string
	Command     string
	Description string
	Owner       string
	// PID is the process id of the command's first process, which leads
	// its process group (the sandbox's, when one wraps it).
	PID     int
	Started time.Time
	// Ended is zero while the job runs.
	Ended   time.Time
	Running bool
	// Killed: Kill, KillOwner or Close ended the job.
	Killed bool
	// TimedOut: the job ran into its time limit, Timeout, and was ended.
	TimedOut bool
	Timeout  time.Duration
	// ExitCode is the command's exit status once it has ended; -1 when a
	// signal ended it (Signal) or its status is unknown.
	ExitCode int
	// Signal names the signal that ended the command ("killed",
	// "terminated"), or is "".
	Signal string
	// Note is what JobSpec.FinishFn said, or why waiting failed.
	Note string
	// OutputPath is the file holding everything the command wrote,
	// OutputBytes its size now.
	OutputPath  string
	OutputBytes int64
}

// job is one started command. Its fields below mu are guarded by
// Jobs.mu.
type job struct {
	spec    JobSpec
	id      string
	path    string
	started time.Time

	stop     chan struct{} // closed to ask the waiter to end the command
	stopOnce sync.Once
	over     chan struct{} // closed once the job is over and Ended returned

	readMu  sync.Mutex // one Read at a time: they share readPos
	readPos int64      // guarded by readMu

	// guarded by Jobs.mu
	running  bool
	ended    time.Time
	killed   bool
	timedOut bool
	exitCode int
	signal   string
	note     string
}

// requestStop asks the job's waiter to end it; later calls do nothing.
func (jb *job) requestStop() { jb.stopOnce.Do(func() { close(jb.stop) }) }

// info is the job as it stands but for OutputBytes (withSize); j.mu is
// held.
func (jb *job) info() JobInfo {
	return JobInfo{
		ID: jb.id, Command: jb.spec.Command, Description: jb.spec.Description, Owner: jb.spec.Owner,
		PID: jb.spec.Cmd.Process.Pid, Started: jb.started, Ended: jb.ended, Running: jb.running, Killed: jb.killed,
		TimedOut: jb.timedOut, Timeout: jb.spec.Timeout, ExitCode: jb.exitCode, Signal: jb.signal,
		Note: jb.note, OutputPath: jb.path,
	}
}

// withSize fills in in.OutputBytes, outside the lock.
func withSize(in JobInfo) JobInfo {
	if fi, err := os.Stat(in.OutputPath); err == nil {
		in.OutputBytes = fi.Size()
	}
	return in
}

// Start starts spec's command in the background and returns at once with
// its id ("bash_1", "bash_2", … in the order started). An error means the
// command has not run.
func (j *Jobs) Start(spec JobSpec) (JobInfo, error) {
	if spec.Cmd == nil || spec.Cmd.Process != nil {
		return JobInfo{}, errors.New("start background command: no command, or one already started")
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return JobInfo{}, ErrJobsClosed
	}
	dir, err := j.dirLocked()
	if err != nil {
		j.mu.Unlock()
		return JobInfo{}, err
	}
	j.next++
	jb := &job{spec: spec, id: fmt.Sprintf("bash_%d", j.next), stop: make(chan struct{}), over: make(chan struct{}), exitCode: -1}
	// Counted before it starts, so that a Close from now on waits for it.
	j.wg.Add(1)
	if j.spawn == nil {
		j.spawn = newSpawner()
	}
	sp := j.spawn
	j.mu.Unlock()

	if err := j.start(jb, dir, sp); err != nil {
		j.wg.Done()
		return JobInfo{}, err
	}
	j.mu.Lock()
	jb.started, jb.running = time.Now(), true
	j.jobs = append(j.jobs, jb)
	if j.closed {
		jb.requestStop() // Close came while it started
	}
	info := jb.info()
	j.mu.Unlock()
	go j.wait(jb)
	return withSize(info), nil
}

// start creates the job's output file and starts its command from sp.
// The job is not listed yet: nothing else sees it.
func (j *Jobs) start(jb *job, dir string, sp *spawner) error {
	f, err := createOutput(dir, jb.id)
	if err != nil {
		return fmt.Errorf("start background command: %w", err)
	}
	// The child gets the file itself, not a pipe that a goroutine of ours
	// would have to drain: output never passes through this process.
	// Our copy is closed once the child has its own.
	defer f.Close()
	jb.path = f.Name()
	cmd := jb.spec.Cmd
	cmd.Stdout, cmd.Stderr = f, f
	setParentDeath(cmd)
	startFn := jb.spec.StartFn
	if startFn == nil {
		startFn = (*exec.Cmd).Start
	}
	if err := sp.start(func() error { return startFn(cmd) }); err != nil {
		_ = os.Remove(jb.path)
		return err
	}
	return nil
}

// createOutput creates the file a job's output is spooled to, named after
// the job; another session's jobs in the same directory keep theirs.
func createOutput(dir, id string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, id+".output"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return os.CreateTemp(dir, id+"-*.output")
	}
	return f, err
}

// dirLocked makes the output directory on first use; j.mu is held.
func (j *Jobs) dirLocked() (string, error) {
	if j.outDir != "" {
		return j.outDir, nil
	}
	if j.dir == "" {
		d, err := os.MkdirTemp("", "nova-jobs-")
		if err != nil {
			return "", fmt.Errorf("start background command: %w", err)
		}
		j.outDir, j.tempDir = d, true
		return d, nil
	}
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return "", fmt.Errorf("start background command: %w", err)
	}
	j.outDir = j.dir
	return j.dir, nil
}

// wait is a job's waiter: it waits for the command to end, or ends it when
// asked to or at its time limit, and reports the end.
func (j *Jobs) wait(jb *job) {
	defer j.wg.Done()
	spec, cmd := jb.spec, jb.spec.Cmd
	waited := make(chan error, 1)
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		if spec.WaitFn != nil {
			waited <- spec.WaitFn(cmd)
		} else {
			waited <- cmd.Wait()
		}
	}()
	stopFn := spec.StopFn
	if stopFn == nil {
		stopFn = func(cmd *exec.Cmd, waited <-chan error) error {
			_ = cmd.Process.Kill()
			return <-waited
		}
	}
	var limit <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		limit = t.C
	}
	var err error
	var killed, timedOut bool
	select {
	case err = <-waited:
	case <-jb.stop:
		killed = true
		err = stopFn(cmd, waited)
	case <-limit:
		timedOut = true
		err = stopFn(cmd, waited)
	}
	var note string
	if spec.FinishFn != nil {
		note = spec.FinishFn(cmd)
	}
	code, signal := -1, ""
	if ps := cmd.ProcessState; ps != nil {
		code = ps.ExitCode()
		if code < 0 {
			signal = strings.TrimPrefix(ps.String(), "signal: ")
		}
	} else if err != nil && note == "" {
		note = "waiting for the command failed: " + err.Error()
	}

	j.mu.Lock()
	jb.running, jb.ended = false, time.Now()
	jb.killed, jb.timedOut, jb.exitCode, jb.signal, jb.note = killed, timedOut, code, signal, note
	info := jb.info()
	j.mu.Unlock()
	if spec.Ended != nil {
		spec.Ended(withSize(info))
	}
	close(jb.over)
}

// find returns the job with the given id, or nil.
func (j *Jobs) find(id string) *job {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, jb := range j.jobs {
		if jb.id == id {
			return jb
		}
	}
	return nil
}

// Get returns the job with the given id as it stands.
func (j *Jobs) Get(id string) (JobInfo, bool) {
	jb := j.find(id)
	if jb == nil {
		return JobInfo{}, false
	}
	j.mu.Lock()
	info := jb.info()
	j.mu.Unlock()
	return withSize(info), true
}

// List returns every job, running or ended, in start order.
func (j *Jobs) List() []JobInfo {
	j.mu.Lock()
	out := make([]JobInfo, 0, len(j.jobs))
	for _, jb := range j.jobs {
		out = append(out, jb.info())
	}
	j.mu.Unlock()
	for i := range out {
		out[i] = withSize(out[i])
	}
	return out
}

// Kill ends the job with the given id (JobSpec.StopFn: for Bash its whole
// process group, SIGTERM, then SIGKILL after a grace of two seconds) and
// returns once it is over. A job that had ended already is left as it
// was (Get tells which: Killed). An id that names no job is an error
// (ErrNoJob).
func (j *Jobs) Kill(id string) error {
	jb := j.find(id)
	if jb == nil {
		return fmt.Errorf("%w: %s", ErrNoJob, id)
	}
	jb.requestStop()
	<-jb.over
	return nil
}

// KillOwner ends every running job that owner started (a subagent that
// ended), and returns once they are over.
func (j *Jobs) KillOwner(owner string) {
	j.mu.Lock()
	var mine []*job
	for _, jb := range j.jobs {
		if jb.running && jb.spec.Owner == owner {
			mine = append(mine, jb)
		}
	}
	j.mu.Unlock()
	for _, jb := range mine {
		jb.requestStop()
	}
	for _, jb := range mine {
		<-jb.over
	}
}

// Close ends every running job and waits until each is over and every
// goroutine of Jobs has returned; a temporary output directory is removed.
// Start fails from then on. Close may be called more than once.
func (j *Jobs) Close() {
	j.closeOnce.Do(func() {
		j.mu.Lock()
		j.closed = true
		for _, jb := range j.jobs {
			jb.requestStop()
		}
		j.mu.Unlock()
		j.wg.Wait()
		j.mu.Lock()
		sp, dir, temp := j.spawn, j.outDir, j.tempDir
		j.mu.Unlock()
		if sp != nil {
			sp.stop()
		}
		if temp {
			_ = os.RemoveAll(dir)
		}
	})
}

// JobOutput is one read of a job's output (Jobs.Read).
type JobOutput struct {
	// Info is the job as it stood when the read began: when it had ended,
	// Text and the reads before hold everything it wrote.
	Info JobInfo
	// Text is the output new since the previous read (with a filter, the
	// lines that match it), as valid UTF-8. When more than the read's
	// limit is new, Text is its head and tail with a marker between that
	// says how much was left out and names the output file.
	Text string
	// New is how many bytes of output this read took; they are not read
	// again.
	New int64
	// Skipped is how many lines the filter left out.
	Skipped int
	// Cut is how many bytes the marker stands for.
	Cut int64
}

// filterLineMax is how much of a line a filter sees and Text keeps of a
// matching one: a line longer than that (a minified file, a progress bar
// redrawn with \r) is judged and shown by its start.
const filterLineMax = 64 << 10

// Read returns what the job with the given id wrote since the previous
// Read (the first Read: since it started), at most limit bytes of it (see
// JobOutput.Text). With a filter, only the lines it matches are returned;
// the rest are taken too, and not read again. While the job runs, an
// incomplete last line is left for the next read when there is a filter,
// as is an incomplete UTF-8 sequence at the end without one. The file is
// read in pieces: output of any size costs memory in proportion to limit.
func (j *Jobs) Read(id string, filter *regexp.Regexp, limit int) (JobOutput, error) {
	jb := j.find(id)
	if jb == nil {
		return JobOutput{}, fmt.Errorf("%w: %s", ErrNoJob, id)
	}
	jb.readMu.Lock()
	defer jb.readMu.Unlock()
	j.mu.Lock()
	out := JobOutput{Info: jb.info()}
	j.mu.Unlock()
	out.Info = withSize(out.Info)

	f, err := os.Open(jb.path)
	if err != nil {
		return out, fmt.Errorf("read the output of %s: %w", id, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return out, fmt.Errorf("read the output of %s: %w", id, err)
	}
	start, end := jb.readPos, fi.Size()
	if end <= start {
		return out, nil
	}
	marker := func(n int64) string {
		return fmt.Sprintf("\n\n[... %d characters left out; the whole output is in %s ...]\n\n", n, jb.path)
	}
	running := out.Info.Running
	if filter != nil {
		err = readFiltered(&out, f, start, end, filter, running, limit, marker)
	} else {
		err = readRange(&out, f, start, end, running, limit, marker)
	}
	jb.readPos += out.New
	return out, err
}

// readRange reads [start, end) of f into out: all of it if it fits in
// limit, else its head and tail (cut on rune boundaries) and the marker.
func readRange(out *JobOutput, f *os.File, start, end int64, running bool, limit int, marker func(int64) string) error {
	if running {
		end = completeRunes(f, start, end)
	}
	n := end - start
	out.New = n
	if n <= int64(limit) {
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return err
		}
		out.Text = strings.ToValidUTF8(string(buf), "\uFFFD")
		return nil
	}
	// The marker will count fewer than n bytes: its room is enough.
	keep := max(limit-len(marker(n)), 2)
	head := make([]byte, keep/2)
	if _, err := f.ReadAt(head, start); err != nil && err != io.EOF {
		return err
	}
	tail := make([]byte, keep-keep/2)
	if _, err := f.ReadAt(tail, end-int64(len(tail))); err != nil && err != io.EOF {
		return err
	}
	head, tail = trimRuneHead(head), trimRuneTail(tail)
	out.Cut = n - int64(len(head)) - int64(len(tail))
	out.Text = strings.ToValidUTF8(string(head), "\uFFFD") + marker(out.Cut) + strings.ToValidUTF8(string(tail), "\uFFFD")
	return nil
}

// completeRunes moves end back before an incomplete UTF-8 sequence that
// ends the range: its last bytes are probably still being written.
func completeRunes(f *os.File, start, end int64) int64 {
	k := min(end-start, utf8.UTFMax-1)
	buf := make([]byte, k)
	if _, err := f.ReadAt(buf, end-k); err != nil {
		return end
	}
	for i := len(buf) - 1; i >= 0; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				return end - int64(len(buf)-i)
			}
			break
		}
	}
	return end
}

// trimRuneHead drops the bytes of a rune cut in two at the end of head.
func trimRuneHead(head []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size > 1 {
			break
		}
		head = head[:len(head)-1]
	}
	return head
}

// trimRuneTail drops the bytes of a rune cut in two at the start of tail.
func trimRuneTail(tail []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	return tail
}

// readFiltered reads the lines of [start, end) of f and keeps those filter
// matches: all of them, or as many whole lines from the start and from the
// end as fit in half of limit each, and the marker between.
func readFiltered(out *JobOutput, f *os.File, start, end int64, filter *regexp.Regexp, running bool, limit int, marker func(int64) string) error {
	half := max(limit-len(marker(end-start)), 2) / 2
	const cut = "…\n"
	r := bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), filterLineMax)
	var head, tail []string
	var headBytes, tailBytes int
	headFull := false
	for {
		line, size, complete, err := readLine(r)
		if err != nil && err != io.EOF {
			return err
		}
		if size == 0 || !complete && running {
			// A running job's incomplete last line is judged once it is
			// complete.
			break
		}
		out.New += size
		if filter.Match(line) {
			s := strings.ToValidUTF8(string(line), "\uFFFD")
			if len(s)+1 > half {
				s = s[:runeStartAt(s, max(half-len(cut), 0))] + cut
			} else if complete {
				s += "\n"
			}
			if !headFull && headBytes+len(s) <= half {
				head, headBytes = append(head, s), headBytes+len(s)
			} else {
				headFull = true
				tail, tailBytes = append(tail, s), tailBytes+len(s)
				for tailBytes > half {
					out.Cut += int64(len(tail[0]))
					tailBytes -= len(tail[0])
					tail = tail[1:]
				}
			}
		} else {
			out.Skipped++
		}
		if err == io.EOF {
			break
		}
	}
	var b strings.Builder
	for _, s := range head {
		b.WriteString(s)
	}
	if out.Cut > 0 {
		b.WriteString(marker(out.Cut))
	}
	for _, s := range tail {
		b.WriteString(s)
	}
	out.Text = b.String()
	return nil
}

// readLine reads one line: its first filterLineMax bytes without the
// newline, how many bytes it took in all, and whether a newline ended it.
func readLine(r *bufio.Reader) (line []byte, size int64, complete bool, err error) {
	chunk, err := r.ReadSlice('\n')
	size = int64(len(chunk))
	line = append([]byte(nil), chunk...)
	for err == bufio.ErrBufferFull {
		// The rest of an overlong line is taken but not kept.
		chunk, err = r.ReadSlice('\n')
		size += int64(len(chunk))
	}
	complete = len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
	return bytes.TrimSuffix(line, []byte("\n")), size, complete, err
}

// runeStartAt returns i, or the start of the rune i falls in.
func runeStartAt(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// ErrNoJobs is the error of asking for background commands where none can
// run (a session without them).
var ErrNoJobs = errors.New("background commands are not available in this session")
