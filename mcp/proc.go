package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxLine bounds one line a server writes on standard output (the SDK's
// own bound for a frame).
const maxLine = 16 << 20

// process is one stdio server: a child in a process group of its own
// (where the platform has them), whose standard output reaches the SDK
// through a filter, and whose standard error is kept, the last part of it,
// for error messages. It is the Writer of the SDK's IOTransport: the SDK
// closes it when the session ends, and Close then stops the whole group.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *lineFilter
	stderr *tail
	// done is closed once the process has been reaped (and, on Linux,
	// every other member of its group killed before that).
	done       chan struct{}
	stderrDone chan struct{}
	exitErr    error // cmd.Wait's answer, set before done is closed
	closeWait  time.Duration
	closeOnce  sync.Once
}

// startProcess starts c's command in dir, with environ and c.Env on top,
// through spawn (which starts cmd from a thread that lives as long as the
// children: see spawner).
func startProcess(spawn func(*exec.Cmd) error, c ServerConfig, dir string, environ []string, closeWait time.Duration) (*process, error) {
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = dir
	cmd.Env = withEnv(environ, c.Env)
	setProcAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := spawn(cmd); err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", c.Command, err)
	}
	p := &process{
		cmd: cmd, stdin: stdin,
		stdout:     &lineFilter{r: bufio.NewReaderSize(stdout, 64<<10)},
		stderr:     &tail{max: 2048},
		done:       make(chan struct{}),
		stderrDone: make(chan struct{}),
		closeWait:  closeWait,
	}
	go func() {
		defer close(p.stderrDone)
		_, _ = io.Copy(p.stderr, stderr)
	}()
	go p.wait()
	return p, nil
}

// wait reaps the process once it exits; on Linux the rest of its group is
// killed first, while the group's id cannot yet be reused.
func (p *process) wait() {
	waitExited(p.cmd)
	killGroup(p.cmd)
	select {
	case <-p.stderrDone: // the last words on standard error
	case <-time.After(200 * time.Millisecond):
	}
	p.exitErr = p.cmd.Wait()
	afterWait(p.cmd)
	close(p.done)
}

// Write sends to the server's standard input.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server as the protocol asks: its standard input is
// closed, and a server that has not exited closeWait later is sent
// SIGTERM, then SIGKILL (its whole group). It returns once the process is
// reaped.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.done:
			return
		case <-time.After(p.closeWait):
		}
		signalGroup(p.cmd, sigTerm)
		select {
		case <-p.done:
			return
		case <-time.After(p.closeWait / 2):
		}
		p.kill()
	})
	<-p.done
	return nil
}

// kill ends the group at once and waits until the process is reaped.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.stdin.Close()
	signalGroup(p.cmd, sigKill)
	<-p.done
}

// exited reports whether the process has exited, and how.
func (p *process) exited() (bool, string) {
	select {
	case <-p.done:
	default:
		return false, ""
	}
	var ee *exec.ExitError
	switch {
	case p.exitErr == nil:
		return true, "exit status 0"
	case errors.As(p.exitErr, &ee):
		return true, ee.ProcessState.String()
	}
	return true, p.exitErr.Error()
}

// withEnv is environ with the variables of env set (replacing any of the
// same name), in a stable order.
func withEnv(environ []string, env map[string]string) []string {
	out := make([]string, 0, len(environ)+len(env))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := env[k]; !ok {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// lineFilter passes on the lines of a server's standard output that are
// JSON-RPC messages and drops the rest (banners, logs written to the wrong
// stream): the SDK ends the whole session at the first line it cannot
// decode, where Claude Code's client skips it.
type lineFilter struct {
	r   *bufio.Reader
	buf []byte // what is left of the current line
	err error  // the read error after buf

	mu      sync.Mutex
	dropped int
	first   string
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.readLine()
		f.err = err
		if isMessage(line) {
			f.buf = line
		} else if s := strings.TrimSpace(string(line)); s != "" {
			f.mu.Lock()
			if f.dropped == 0 {
				f.first = s[:min(len(s), 200)]
			}
			f.dropped++
			f.mu.Unlock()
		}
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// Close does nothing: the pipe closes when the process is reaped.
func (f *lineFilter) Close() error { return nil }

func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		part, err := f.r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("the server wrote a line longer than %d MB on standard output", maxLine>>20)
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// isMessage: a JSON object (or batch) that names the protocol.
func isMessage(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && bytes.Contains(t, []byte(`"jsonrpc"`)) && json.Valid(t)
}

// droppedNote says what the filter dropped, or "".
func (f *lineFilter) droppedNote() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch f.dropped {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("it wrote a line that is not JSON-RPC on standard output (ignored): %q", f.first)
	}
	return fmt.Sprintf("it wrote %d lines that are not JSON-RPC on standard output (ignored), the first: %q", f.dropped, f.first)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// String is the kept text, trimmed, on one line per line.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.b), "?"))
}
