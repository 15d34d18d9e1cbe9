package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/acp"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/tui"
)

// ACPOptions are the inputs of `nova acp`: what every session the editor
// opens starts from.
type ACPOptions struct {
	IO *iostreams.IOStreams

	Provider        string
	Model           string
	Effort          string
	MaxTurns        int
	PermissionMode  string
	AllowedTools    []string
	DisallowedTools []string
	TrustWorkspace  bool
	MCPConfig       []string
	StrictMCPConfig bool
}

func newCmdACP(ios *iostreams.IOStreams, runF func(context.Context, *ACPOptions) error) *cobra.Command {
	opts := &ACPOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve an editor as its agent over the Agent Client Protocol (stdio)",
		Long: `nova acp speaks the Agent Client Protocol (ACP) on standard input and
output: an editor such as Zed starts it as its agent, opens sessions in its
project, sends prompts and answers permission requests in its own UI.
Standard error carries notices for the editor's log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRunFlags(opts.PermissionMode, opts.Effort, opts.MaxTurns); err != nil {
				return err
			}
			if opts.IO.StdinIsTTY {
				return errors.New("nova acp talks to an editor over standard input and output; start it from the editor (see README.md, Editors)")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runACP(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Provider, "provider", "", "Model protocol: anthropic, openai (Responses) or openai-chat (Chat Completions); default: whichever key is set")
	f.StringVar(&opts.Model, "model", "", "Model name (default $ANTHROPIC_MODEL / $OPENAI_MODEL, settings, or the provider's default)")
	f.StringVar(&opts.Effort, "effort", "", "Turn on reasoning with this effort: low, medium or high")
	f.IntVar(&opts.MaxTurns, "max-turns", 0, "Stop a prompt after this many model calls (0: no limit)")
	f.StringVar(&opts.PermissionMode, "permission-mode", "", "The mode sessions start in: default, acceptEdits, plan or bypassPermissions (default: settings' defaultMode, else default)")
	f.StringArrayVar(&opts.AllowedTools, "allowedTools", nil, "Rules allowed without asking, e.g. \"Bash(npm run test:*),Edit(src/**)\"")
	f.StringArrayVar(&opts.DisallowedTools, "disallowedTools", nil, "Rules denied; bare tool names also hide the tool from the model")
	f.BoolVar(&opts.TrustWorkspace, "trust-workspace", false, "Apply the workspace's own settings that need trust (see nova trust); an editor has no dialog to ask")
	f.StringArrayVar(&opts.MCPConfig, "mcp-config", nil, "Start the MCP servers of this file (.mcp.json's format) in every session, beside the editor's; repeatable")
	f.BoolVar(&opts.StrictMCPConfig, "strict-mcp-config", false, "Start only the editor's servers and those of --mcp-config, none from the settings or .mcp.json")
	return cmd
}

func runACP(ctx context.Context, opts *ACPOptions) error {
	// An editor that goes away leaves nova writing to a broken pipe:
	// that must be an error (and the sessions closed in order), not
	// SIGPIPE's death. A handler, unlike an ignored signal, is not
	// inherited by the commands nova runs.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	return acp.Serve(ctx, opts.IO.In, opts.IO.Out, acp.Options{
		Session: nova.Options{
			Provider: opts.Provider, Model: opts.Model, Effort: opts.Effort,
			MaxTurns: opts.MaxTurns, PermissionMode: opts.PermissionMode,
			Allow: opts.AllowedTools, Deny: opts.DisallowedTools,
			TrustWorkspace: opts.TrustWorkspace,
			MCPConfigFiles: opts.MCPConfig, StrictMCPConfig: opts.StrictMCPConfig,
		},
		LoadCommands: tui.LoadCommands,
		Version:      Version,
		Log:          opts.IO.ErrOut,
	})
}
