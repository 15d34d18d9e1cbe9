package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/tui"
)

// askTrust asks the person in the trust dialog, before the TUI starts.
func askTrust(ios *iostreams.IOStreams) func(context.Context, nova.TrustQuestion) (bool, error) {
	return func(ctx context.Context, q nova.TrustQuestion) (bool, error) {
		tq := tui.TrustQuestion{Dir: q.Dir, Changed: q.Changed}
		for _, x := range q.Settings {
			tq.Settings = append(tq.Settings, tui.TrustSetting{File: x.File, Setting: x.Setting, Value: x.Value, Says: x.Says})
		}
		trusted, err := tui.AskTrust(ctx, tq, ios.In, ios.Out)
		if errors.Is(err, tui.ErrNoAnswer) {
			return false, fmt.Errorf("you did not say whether to trust %s, so nothing ran; run nova again to answer (nova trust trusts it without asking)", q.Dir)
		}
		return trusted, err
	}
}

// TrustOptions are the inputs of `nova trust`.
type TrustOptions struct {
	IO     *iostreams.IOStreams
	Dir    string
	Revoke bool
}

func newCmdTrust(ios *iostreams.IOStreams, runF func(context.Context, *TrustOptions) error) *cobra.Command {
	opts := &TrustOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a workspace: apply all of its own settings",
		Long: `A workspace's .novacode/settings.json and .novacode/settings.local.json can come
from its repository. Until you trust the workspace, nova applies only the settings
in them that make things stricter or change nothing that matters to your safety:
not those that allow tools or commands, loosen the permission mode or the sandbox,
open other directories, or choose the provider, its URL or its API key.

nova trust lists those settings and trusts the workspace (DIR, default: the current
directory) for exactly them: your answer is kept in your own settings file, and if
they change, nova asks again (print mode ignores them again). The interactive UI
asks the same question itself; --trust-workspace trusts for one run only.

  nova trust              trust the current directory
  nova trust --revoke ~/src/app`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTrust(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "Stop trusting the workspace: its settings that need trust are ignored again")
	return cmd
}

func runTrust(opts *TrustOptions) error {
	r, err := nova.SetTrust(opts.Dir, "", !opts.Revoke)
	if err != nil {
		return err
	}
	out := opts.IO.Out
	switch {
	case !r.NeedsTrust:
		_, err = fmt.Fprintf(out, "Nothing in the settings of %s needs trust: all of them apply already.\n", r.Dir)
	case opts.Revoke:
		_, err = fmt.Fprintf(out, "%s is not trusted: these settings of it are ignored from now on:\n%s", r.Dir, r.Settings)
	default:
		_, err = fmt.Fprintf(out, "Trusted %s: these settings of it apply from now on:\n%sIf they change, nova asks again (print mode ignores them until you run nova trust again).\n", r.Dir, r.Settings)
	}
	return err
}
