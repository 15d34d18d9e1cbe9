package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/llm/llmtest"
)

func TestServeFlags(t *testing.T) {
	on := true
	tests := []struct {
		name    string
		args    []string
		want    ServeOptions
		wantErr string
	}{
		{name: "defaults", args: nil, want: ServeOptions{Listen: "127.0.0.1:7777", IdleTimeout: 30 * time.Minute}},
		{
			name: "everything",
			args: []string{"--listen", "0.0.0.0:0", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--insecure-remote",
				"--token-file", "tok", "--allow-origin", "https://a.example", "--allow-origin", "http://b.example:8080",
				"--idle-timeout", "5m", "--model", "m", "--provider", "openai-chat", "--permission-mode", "acceptEdits",
				"--allowedTools", "Bash(go test:*)", "--disallowedTools", "WebFetch", "--cwd", "/w", "--mcp-config", "m.json",
				"--trust-workspace", "--web-search", "--max-turns", "9", "--effort", "low"},
			want: ServeOptions{Listen: "0.0.0.0:0", TLSCert: "c.pem", TLSKey: "k.pem", InsecureRemote: true, TokenFile: "tok",
				AllowOrigins: []string{"https://a.example", "http://b.example:8080"}, IdleTimeout: 5 * time.Minute,
				Session: RootOptions{Model: "m", Provider: "openai-chat", PermissionMode: "acceptEdits", AllowedTools: []string{"Bash(go test:*)"},
					DisallowedTools: []string{"WebFetch"}, Cwd: "/w", MCPConfig: []string{"m.json"}, TrustWorkspace: true, WebSearch: &on,
					MaxTurns: 9, Effort: "low"}},
		},
		{name: "cert without key", args: []string{"--tls-cert", "c.pem"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "bad mode", args: []string{"--permission-mode", "yolo"}, wantErr: `unknown permission mode "yolo"`},
		{name: "no prompt", args: []string{"do it"}, wantErr: "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ServeOptions
			cmd := newCmdServe(ios, func(ctx context.Context, o *ServeOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(ServeOptions{}, "IO"), cmpopts.IgnoreFields(RootOptions{}, "IO"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServeToken(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	os.WriteFile(good, []byte("file-token-0123456789\n"), 0o600)
	os.WriteFile(bad, []byte("short\n"), 0o600)
	tests := []struct {
		name, file, env, want, wantErr string
	}{
		{name: "file", file: good, env: "env-token-0123456789", want: "file-token-0123456789"},
		{name: "env", env: " env-token-0123456789 ", want: "env-token-0123456789"},
		{name: "bad file", file: bad, wantErr: "the token of " + bad + ": the token is 5 characters long"},
		{name: "bad env", env: "has/slash/0123456789", wantErr: "NOVA_SERVE_TOKEN: the token has the character '/'"},
		{name: "missing file", file: filepath.Join(dir, "none"), wantErr: "read --token-file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := serveToken(&ServeOptions{TokenFile: tc.file, Getenv: func(string) string { return tc.env }})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("token %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	a, err1 := serveToken(&ServeOptions{Getenv: func(string) string { return "" }})
	b, err2 := serveToken(&ServeOptions{Getenv: func(string) string { return "" }})
	if err1 != nil || err2 != nil || a == b || len(a) != 43 {
		t.Errorf("generated tokens %q, %q (%v, %v)", a, b, err1, err2)
	}
}

func TestServeURL(t *testing.T) {
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	tests := []struct {
		listen string
		addr   net.Addr
		tls    bool
		want   string
	}{
		{"127.0.0.1:0", tcp("127.0.0.1", 40123), false, "http://127.0.0.1:40123/#token=T"},
		{"localhost:7777", tcp("127.0.0.1", 7777), false, "http://localhost:7777/#token=T"},
		{"0.0.0.0:7777", tcp("0.0.0.0", 7777), true, "https://127.0.0.1:7777/#token=T"},
		{":7777", tcp("::", 7777), false, "http://127.0.0.1:7777/#token=T"},
		{"[::1]:7777", tcp("::1", 7777), false, "http://[::1]:7777/#token=T"},
		{"nova.example:443", tcp("10.0.0.2", 443), true, "https://nova.example:443/#token=T"},
	}
	for _, tc := range tests {
		if got := serveURL(tc.listen, tc.addr, tc.tls, "T"); got != tc.want {
			t.Errorf("serveURL(%q) = %q, want %q", tc.listen, got, tc.want)
		}
	}
}

// TestServeRefusesRemoteWithoutTLS: the check runs before anything else,
// and its message says what to do.
func TestServeRefusesRemoteWithoutTLS(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	code := Run(context.Background(), ios, []string{"serve", "--listen", "0.0.0.0:0"})
	if code != 1 || out.Len() != 0 || !strings.Contains(errOut.String(), "refusing to listen on 0.0.0.0:0") ||
		!strings.Contains(errOut.String(), "--tls-cert and --tls-key, or --insecure-remote") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	err := runServe(context.Background(), &ServeOptions{IO: ios, Listen: "192.168.0.10:7777"})
	if err == nil || !strings.Contains(err.Error(), "without TLS") {
		t.Errorf("runServe: %v", err)
	}
}

// TestRunServe runs nova serve on port 0: the printed address and token
// work, a prompt runs, and the command ends cleanly with its context.
func TestRunServe(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("served")}})
	defer srv.Close()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"sandbox":"off"}`), 0o644)
	t.Setenv("NOVA_HOME", home)
	for k, v := range map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_MODEL": "",
		"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": "", "NOVA_SERVE_TOKEN": ""} {
		t.Setenv(k, v)
	}
	pr, pw := io.Pipe()
	ios, _, _, errOut := iostreams.Test()
	ios.Out = pw
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, ios, []string{"serve", "--listen", "127.0.0.1:0", "--cwd", t.TempDir()})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	if err != nil {
		t.Fatalf("no address line: %v (stderr %s)", err, errOut)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "nova serve: open ")
	u, perr := url.Parse(addr)
	if !ok || perr != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "0" || !strings.HasPrefix(u.Fragment, "token=") {
		t.Fatalf("address line %q", line)
	}
	token := strings.TrimPrefix(u.Fragment, "token=")

	dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer dcancel()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	// The web client at /.
	resp, err := hc.Get("http://" + u.Host + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" || !strings.Contains(string(page), "<script") {
		t.Errorf("GET / = %d, CSP %q, page %.200s", resp.StatusCode, resp.Header.Get("Content-Security-Policy"), page)
	}
	conn, _, err := websocket.Dial(dctx, "ws://"+u.Host+"/ws", &websocket.DialOptions{HTTPClient: hc, Subprotocols: []string{"nova.v1", "nova.token." + token}})
	if err != nil {
		t.Fatalf("dial with the printed token: %v", err)
	}
	defer conn.CloseNow()
	b, _ := json.Marshal(map[string]string{"type": "prompt", "text": "hello"})
	if err := conn.Write(dctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	for {
		_, msg, err := conn.Read(dctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if strings.HasPrefix(string(msg), `{"type":"result"`) {
			if !strings.Contains(string(msg), `"result":"served"`) {
				t.Errorf("result %s", msg)
			}
			break
		}
	}
	cancel()
	if _, _, err := conn.Read(dctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("at shutdown the connection ends with %v, want 1001", err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %s", code, errOut)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("nova serve did not end with its context")
	}
}
