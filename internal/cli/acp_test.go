package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/internal/iostreams"
)

func TestACPFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		tty     bool
		want    ACPOptions
		wantErr string
	}{
		{name: "none", args: []string{}, want: ACPOptions{}},
		{name: "all", args: []string{
			"--provider", "openai", "--model", "gpt-5", "--effort", "high", "--max-turns", "30",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash(go test:*)", "--disallowedTools", "WebFetch",
			"--trust-workspace", "--mcp-config", "servers.json", "--strict-mcp-config",
		}, want: ACPOptions{
			Provider: "openai", Model: "gpt-5", Effort: "high", MaxTurns: 30, PermissionMode: "acceptEdits",
			AllowedTools: []string{"Bash(go test:*)"}, DisallowedTools: []string{"WebFetch"},
			TrustWorkspace: true, MCPConfig: []string{"servers.json"}, StrictMCPConfig: true,
		}},
		{name: "a bad mode", args: []string{"--permission-mode", "yolo"}, wantErr: "yolo"},
		{name: "a bad effort", args: []string{"--effort", "max"}, wantErr: "--effort must be low, medium or high"},
		{name: "negative turns", args: []string{"--max-turns", "-1"}, wantErr: "--max-turns must be 0"},
		{name: "arguments", args: []string{"hello"}, wantErr: "unknown command"},
		{name: "a terminal", args: []string{}, tty: true, wantErr: "start it from the editor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			ios.StdinIsTTY = tc.tty
			var got *ACPOptions
			cmd := newCmdACP(ios, func(ctx context.Context, o *ACPOptions) error { got = o; return nil })
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
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(ACPOptions{}, "IO")); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}
