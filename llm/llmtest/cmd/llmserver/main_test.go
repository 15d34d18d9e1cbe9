package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestLoadScript(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name    string
		path    string
		turns   int
		wantErr string
	}{
		{"demo", "testdata/demo.json", 2, ""},
		{"missing file", filepath.Join(dir, "nope.json"), 0, "no such file"},
		{"empty script", write("empty.json", "[]"), 0, "script has no turns"},
		{"not JSON", write("bad.json", "turns:\n  - text: hi"), 0, "parse script"},
		{"unknown kind", write("kind.json", `[{"blocks":[{"kind":"txt"}]}]`), 0, `unknown kind "txt"`},
		{"misspelt key", write("key.json", `[{"chunkdelay":"5ms"}]`), 0, `unknown field "chunkdelay"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			turns, err := loadScript(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), filepath.Base(tc.path)) {
					t.Errorf("err = %v does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(turns) != tc.turns {
				t.Errorf("%d turns, want %d", len(turns), tc.turns)
			}
		})
	}
	turns, _ := loadScript("testdata/demo.json")
	if b := turns[0].Blocks[1]; b.Delay != 20*time.Millisecond {
		t.Errorf("demo block delay = %v, want 20ms", b.Delay)
	}
	if b := turns[0].Blocks[2]; b.Input != `{"path":"."}` {
		t.Errorf("demo tool input = %q", b.Input)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"-script"}, {"-script", "a.json", "extra"}, {"-bogus"}} {
		var stderr bytes.Buffer
		if code := run(t.Context(), args, io.Discard, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
		if stderr.Len() == 0 {
			t.Errorf("run(%q) printed no usage", args)
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-script", "testdata/missing.json"}, io.Discard, &stderr); code != 1 {
		t.Errorf("missing script: exit %d, want 1", code)
	}
}

// TestRunRepeat serves the demo script with -repeat: the URL comes first on
// stdout, the script cycles, and cancelling (as SIGINT does) exits 0.
func TestRunRepeat(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, stdout := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"-script", "testdata/demo.json", "-repeat"}, stdout, io.Discard)
		stdout.Close()
	}()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the server URL", url)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	// One script serves every format in turn; each answer's stop reason
	// (or the OpenAI equivalent) shows which turn it got.
	var stops []string
	for _, path := range []string{"/v1/messages", "/v1/chat/completions", "/v1/responses", "/v1/messages"} {
		resp, err := client.Post(url+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			StopReason string `json:"stop_reason"` // Anthropic
			Choices    []struct {
				FinishReason string `json:"finish_reason"`
			} `json:"choices"` // Chat
			Output []struct {
				Type string `json:"type"`
			} `json:"output"` // Responses
		}
		err = json.NewDecoder(resp.Body).Decode(&msg)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(msg.Choices) > 0:
			msg.StopReason = msg.Choices[0].FinishReason
		case len(msg.Output) > 0:
			msg.StopReason = msg.Output[len(msg.Output)-1].Type
		}
		stops = append(stops, msg.StopReason)
	}
	if want := "tool_use stop function_call end_turn"; strings.Join(stops, " ") != want {
		t.Errorf("stop reasons %v, want %s: the script should cycle across formats", stops, want)
	}

	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
