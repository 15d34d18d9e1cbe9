//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/novacode/nova/mcp/mcptest"
)

// mcpScenario is a set of MCP servers nova is given with --mcp-config.
type mcpScenario struct {
	name    string
	servers map[string]any // "mcpServers"; nil: no --mcp-config at all
}

// mcpStartReport measures, through the binary in print mode against the
// scripted model, the time from the start of nova's process to the first
// model request the scripted server receives, with 0, 1 and 5 stdio MCP
// servers configured (this program re-run as mcptest's Go server, which
// answers at once) and with server-everything (Node) when it is on PATH.
// The scenarios alternate, runs times each; the 0-server runs are the
// baseline, measured in the same run. Servers start in the background, so
// the goal is no difference beyond noise. Wall time (to exit, which stops
// the servers) is reported beside it.
func mcpStartReport(ctx context.Context, nova string, runs int) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	goServer := func() map[string]any {
		return map[string]any{"command": self, "env": map[string]string{mcptest.EnvMode: mcptest.ModeTools}}
	}
	scenarios := []mcpScenario{
		{name: "no MCP server (baseline)"},
		{name: "1 stdio server (Go, mcptest)", servers: map[string]any{"s1": goServer()}},
		{name: "5 stdio servers (Go, mcptest)", servers: map[string]any{}},
	}
	for i := range 5 {
		scenarios[2].servers[fmt.Sprintf("s%d", i+1)] = goServer()
	}
	if bin, err := exec.LookPath("mcp-server-everything"); err == nil {
		scenarios = append(scenarios, mcpScenario{name: "1 stdio server (server-everything, Node)", servers: map[string]any{"everything": map[string]any{"command": bin}}})
	}
	first := make([][]time.Duration, len(scenarios))
	wall := make([][]time.Duration, len(scenarios))
	for range runs {
		for i, sc := range scenarios {
			f, w, err := firstRequest(ctx, nova, sc)
			if err != nil {
				return "", fmt.Errorf("%s: %w", sc.name, err)
			}
			first[i] = append(first[i], f)
			wall[i] = append(wall[i], w)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s (`novabench -only mcp`), %d runs per scenario, alternating; medians, and the spread of the runs.\n\n", time.Now().UTC().Format("2006-01-02"), hostDesc(), runs)
	fmt.Fprintf(&b, "| MCP servers configured | first request | min – max | / baseline | wall time (to exit) | / baseline |\n|---|---|---|---|---|---|\n")
	baseF, baseW := median(first[0]), median(wall[0])
	for i, sc := range scenarios {
		f, w := median(first[i]), median(wall[i])
		fmt.Fprintf(&b, "| %s | %s | %s – %s | %.2f | %s | %.2f |\n", sc.name, ms(f), ms(minD(first[i])), ms(maxD(first[i])), ratio(f, baseF), ms(w), ratio(w, baseW))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// firstRequest runs nova once in print mode with the scenario's servers and
// returns the time from its start to the first model request, and to its
// exit.
func firstRequest(ctx context.Context, nova string, sc mcpScenario) (first, wall time.Duration, err error) {
	dir, err := os.MkdirTemp("", "novabench-mcp-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return 0, 0, err
		}
	}
	args := []string{"-p", "--cwd", ws, "say hello"}
	if sc.servers != nil {
		cfg := filepath.Join(dir, "mcp.json")
		data, _ := json.Marshal(map[string]any{"mcpServers": sc.servers})
		if err := os.WriteFile(cfg, data, 0o600); err != nil {
			return 0, 0, err
		}
		args = append([]string{"--mcp-config", cfg}, args...)
	}
	srv := oneLineServer()
	defer srv.Close()
	cmd := exec.CommandContext(ctx, nova, args...)
	cmd.Env = append(os.Environ(), novaEnv(srv, home)...)
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("nova: %w: %s", err, stderr.String())
	}
	wall = time.Since(start)
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/messages") {
			return r.Received.Sub(start), wall, nil
		}
	}
	return 0, 0, errors.New("the scripted server saw no model request")
}

func minD(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = min(m, x)
	}
	return m
}

func maxD(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m
}
