package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/coder/websocket"
	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkServe20Sessions runs 20 sessions at once, each a few tool turns
// (a Read, an echo, a Write that asks for permission, answered allow_once,
// and a 2 KB streamed answer) against the scripted model, three ways in the
// same run:
//
//   - sdk: 20 goroutines drive 20 nova.Sessions directly (Interactive,
//     answering the request in the loop): the baseline, the sessions'
//     own cost;
//   - serve: 20 WebSocket clients drive 20 sessions of a Server in this
//     process (not the binary): the baseline plus the server;
//   - serve1: one client, one session: the server's cost alone.
//
// It reports per session: CPU time (getrusage of the whole process: the
// scripted model is in it too, equally for all three), bytes allocated,
// and the heap the sessions hold once their turns are done (after a GC,
// sessions still open). BENCHMARKS.md, "nova serve", has the figures.
func BenchmarkServe20Sessions(b *testing.B) {
	for _, v := range []struct {
		name     string
		sessions int
		serve    bool
	}{{"sdk", 20, false}, {"serve", 20, true}, {"serve1", 1, true}} {
		b.Run(v.name, func(b *testing.B) {
			env := newBenchEnv(b)
			defer env.llm.Close()
			var cpu time.Duration
			var alloc, held uint64
			for range b.N {
				r := env.round(b, v.sessions, v.serve)
				cpu += r.cpu
				alloc += r.alloc
				held += r.held
			}
			n := float64(b.N * v.sessions)
			b.ReportMetric(float64(cpu.Microseconds())/1000/n, "cpu-ms/session")
			b.ReportMetric(float64(alloc)/(1<<20)/n, "alloc-MB/session")
			b.ReportMetric(float64(held)/(1<<10)/n, "heap-KB/session")
		})
	}
}

type benchEnv struct {
	llm        *llmtest.Server
	dir, data  string
	answerText string
}

func newBenchEnv(b *testing.B) *benchEnv {
	e := &benchEnv{llm: llmtest.NewServer(), dir: b.TempDir(), data: b.TempDir(),
		answerText: strings.Repeat("All three steps are done; the file is written. ", 40)}
	if err := os.WriteFile(filepath.Join(e.dir, "a.txt"), []byte(strings.Repeat("line of the file\n", 100)), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *benchEnv) options() nova.Options {
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": e.llm.URL}
	return nova.Options{Dir: e.dir, DataDir: e.data, Getenv: func(k string) string { return env[k] }, Sandbox: "off"}
}

// script is one session's conversation, found by its marker.
func (e *benchEnv) script(i int) []llmtest.Turn {
	write, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("out-%02d.txt", i), "content": "written\n"})
	return []llmtest.Turn{
		call("r", "Read", `{"file_path":"a.txt"}`),
		call("e", "Bash", `{"command":"echo hi"}`),
		call("w", "Write", string(write)),
		text(e.answerText),
	}
}

type roundResult struct {
	cpu         time.Duration
	alloc, held uint64
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// round runs n sessions at once and measures them.
func (e *benchEnv) round(b *testing.B, n int, serve bool) roundResult {
	b.StopTimer()
	scripts := map[string][]llmtest.Turn{}
	for i := range n {
		scripts[fmt.Sprintf("bench-session-%02d", i)] = e.script(i)
	}
	e.llm.SetFallback(llmtest.Conversations(scripts))
	var h *benchServer
	if serve {
		h = startBenchServer(b, e)
	}
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := cpuTime()
	b.StartTimer()

	var closeAll func()
	if serve {
		h.run(b, n)
	} else {
		closeAll = e.runSDK(b, n)
	}

	b.StopTimer()
	cpu := cpuTime() - t0
	runtime.GC()
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	if serve {
		h.stop(b)
	} else {
		closeAll()
	}
	b.StartTimer()
	return roundResult{cpu: cpu, alloc: m1.TotalAlloc - m0.TotalAlloc, held: m1.HeapAlloc - min(m0.HeapAlloc, m1.HeapAlloc)}
}

// runSDK drives n sessions through the SDK; it returns what closes them.
func (e *benchEnv) runSDK(b *testing.B, n int) func() {
	sessions := make([]*nova.Session, n)
	var g errgroup.Group
	for i := range n {
		g.Go(func() error {
			o := e.options()
			o.Interactive = true
			s, err := nova.Open(context.Background(), o)
			if err != nil {
				return err
			}
			sessions[i] = s
			var lc event.LoopComplete
			for ev := range s.Send(context.Background(), fmt.Sprintf("bench-session-%02d: do the three steps", i)) {
				switch ev := ev.(type) {
				case *event.PermissionRequest:
					ev.Respond(event.DecisionFor(event.ChoiceAllowOnce, ""))
				case event.LoopComplete:
					lc = ev
				}
			}
			if lc.Reason != event.ReasonDone {
				return fmt.Errorf("session %d ended %s: %s", i, lc.Reason, lc.Error)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return func() {
		for _, s := range sessions {
			if s != nil {
				s.Close()
			}
		}
	}
}

// benchServer is a Server on 127.0.0.1 for one round, and its clients.
type benchServer struct {
	url     string
	cancel  context.CancelFunc
	done    chan error
	clients []*wsClient
}

func startBenchServer(b *testing.B, e *benchEnv) *benchServer {
	srv, err := New(Config{Options: e.options, Token: testToken, IdleTimeout: -1})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &benchServer{url: "ws://" + ln.Addr().String() + "/ws", cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(ctx, ln) }()
	return s
}

// stop closes the clients, then the server (and so the sessions).
func (s *benchServer) stop(b *testing.B) {
	for _, c := range s.clients {
		c.conn.CloseNow()
	}
	s.cancel()
	if err := <-s.done; err != nil {
		b.Fatal(err)
	}
}

// run drives n sessions, one WebSocket client each, to their results; the
// connections stay open.
func (s *benchServer) run(b *testing.B, n int) {
	var g errgroup.Group
	var mu sync.Mutex
	for i := range n {
		g.Go(func() error {
			c, err := benchDial(s.url)
			if err != nil {
				return err
			}
			mu.Lock()
			s.clients = append(s.clients, c)
			mu.Unlock()
			if err := c.write(map[string]any{"type": "prompt", "text": fmt.Sprintf("bench-session-%02d: do the three steps", i)}); err != nil {
				return err
			}
			for {
				f, err := c.read(60 * time.Second)
				if err != nil {
					return fmt.Errorf("session %d: %w", i, err)
				}
				switch f.Type {
				case "permission_request":
					if err := c.write(map[string]any{"type": "permission", "id": f.ID, "decision": "allow_once"}); err != nil {
						return err
					}
				case "result":
					if f.Subtype != "success" {
						return fmt.Errorf("session %d: %s", i, f.raw)
					}
					return nil
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// benchDial connects with the token and reads the hello frame.
func benchDial(url string) (*wsClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}},
		HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
	})
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	c := &wsClient{conn: conn}
	if f, err := c.read(10 * time.Second); err != nil || f.Type != "hello" {
		conn.CloseNow()
		return nil, fmt.Errorf("hello: %v %s", err, f.raw)
	}
	return c, nil
}
