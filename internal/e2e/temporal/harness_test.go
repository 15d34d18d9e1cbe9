package temporal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/server/temporaltest"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm/llmtest"
)

// novaBin is nova, with nova-temporal beside it (nova hands the Temporal
// commands over to it); repoRoot the main module.
var novaBin, repoRoot string

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// setup builds both binaries in the main module, with its go.mod's
// versions (not this module's), and runs the tests. The in-process
// Temporal server leaves goroutines of its own behind, so goleak is not
// run here; the engine's own goroutines are checked in fleet/temporal.
func setup(m *testing.M) (int, error) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		return 1, err
	}
	repoRoot = root
	dir, err := os.MkdirTemp("", "nova-temporal-e2e-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(dir)
	novaBin = filepath.Join(dir, "nova")
	for _, c := range []struct{ out, pkg string }{{"nova", "./cmd/nova"}, {"nova-temporal", "./cmd/nova-temporal"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, c.out), c.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK=off")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return 1, fmt.Errorf("build %s: %w", c.pkg, err)
		}
	}
	return m.Run(), nil
}

// cluster is a Temporal server in this process, a scripted model, and the
// storage every worker shares: the data directory and the scratch
// directory for clones.
type cluster struct {
	t         *testing.T
	server    *temporaltest.TestServer
	model     *llmtest.Server
	queue     string
	home      string // NOVA_HOME, shared
	scratch   string // --scratch-dir, shared
	logs      string
	tasksDir  string
	hostPort  string
	namespace string
}

func newCluster(t *testing.T, scripts map[string][]llmtest.Turn) *cluster {
	t.Helper()
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFallback(llmtest.ConversationTurns(scripts))
	return &cluster{t: t, server: ts, model: srv, queue: "e2e-" + strings.ReplaceAll(t.Name(), "/", "-"),
		home: t.TempDir(), scratch: t.TempDir(), logs: t.TempDir(), tasksDir: t.TempDir(),
		hostPort: ts.GetFrontendHostPort(), namespace: ts.GetDefaultNamespace()}
}

// env is nova's environment on every machine of the cluster: the shared
// data directory, the scripted model, nothing of the user's.
func (c *cluster) env() []string {
	return append(os.Environ(), "NOVA_HOME="+c.home, "HOME="+c.home, "ANTHROPIC_MODEL=", "OPENAI_MODEL=",
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+c.model.URL, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
}

func (c *cluster) temporalFlags() []string {
	return []string{"--temporal-address", c.hostPort, "--namespace", c.namespace, "--task-queue", c.queue}
}

// proc is a nova process the test started and waits for.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// start starts nova with args, its standard error (and output, when not
// set) in a log file; the test's cleanup stops it (SIGTERM, then SIGKILL)
// and waits for it.
func (c *cluster) start(name string, stdout *os.File, args ...string) *proc {
	c.t.Helper()
	logPath := filepath.Join(c.logs, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		c.t.Fatal(err)
	}
	cmd := exec.Command(novaBin, args...)
	cmd.Env = c.env()
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout, cmd.Stderr = logf, logf
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	})
	c.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(15 * time.Second):
				_ = cmd.Process.Kill()
			}
		}
		wg.Wait()
		if c.t.Failed() {
			b, _ := os.ReadFile(logPath)
			c.t.Logf("%s's output:\n%s", name, tail(string(b), 4000))
		}
	})
	return p
}

// worker starts a nova worker (which nova hands over to nova-temporal).
func (c *cluster) worker(name string, parallel int) *proc {
	args := append([]string{"worker", "--parallel", fmt.Sprint(parallel), "--scratch-dir", c.scratch}, c.temporalFlags()...)
	return c.start(name, nil, args...)
}

// batch starts nova batch --engine temporal on tasks, its results to out.
func (c *cluster) batch(name, tasks, out string, extra ...string) *proc {
	args := append([]string{"batch", "--engine", "temporal", "--permission-mode", "bypassPermissions", "--out", out}, c.temporalFlags()...)
	return c.start(name, nil, append(append(args, extra...), tasks)...)
}

// wait waits for p to end within d and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		b, _ := os.ReadFile(p.log)
		t.Fatalf("%s did not end within %s; its output:\n%s", p.name, d, tail(string(b), 4000))
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("%s: %v", p.name, p.err)
	}
	return 0
}

// writeTasks writes tasks as a task file and returns its path.
func (c *cluster) writeTasks(name string, tasks []fleet.Task) string {
	c.t.Helper()
	var b bytes.Buffer
	for _, task := range tasks {
		line, err := json.Marshal(task)
		if err != nil {
			c.t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(c.tasksDir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// readResults reads a results file, by task id.
func readResults(t *testing.T, path string) map[string]fleet.TaskResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]fleet.TaskResult{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r fleet.TaskResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v: %s", path, err, sc.Text())
		}
		if _, dup := out[r.ID]; dup {
			t.Errorf("%s holds two lines for %s", path, r.ID)
		}
		out[r.ID] = r
	}
	return out
}

// modelCalls are the model calls the scripted server answered.
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

// recordedAnswers counts, for each task's session, the model's answers its
// transcript holds now: the turns completed (answered and recorded).
func (c *cluster) recordedAnswers(ids []string) map[string]int {
	c.t.Helper()
	out := map[string]int{}
	for _, id := range ids {
		paths, _ := filepath.Glob(filepath.Join(c.home, "projects", "*", fleet.StepSessionID(id)+".jsonl"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				c.t.Fatal(err)
			}
			for line := range strings.Lines(string(b)) {
				var rec struct {
					Type    string `json:"type"`
					Message *struct {
						Role string `json:"role"`
					} `json:"message"`
				}
				// A torn last line (a write cut by the kill) is no record.
				if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "message" && rec.Message != nil && rec.Message.Role == "assistant" {
					out[id]++
				}
			}
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// eventually polls cond every 50 ms until it holds or d passes.
func eventually(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cond()
}
