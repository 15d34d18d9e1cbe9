package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool/builtin"
)

// PermissionCheckOptions are the inputs of `nova permission check`.
type PermissionCheckOptions struct {
	IO    *iostreams.IOStreams
	Mode  string
	Allow []string
	Ask   []string
	Deny  []string
	Cwd   string
	// Sandboxed answers as if commands ran in the OS sandbox.
	Sandboxed bool
	// TrustWorkspace applies the workspace's settings that need trust.
	TrustWorkspace bool
	Tool           string
	Input          json.RawMessage
}

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
	cmd := &cobra.Command{
		Use:   "check [--mode M] [--allow RULE]... [--deny RULE]... [--cwd DIR] TOOL INPUT_JSON",
		Short: "Print the decision the permission chain makes for one tool call",
		Long: `Decide one tool call without a model and print the decision as one JSON line:
{"decision":"allow|ask|deny","reason":"...","rule":"..."}. The settings files of the
workspace are read as in a print-mode run (settings that need trust apply only in a
trusted workspace, see nova trust); --allow/--ask/--deny add rules.

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
				if _, err := permission.ParseMode(opts.Mode); err != nil {
					return err
				}
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
	f.BoolVar(&opts.Sandboxed, "sandboxed", false, "Decide as if commands ran in the OS sandbox (rules for project runners such as `npm test` hold only then)")
	return cmd
}

func runPermissionCheck(opts *PermissionCheckOptions) error {
	dir, err := workspace(opts.Cwd)
	if err != nil {
		return err
	}
	data, err := dataDir()
	if err != nil {
		return err
	}
	ws, err := config.LoadWorkspace(data, dir)
	if err != nil {
		return err
	}
	trusted, notice, err := decideTrust(context.Background(), ws, trustChoice{Flag: opts.TrustWorkspace})
	if err != nil {
		return err
	}
	fmt.Fprint(opts.IO.ErrOut, prefixed(notice))
	_, files := ws.Resolve(trusted)
	warnSettings(opts.IO.ErrOut, files)
	c, _, err := buildChecker(permissionInputs{Mode: opts.Mode, Allow: opts.Allow, Ask: opts.Ask, Deny: opts.Deny, Sandboxed: opts.Sandboxed,
		Always: ws.Record.Allow, AlwaysFrom: ws.UserPath}, dir, files, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	readOnly := false
	for _, t := range builtin.All() {
		if t.Name() == opts.Tool {
			readOnly = t.ReadOnly()
		}
	}
	d := c.Check(permission.Call{Tool: opts.Tool, Input: opts.Input, ReadOnly: readOnly})
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s\n", b)
	return err
}
