package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		name          string
		path          string
		turns         int
		conversations int
		wantErr       string
	}{
		{"demo", "testdata/demo.json", 2, 0, ""},
		{"conversations", "testdata/conversations.json", 0, 3, ""},
		{"missing file", filepath.Join(dir, "nope.json"), 0, 0, "no such file"},
		{"empty script", write("empty.json", "[]"), 0, 0, "script has no turns"},
		{"not JSON", write("bad.json", "turns:\n  - text: hi"), 0, 0, "parse script"},
		{"unknown kind", write("kind.json", `[{"blocks":[{"kind":"txt"}]}]`), 0, 0, `unknown kind "txt"`},
		{"misspelt key", write("key.json", `[{"chunkdelay":"5ms"}]`), 0, 0, `unknown field "chunkdelay"`},
		{"no conversations", write("noconv.json", " {}"), 0, 0, "script has no conversations"},
		{"conversations not JSON", write("badconv.json", `{"a": [}`), 0, 0, "parse conversations"},
		{"conversation not a list", write("notlist.json", `{"a": {"blocks": []}}`), 0, 0, `conversation "a": llmtest: parse script`},
		{"conversation with a bad turn", write("badturn.json", `{"a": [{}], "b": [{"blocks":[{"kind":"txt"}]}]}`), 0, 0, `conversation "b": llmtest: script turn 0: block 0: unknown kind "txt"`},
		{"empty conversation", write("emptyconv.json", `{"a": []}`), 0, 0, `conversation "a" has no turns`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			turns, conversations, err := loadScript(tc.path)
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
			if len(turns) != tc.turns || len(conversations) != tc.conversations {
				t.Errorf("%d turns and %d conversations, want %d and %d", len(turns), len(conversations), tc.turns, tc.conversations)
			}
		})
	}
	turns, _, _ := loadScript("testdata/demo.json")
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
	stderr.Reset()
	if code := run(t.Context(), []string{"-script", "testdata/conversations.json", "-repeat"}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "-repeat needs") {
		t.Errorf("-repeat with conversations: exit %d, stderr %q; want 1 and why", code, stderr.String())
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

// TestRunConversations serves a script of conversations: each request gets
// the next turn of the conversation its first user message names, whatever
// its format.
func TestRunConversations(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, stdout := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"-script", "testdata/conversations.json"}, stdout, io.Discard)
		stdout.Close()
	}()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url = strings.TrimSpace(url)

	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var got []string
	for _, req := range []struct{ path, body string }{
		{"/v1/messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"preamble"},{"type":"text","text":"I am child-10"}]}]}`},
		{"/v1/chat/completions", `{"messages":[{"role":"system","content":"child-10"},{"role":"user","content":"child-1 here"}]}`},
		{"/v1/responses", `{"input":"the parent"}`},
		{"/v1/messages", `{"messages":[{"role":"user","content":"child-1 again"}]}`},
		{"/v1/responses", `{"input":[{"role":"user","content":[{"type":"input_text","text":"child-1 once more"}]}]}`},
	} {
		resp, err := client.Post(url+req.path, "application/json", strings.NewReader(req.body))
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			StopReason string `json:"stop_reason"` // Anthropic
			Content    []struct {
				Text string `json:"text"`
			} `json:"content"`
			Choices []struct {
				FinishReason string `json:"finish_reason"`
				Message      struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"` // Chat
			Output []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"` // Responses
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&msg)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		answer := msg.StopReason
		for _, c := range msg.Content {
			answer += c.Text
		}
		for _, c := range msg.Choices {
			answer += c.Message.Content
		}
		for _, o := range msg.Output {
			for _, c := range o.Content {
				answer += c.Text
			}
		}
		if msg.Error.Message != "" {
			answer = fmt.Sprint(resp.StatusCode, " ", msg.Error.Message)
		}
		got = append(got, answer)
	}
	want := []string{
		"tool_use",
		"child-1, first answer",
		"the parent's answer",
		"end_turnchild-1, second answer",
		`500 llmtest: script "child-1" exhausted after 2 turns; conversation: "child-1 once more"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
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
