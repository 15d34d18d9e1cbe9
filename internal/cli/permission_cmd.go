package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
)

// PermissionCheckOptions are the inputs of `nova permission check`.
type PermissionCheckOptions struct {
	IO    *iostreams.IOStreams
	Mode  string
	Allow []string
	Ask   []string
	Deny  []string
	Cwd   string
	// Sandbox says what confines commands for this decision: detected as
	// a run on this machine would (the "sandbox" setting, bubblewrap or
	// Landlock, and what they can guarantee for this workspace), or
	// assumed either way.
	Sandbox SandboxChoice
	// TrustWorkspace applies the workspace's settings that need trust.
	TrustWorkspace bool
	Tool           string
	Input          json.RawMessage
}

// SandboxChoice is how nova permission check treats the OS sandbox.
type SandboxChoice string

const (
	SandboxDetect  SandboxChoice = ""        // as a run here would (default)
	SandboxAssumed SandboxChoice = "assumed" // --sandboxed: fully confined
	SandboxNone    SandboxChoice = "none"    // --no-sandbox, --sandboxed=false
)

func newCmdPermission(ios *iostreams.IOStreams, runF func(context.Context, *PermissionCheckOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permission",
		Short: "Inspect the permission chain",
	}
	cmd.AddCommand(newCmdPermissionCheck(ios, runF))
	return cmd
}

func newCmdPermissionCheck(ios *iostreams.IOStreams, runF func(context.Context, *PermissionCheckOptions) error) *cobra.Command {
	opts := &PermissionCheckOptions{IO: ios}
	var sandboxed, noSandbox bool
	cmd := &cobra.Command{
		Use:   "check [--mode M] [--allow RULE]... [--deny RULE]... [--cwd DIR] [--sandboxed | --no-sandbox] TOOL INPUT_JSON",
		Short: "Print the decision the permission chain makes for one tool call",
		Long: `Decide one tool call without a model and print the decision as one JSON line:
{"decision":"allow|ask|deny","reason":"...","rule":"...","sandbox":"..."}. The settings
files of the workspace are read as in a print-mode run (settings that need trust apply
only in a trusted workspace, see nova trust); --allow/--ask/--deny add rules.

The decision is the one a run here would make: the OS sandbox is set up as a run sets
it up (the "sandbox" setting; bubblewrap, else Landlock) and asked what it can promise
for this workspace, since rules for commands that run project code (npm test, make)
hold only while it confines them fully. "sandbox" in the output names it.
--sandboxed decides as if commands ran fully confined whatever this machine has, and
--no-sandbox (or --sandboxed=false) as if they ran unconfined.

  nova permission check Bash '{"command":"git status; rm -rf ~"}'
  nova permission check --allow 'Bash(npm run test:*)' Bash '{"command":"npm run test"}'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tool = args[0]
			if !json.Valid([]byte(args[1])) {
				return fmt.Errorf("INPUT_JSON is not valid JSON: %s", args[1])
			}
			opts.Input = json.RawMessage(args[1])
			if opts.Mode != "" {
				if err := nova.ValidMode(opts.Mode); err != nil {
					return err
				}
			}
			f := cmd.Flags()
			switch {
			case f.Changed("sandboxed") && f.Changed("no-sandbox"):
				return errors.New("--sandboxed and --no-sandbox cannot be used together")
			case f.Changed("sandboxed") && sandboxed:
				opts.Sandbox = SandboxAssumed
			case f.Changed("sandboxed"), noSandbox:
				opts.Sandbox = SandboxNone
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPermissionCheck(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Mode, "mode", "", "Permission mode (default: settings' defaultMode, else default)")
	f.StringArrayVar(&opts.Allow, "allow", nil, "An allow rule (repeatable)")
	f.StringArrayVar(&opts.Ask, "ask", nil, "An ask rule (repeatable)")
	f.StringArrayVar(&opts.Deny, "deny", nil, "A deny rule (repeatable)")
	f.StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	f.BoolVar(&opts.TrustWorkspace, "trust-workspace", false, "Apply the workspace's own settings that need trust (see nova trust)")
	// No backquotes in these: pflag shows a quoted word as the flag's
	// argument ("--sandboxed npm test"), and these take none.
	f.BoolVar(&sandboxed, "sandboxed", false, "Decide as if commands ran fully confined by the OS sandbox, whatever this machine has (default: detect it as a run does)")
	f.BoolVar(&noSandbox, "no-sandbox", false, "Decide as if commands ran without the OS sandbox (same as --sandboxed=false)")
	return cmd
}

func runPermissionCheck(opts *PermissionCheckOptions) error {
	res, err := nova.CheckPermission(context.Background(), opts.Tool, opts.Input, nova.CheckOptions{
		Dir: opts.Cwd, PermissionMode: opts.Mode, Allow: opts.Allow, Ask: opts.Ask, Deny: opts.Deny,
		TrustWorkspace: opts.TrustWorkspace, Sandbox: string(opts.Sandbox),
	})
	if err != nil {
		return err
	}
	fmt.Fprint(opts.IO.ErrOut, res.Notice)
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s\n", b)
	return err
}
