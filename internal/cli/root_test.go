package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/internal/iostreams"
)

func TestRootFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    RootOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"-p", "hello", "world"},
			want: RootOptions{Print: true, Prompt: "hello world", OutputFormat: "text"},
		},
		{
			name: "everything",
			args: []string{"--print", "--output-format", "stream-json", "--provider", "anthropic", "--model", "claude-x",
				"--max-turns", "2", "--permission-mode", "acceptEdits", "--allowedTools", "Bash,Read", "--allowedTools", "Edit",
				"--disallowedTools", "Write Glob", "--cwd", "/tmp", "--effort", "high", "--debug", "permissions", "--trust-workspace", "do it"},
			want: RootOptions{Print: true, Prompt: "do it", OutputFormat: "stream-json", Provider: "anthropic", Model: "claude-x",
				MaxTurns: 2, PermissionMode: "acceptEdits", AllowedTools: []string{"Bash,Read", "Edit"},
				DisallowedTools: []string{"Write Glob"}, Cwd: "/tmp", Effort: "high", Debug: []string{"permissions"}, TrustWorkspace: true},
		},
		{
			name: "MCP config",
			args: []string{"-p", "--mcp-config", "a.json", "--mcp-config", "b c.json", "--strict-mcp-config", "x"},
			want: RootOptions{Print: true, Prompt: "x", OutputFormat: "text", MCPConfig: []string{"a.json", "b c.json"}, StrictMCPConfig: true},
		},
		{name: "bad format", args: []string{"-p", "--output-format", "yaml", "x"}, wantErr: `unknown output format "yaml"`},
		{name: "bad mode", args: []string{"-p", "--permission-mode", "yolo", "x"}, wantErr: `unknown permission mode "yolo"`},
		{name: "bad debug", args: []string{"-p", "--debug", "everything", "x"}, wantErr: `unknown --debug topic "everything"`},
		{name: "bad effort", args: []string{"-p", "--effort", "max", "x"}, wantErr: "--effort must be low, medium or high"},
		{name: "negative turns", args: []string{"-p", "--max-turns", "-1", "x"}, wantErr: "--max-turns must be"},
		{name: "unknown flag", args: []string{"--frobnicate"}, wantErr: "unknown flag: --frobnicate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *RootOptions
			cmd := NewCmdRoot(ios, func(ctx context.Context, o *RootOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
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
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(RootOptions{}, "IO"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUserErrorsAreOneLine(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no provider", []string{"-p", "hi"}, map[string]string{"ANTHROPIC_API_KEY": ""}, "nova: no model provider is configured"},
		{"no anthropic key", []string{"-p", "--provider", "anthropic", "hi"}, map[string]string{"ANTHROPIC_API_KEY": ""}, "nova: ANTHROPIC_API_KEY is not set"},
		{"bad settings", []string{"-p", "hi"}, map[string]string{"ANTHROPIC_API_KEY": "k", "BAD_SETTINGS": "1"}, "nova: settings file "},
		{"no prompt", []string{"-p"}, map[string]string{"ANTHROPIC_API_KEY": "k"}, "nova: no prompt given"},
		{"interactive without a terminal", []string{"hi"}, map[string]string{"ANTHROPIC_API_KEY": "k", "NOT_A_TTY": "1"}, "nova: the interactive UI needs a terminal"},
		{"bad cwd", []string{"-p", "--cwd", "/nonexistent/dir", "hi"}, map[string]string{"ANTHROPIC_API_KEY": "k"}, "nova: --cwd /nonexistent/dir is not a directory"},
		{"bad provider", []string{"-p", "--provider", "gemini", "hi"}, map[string]string{"ANTHROPIC_API_KEY": "k"}, `nova: unknown provider "gemini"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("NOVA_HOME", home)
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"} {
				t.Setenv(k, "")
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.env["BAD_SETTINGS"] != "" {
				if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"model": 3}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ios, _, _, errOut := iostreams.Test()
			ios.StdinIsTTY = tc.env["NOT_A_TTY"] == ""
			if code := Run(context.Background(), ios, tc.args); code != 1 {
				t.Fatalf("exit %d", code)
			}
			got := errOut.String()
			if !strings.HasPrefix(got, tc.want) || strings.Count(got, "\n") != 1 {
				t.Fatalf("stderr = %q, want one line starting %q", got, tc.want)
			}
		})
	}
}

// Without a terminal on standard input or output the TUI does not start:
// one line says which is missing, what a one-word prompt may have meant,
// and how to run the task in print mode; the exit code is 1.
func TestInteractiveNeedsATerminal(t *testing.T) {
	tests := []struct {
		name          string
		args          []string
		stdin, stdout bool
		want          string
	}{
		{"stdin", []string{"fix the build"}, false, true,
			"nova: the interactive UI needs a terminal, and standard input is not one; for scripts and pipes use print mode: nova -p 'fix the build'\n"},
		{"stdout", []string{}, true, false,
			"nova: the interactive UI needs a terminal, and standard output is not one; for scripts and pipes use print mode: nova -p 'your task'\n"},
		{"a mistyped subcommand", []string{"sesions"}, false, true,
			"nova: the interactive UI needs a terminal, and standard input is not one; did you mean nova sessions?; for scripts and pipes use print mode: nova -p sesions\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NOVA_HOME", t.TempDir())
			ios, _, out, errOut := iostreams.Test()
			ios.StdinIsTTY, ios.StdoutIsTTY = tc.stdin, tc.stdout
			if code := Run(context.Background(), ios, tc.args); code != 1 {
				t.Fatalf("exit %d", code)
			}
			if diff := cmp.Diff(tc.want, errOut.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q", out)
			}
		})
	}
}

func TestReadPiped(t *testing.T) {
	got, err := readPiped(strings.NewReader("diff --git a b\n"), true, time.Second)
	if err != nil || got != "diff --git a b\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	// An idle pipe does not hang a run that has a prompt.
	r, w := io.Pipe()
	defer w.Close()
	start := time.Now()
	got, err = readPiped(r, true, 50*time.Millisecond)
	if err != nil || got != "" || time.Since(start) > 5*time.Second {
		t.Fatalf("got %q, %v after %v", got, err, time.Since(start))
	}
	w.Close() // unblocks the abandoned reader so the test leaks nothing
}

func TestPermissionCheckFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    PermissionCheckOptions
		wantErr string
	}{
		{name: "all", args: []string{"--mode", "plan", "--allow", "Bash(npm run test:*)", "--allow", "Read", "--deny", "Bash(rm:*)", "--ask", "Edit", "--cwd", "/w", "--trust-workspace", "--sandboxed", "Bash", `{"command":"ls"}`},
			want: PermissionCheckOptions{Mode: "plan", Allow: []string{"Bash(npm run test:*)", "Read"}, Deny: []string{"Bash(rm:*)"}, Ask: []string{"Edit"}, Cwd: "/w",
				TrustWorkspace: true, Sandbox: SandboxAssumed, Tool: "Bash", Input: []byte(`{"command":"ls"}`)}},
		// Without a word about the sandbox, it is detected as a run would.
		{name: "detect", args: []string{"Bash", `{}`}, want: PermissionCheckOptions{Sandbox: SandboxDetect, Tool: "Bash", Input: []byte(`{}`)}},
		{name: "no sandbox", args: []string{"--no-sandbox", "Bash", `{}`}, want: PermissionCheckOptions{Sandbox: SandboxNone, Tool: "Bash", Input: []byte(`{}`)}},
		{name: "sandboxed=false", args: []string{"--sandboxed=false", "Bash", `{}`}, want: PermissionCheckOptions{Sandbox: SandboxNone, Tool: "Bash", Input: []byte(`{}`)}},
		{name: "no-sandbox=false", args: []string{"--no-sandbox=false", "Bash", `{}`}, want: PermissionCheckOptions{Sandbox: SandboxDetect, Tool: "Bash", Input: []byte(`{}`)}},
		{name: "both", args: []string{"--sandboxed", "--no-sandbox", "Bash", `{}`}, wantErr: "--sandboxed and --no-sandbox cannot be used together"},
		{name: "bad json", args: []string{"Bash", `{"command":`}, wantErr: "INPUT_JSON is not valid JSON"},
		{name: "bad mode", args: []string{"--mode", "yolo", "Bash", `{}`}, wantErr: "unknown permission mode"},
		{name: "missing input", args: []string{"Bash"}, wantErr: "accepts 2 arg(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *PermissionCheckOptions
			cmd := newCmdPermissionCheck(ios, func(ctx context.Context, o *PermissionCheckOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
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
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(PermissionCheckOptions{}, "IO"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// A prompt that starts with a subcommand's name meets the subcommand; the
// error says how to send it as a prompt.
func TestPromptThatLooksLikeASubcommand(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	if code := Run(context.Background(), ios, []string{"rewind", "the", "last", "change"}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	want := "To send it as a prompt, quote it: nova \"rewind the last change\"\n"
	if got := errOut.String(); !strings.HasPrefix(got, "nova: unknown command") || !strings.HasSuffix(got, want) {
		t.Fatalf("stderr = %q", got)
	}
}

func TestVersionLine(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name         string
		commit, date string // set at build time (-X)
		bi           *debug.BuildInfo
		want         string
	}{
		{"go build in a clone", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201170603-d0b3a694e113"},
			Settings: settings("-trimpath", "true", "vcs", "git", "vcs.revision", "d0b3a694e1131ea267da1a4e3b24af3862c15fa9", "vcs.time", "2026-12-01T17:06:03Z", "vcs.modified", "false")},
			"0.1.0-dev (commit d0b3a694e113 of 2026-12-01 17:06 UTC; go1.26.8)"},
		{"uncommitted changes", "", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Settings: settings("vcs.revision", "d0b3a694e1131ea267da1a4e3b24af3862c15fa9", "vcs.time", "2026-12-01T18:06:03+01:00", "vcs.modified", "true")},
			"0.1.0-dev (commit d0b3a694e113 of 2026-12-01 17:06 UTC, with uncommitted changes; go1.26.8)"},
		{"go install module@version", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.2.0"}},
			"0.1.0-dev (module v0.2.0; go1.26.8)"},
		{"go run", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: settings("-buildvcs", "false")},
			"0.1.0-dev (devel: built without version control information, so no commit is known; go1.26.8)"},
		{"no build info", "", "", nil, "0.1.0-dev (devel: no build information)"},
		{"release from a source archive", "d0b3a694e1131ea267da1a4e3b24af3862c15fa9", "2026-12-01T17:06:03Z",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: settings("-buildvcs", "false")},
			"0.2.0 (commit d0b3a694e113 of 2026-12-01 17:06 UTC; go1.26.8)"},
		{"release in a clone: the toolchain's commit wins", "0000000000000000000000000000000000000000", "2020-01-01T00:00:00Z",
			&debug.BuildInfo{GoVersion: "go1.26.8", Settings: settings("vcs.revision", "d0b3a694e1131ea267da1a4e3b24af3862c15fa9", "vcs.time", "2026-12-01T17:06:03Z", "vcs.modified", "false")},
			"0.2.0 (commit d0b3a694e113 of 2026-12-01 17:06 UTC; go1.26.8)"},
		{"set commit, no build info", "d0b3a694e1131ea267da1a4e3b24af3862c15fa9", "", nil, "0.2.0 (commit d0b3a694e113)"},
		{"release tool without the history", "none", "0001-01-01T00:00:00Z",
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: settings("-buildvcs", "false")},
			"0.2.0 (devel: built without version control information, so no commit is known; go1.26.8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			version := "0.1.0-dev"
			if tc.commit != "" {
				version = "0.2.0"
			}
			if got := versionLine(version, tc.commit, tc.date, tc.bi); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// --version prints the line for this binary, through the command.
func TestVersionFlag(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	if code := Run(context.Background(), ios, []string{"--version"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := "nova version " + versionLine(Version, Commit, Date, buildInfo()) + "\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// latestOrNot is a session that is, or is not, the workspace's latest.
type latestOrNot struct {
	id     string
	latest bool
}

func (s latestOrNot) ID() string   { return s.id }
func (s latestOrNot) Latest() bool { return s.latest }

// On exit the TUI leaves a line that brings the session back: nova -c while
// it is the workspace's latest, its id otherwise, with the workspace when
// --cwd named it.
func TestResumeHint(t *testing.T) {
	tests := []struct {
		s         latestOrNot
		cwd, want string
	}{
		{latestOrNot{"newer", true}, "", "Resume this session with: nova -c\n"},
		{latestOrNot{"older", false}, "", "Resume this session with: nova --resume older\n"},
		{latestOrNot{"newer", true}, "/my work", "Resume this session with: nova -c --cwd '/my work'\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		printResumeHint(&b, tc.s, tc.cwd)
		if diff := cmp.Diff(tc.want, b.String()); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tc.s.id, tc.cwd, diff)
		}
	}
}
